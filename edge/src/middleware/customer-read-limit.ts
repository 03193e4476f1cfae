import type { MiddlewareHandler } from 'hono';
import { AppError } from '../../../lib/errors';
import type { FloodLimiter } from '../limits/flood-limiter';
import type { EdgeEnv } from '../http-context';
import type { EdgeMetrics } from '../metrics';

export interface CustomerReadLimitOptions {
  limiter: FloodLimiter;
  metrics: EdgeMetrics;
}

/**
 * Hold and booking reads and cancels reach the core but pass no token bucket: this bounds them
 * per customer (after the gate has said who the customer is), so one token polling in a loop
 * costs the core a budget, not a share of everyone's calls. 429 with Retry-After beyond it.
 */
export function customerReadLimit(options: CustomerReadLimitOptions): MiddlewareHandler<EdgeEnv> {
  return async function customerReadLimitMiddleware(c, next) {
    const customerId = c.get('customerId');
    const decision = await options.limiter.consume(`reads:${customerId ?? c.get('accessToken') ?? 'unknown'}`);
    if (!decision.allowed) {
      options.metrics.limiterRejections.inc({ limiter: 'customer_reads' });
      const retryAfterSeconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      throw new AppError('RATE_LIMITED', 'Too many requests for your holds and bookings; slow down', {
        retryAfterSeconds,
      });
    }
    await next();
  };
}
