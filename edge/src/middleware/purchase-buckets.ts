import type { MiddlewareHandler } from 'hono';
import { AppError } from '../../../lib/errors';
import type { EdgeEnv } from '../http-context';
import type { createPurchaseLimiter } from '../limits/purchase-limiter';
import type { EdgeMetrics } from '../metrics';
import { ticketOfSession } from '../../../queue/src/index';

/**
 * Holds and checkout pass through the dual token bucket (per customer, per showtime) after
 * the access gate; 429 with Retry-After otherwise. The showtime comes from the verified
 * token, so routes without one in the path (checkout) are limited the same way.
 */
export function purchaseBuckets(options: {
  limiter: ReturnType<typeof createPurchaseLimiter>;
  metrics: EdgeMetrics;
  /**
   * Also require a live admission session (new holds): an access token outlives the slot it
   * came with once the slot is released (booking done, buyer left, turn over), and
   * must not let its holder start another purchase while others wait for that slot.
   */
  requireAdmission?: boolean;
}): MiddlewareHandler<EdgeEnv> {
  return async function purchaseBucketsMiddleware(c, next) {
    const access = c.get('access');
    const decision = await options.limiter.take(String(access.showtimeId), access.customerId, {
      requireAdmission: options.requireAdmission ?? false,
      session: { ticket: ticketOfSession(access.sessionId) },
    });
    if (decision.notAdmitted) {
      options.metrics.limiterRejections.inc({ limiter: 'admission_ended' });
      throw new AppError('TURN_ENDED', 'Your turn to buy has ended; join the queue again');
    }
    if (!decision.allowed) {
      options.metrics.limiterRejections.inc({
        limiter: decision.source === 'redis' ? 'purchase_bucket' : 'purchase_fallback',
      });
      const retryAfterSeconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      throw new AppError('RATE_LIMITED', 'Too many purchase requests; try again shortly', { retryAfterSeconds });
    }
    await next();
  };
}
