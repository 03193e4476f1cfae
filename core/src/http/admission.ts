/**
 * The core enforces admission itself, so a caller who reaches it directly gains nothing: a
 * purchase (hold, checkout) needs the token's own turn to be live in the waiting room, and
 * passes the core's own per-customer and per-showtime token buckets, in one room-store call.
 * If the store cannot answer, the failure policy of the edge applies: turns not known to have
 * ended keep working until their token expires, and the metric says it happened.
 */
import type { AccessClaims } from '../../../lib/access-token';
import { AppError } from '../../../lib/errors';
import { createPurchaseBuckets, ticketOfSession, type ScriptStore } from '../../../queue/src/index';

export type AdmissionCheck = (access: AccessClaims) => Promise<void>;

export interface AdmissionMetrics {
  /** Purchases let through without a decision: `store_down` or `turn_unknown`. */
  admissionUnchecked: { inc(labels: { reason: string }): void };
  admissionRefused: { inc(labels: { reason: string }): void };
}

export function createAdmissionCheck(options: {
  store: ScriptStore;
  keyPrefix?: string;
  metrics: AdmissionMetrics;
}): AdmissionCheck {
  const buckets = createPurchaseBuckets({ store: options.store, keyPrefix: options.keyPrefix ?? '', scope: 'core' });
  const { metrics } = options;

  return async function checkAdmission(access) {
    let decision;
    try {
      decision = await buckets.takePurchaseTokens(String(access.showtimeId), access.customerId, 1, {
        requireAdmission: true,
        session: { ticket: ticketOfSession(access.sessionId) },
      });
    } catch {
      metrics.admissionUnchecked.inc({ reason: 'store_down' });
      return;
    }
    if (!decision.ok) {
      metrics.admissionRefused.inc({ reason: 'turn_ended' });
      throw new AppError('TURN_ENDED', 'Your turn to buy has ended; join the queue again');
    }
    if (!decision.allowed) {
      metrics.admissionRefused.inc({ reason: 'rate_limited' });
      throw new AppError('RATE_LIMITED', 'Too many purchase requests; try again shortly', {
        retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)),
      });
    }
    if (decision.admission === 'unknown') metrics.admissionUnchecked.inc({ reason: 'turn_unknown' });
  };
}
