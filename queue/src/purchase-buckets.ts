/**
 * Token buckets for purchase routes: per customer and per showtime, taken from both or from
 * neither in one script call. Defaults come from DEFAULT_SETTINGS; a room's settings
 * override them per showtime.
 */
import { invalidInput, refusalFromCode, type Refused } from './codes';
import { createKeyBuilder, isValidCustomerId, isValidShowtimeId } from './keys';
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
}

export function createPurchaseBuckets(options: { store: ScriptStore; keyPrefix?: string }) {
  const keys = createKeyBuilder(options.keyPrefix ?? '');
  return {
    /**
     * `requireAdmission`: refuse (`not_admitted`, nothing charged) unless the customer holds a
     * live admission session, for routes that start a purchase.
     */
    async takePurchaseTokens(
      showtimeId: string,
      customerId: string,
      cost = 1,
      rules: { requireAdmission?: boolean } = {},
    ): Promise<BucketDecision | Refused> {
      if (!isValidShowtimeId(showtimeId) || !isValidCustomerId(customerId)) return invalidInput('invalid showtime or customer id');
      if (!Number.isInteger(cost) || cost < 1) return invalidInput('cost must be a positive integer');
      const room = keys.forShowtime(showtimeId);
      const reply = await runScript(
        options.store,
        scripts.take,
        [room.cfg, room.customerBucket(customerId), room.showtimeBucket, room.active],
        [
          cost,
          DEFAULT_SETTINGS.customerBucketCapacity,
          DEFAULT_SETTINGS.customerRefillPerMinute,
          DEFAULT_SETTINGS.showtimeBucketCapacity,
          DEFAULT_SETTINGS.showtimeRefillPerSecond,
          customerId,
          rules.requireAdmission ? 1 : 0,
        ],
      );
      if (Number(reply[0]) < 0) return refusalFromCode(Number(reply[0]));
      return {
        ok: true,
        allowed: Number(reply[0]) === 1,
        retryAfterMs: Number(reply[1]),
        remainingCustomer: Number(reply[2]),
        remainingShowtime: Number(reply[3]),
      };
    },
  };
}
