/**
 * Node's flood limiters:
 * - join (and leave): counted in this process and shared with every edge process through
 *   Redis in batches (shared-flood-counter.ts), so a join costs no Redis call of its own and
 *   an address over its budget is refused from memory; with Redis away the count stays per
 *   process.
 * - poll: the fixed-window counter of flood-limiter.ts, per process. Polls are the
 *   50,000-a-second route and must not cost a Redis command each (the target is at most 0.2
 *   per poll); an address that floods polls is refused by whichever process it reaches, which
 *   is what matters for a cheap route. Not RateLimiterMemory: measured on the poll benchmark,
 *   its promise and result objects per call cost a third of a snapshot-answered poll
 *   (0.63 → 0.40 of bare node:http); the plain counter is a Map lookup.
 */
import type { Redis } from 'ioredis';
import { createMemoryFloodLimiter, type FloodLimiter } from './flood-limiter';
import { createSharedFloodCounter } from './shared-flood-counter';

export interface NodeFloodLimiterOptions {
  redis: Pick<Redis, 'evalsha' | 'eval'>;
  keyPrefix: string;
  points: number;
  windowMs: number;
  /** How often the shared counts meet in Redis (shared-flood-counter.ts). */
  flushMs?: number;
  now?: () => number;
}

export function createNodeFloodLimiter(
  options: NodeFloodLimiterOptions,
): FloodLimiter & { flush(): Promise<void>; close(): void } {
  const shared = createSharedFloodCounter(options);
  const local = createMemoryFloodLimiter({
    points: options.points,
    windowMs: options.windowMs,
    blockMs: options.windowMs,
    now: options.now,
  });
  return {
    consume: (key) => (key.startsWith('poll:') ? local.consume(key) : shared.consume(key)),
    consumeNow: (key) => (key.startsWith('poll:') ? local.consumeNow!(key) : shared.consumeNow!(key)),
    flush: shared.flush,
    close: shared.close,
  };
}
