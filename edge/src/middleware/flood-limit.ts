import type { Context, MiddlewareHandler } from 'hono';
import { AppError } from '../../../lib/errors';
import type { FloodLimiter } from '../limits/flood-limiter';
import type { EdgeMetrics } from '../metrics';

export interface FloodLimitOptions {
  limiter: FloodLimiter;
  /** The client address; requests without one share a single bucket. */
  clientAddress: (c: Context) => string | null;
  metrics: EdgeMetrics;
  name: string;
}

/** 429 with Retry-After for a client address over its budget on join and poll. */
export function floodLimit(options: FloodLimitOptions): MiddlewareHandler {
  return async function floodLimitMiddleware(c, next) {
    const address = options.clientAddress(c) ?? 'unknown';
    const decision = await options.limiter.consume(`${options.name}:${address}`);
    if (!decision.allowed) {
      options.metrics.limiterRejections.inc({ limiter: `flood_${options.name}` });
      const retryAfterSeconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      throw new AppError('RATE_LIMITED', 'Too many requests from this address; slow down', { retryAfterSeconds });
    }
    await next();
  };
}
