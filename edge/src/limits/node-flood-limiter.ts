/**
 * Node's flood limiter: rate-limiter-flexible on Redis, so all edge processes share one
 * count per client address. Keys already over the limit are blocked in memory (no Redis
 * call while they hammer), and an in-memory insurance limiter answers when Redis is down.
 */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { FloodLimiter } from './flood-limiter';

export interface NodeFloodLimiterOptions {
  redis: Redis;
  keyPrefix: string;
  points: number;
  windowMs: number;
}

export function createNodeFloodLimiter(options: NodeFloodLimiterOptions): FloodLimiter {
  // rate-limiter-flexible counts in seconds; our windows are whole seconds or longer.
  const durationSeconds = Math.max(1, Math.round(options.windowMs / 1000));
  const limiter = new RateLimiterRedis({
    storeClient: options.redis,
    useRedisPackage: false,
    keyPrefix: `${options.keyPrefix}wr:edge:flood`,
    points: options.points,
    duration: durationSeconds,
    inMemoryBlockOnConsumed: options.points + 1,
    inMemoryBlockDuration: durationSeconds,
    insuranceLimiter: new RateLimiterMemory({ points: options.points, duration: durationSeconds }),
  });
  return {
    async consume(key) {
      try {
        await limiter.consume(key);
        return { allowed: true, retryAfterMs: 0 };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return { allowed: false, retryAfterMs: Math.max(1, rejection.msBeforeNext) };
        // Neither Redis nor the insurance limiter answered: let the request through rather
        // than refuse everyone; the room itself still caps admissions.
        return { allowed: true, retryAfterMs: 0 };
      }
    },
  };
}
