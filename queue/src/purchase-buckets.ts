/**
 * Token buckets for purchase routes: per customer and per showtime, taken from both or from
 * neither in one script call. Defaults come from DEFAULT_SETTINGS; a room's settings
 * override them per showtime.
 */
import { invalidInput, refusalFromCode, type Refused } from './codes';
import { createKeyBuilder, isValidCustomerId, isValidShowtimeId, type BucketScope } from './keys';
import { readReply } from './reply-fields';
import { scripts } from './scripts.gen';
import { DEFAULT_SETTINGS } from './settings';
import { runScript, type ScriptStore } from './store';

export interface BucketDecision {
  ok: true;
  allowed: boolean;
  /** 0 when allowed; otherwise when a retry of the same cost can first succeed. */
  retryAfterMs: number;
  remainingCustomer: number;
  remainingShowtime: number;
  /**
   * 'live': the session is live (and the token's own, when one was named); 'unknown': Redis no
   * longer knows the room or the turn (lost data), so the turn keeps working until its token
   * expires; 'unchecked': admission was not required.
   */
  admission: 'live' | 'unknown' | 'unchecked';
}

/** The admission session an access token names, so a token from an earlier turn is refused. */
export interface TokenSession {
  /** The ticket of the turn (`sid` is `<showtime>.<ticket>`); '' accepts any live session. */
  ticket: string;
}

/** The ticket part of an access token's session id (`<showtime>.<ticket>`), or ''. */
export function ticketOfSession(sessionId: string): string {
  const match = /\.(\d{1,15})$/.exec(sessionId);
  return match ? match[1]! : '';
}

const ADMISSION = ['unchecked', 'live', 'unknown'] as const;

export function createPurchaseBuckets(options: { store: ScriptStore; keyPrefix?: string; scope?: BucketScope }) {
  const keys = createKeyBuilder(options.keyPrefix ?? '');
  const scope = options.scope ?? 'edge';
  return {
    /**
     * `requireAdmission`: refuse (`not_admitted`, nothing charged) unless the customer holds a
     * live admission session, for routes that start a purchase.
     */
    async takePurchaseTokens(
      showtimeId: string,
      customerId: string,
      cost = 1,
      rules: { requireAdmission?: boolean; session?: TokenSession } = {},
    ): Promise<BucketDecision | Refused> {
      if (!isValidShowtimeId(showtimeId) || !isValidCustomerId(customerId))
        return invalidInput('invalid showtime or customer id');
      if (!Number.isInteger(cost) || cost < 1) return invalidInput('cost must be a positive integer');
      const room = keys.forShowtime(showtimeId);
      const reply = await runScript(
        options.store,
        scripts.take,
        [room.cfg, room.customerBucket(customerId, scope), room.showtimeBucketFor(scope), room.active, room.who],
        [
          cost,
          DEFAULT_SETTINGS.customerBucketCapacity,
          DEFAULT_SETTINGS.customerRefillPerMinute,
          DEFAULT_SETTINGS.showtimeBucketCapacity,
          DEFAULT_SETTINGS.showtimeRefillPerSecond,
          customerId,
          rules.requireAdmission ? 1 : 0,
          rules.session?.ticket ?? '',
        ],
      );
      if (Number(reply[0]) < 0) return refusalFromCode(Number(reply[0]));
      const taken = readReply('take', reply);
      return {
        ok: true,
        allowed: Number(taken.allowed) === 1,
        retryAfterMs: Number(taken.retryAfterMs),
        remainingCustomer: Number(taken.customerTokensLeft),
        remainingShowtime: Number(taken.showtimeTokensLeft),
        admission: ADMISSION[Number(taken.admission ?? 0)] ?? 'unchecked',
      };
    },
  };
}
