import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createNodeFloodLimiter } from './node-flood-limiter';

// No Redis server here: a client that is never connected makes every shared call fail,
// which is exactly the case the per-process count exists for.
const offline = new Redis({
  lazyConnect: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  retryStrategy: () => null,
});
afterAll(() => offline.disconnect());

describe('Node flood limiter', () => {
  it('polls are counted in this process, synchronously, without touching Redis', () => {
    const limiter = createNodeFloodLimiter({ redis: offline, keyPrefix: 't:', points: 2, windowMs: 1_000 });
    const decisions = [1, 2, 3].map(() => limiter.consumeNow!('poll:10.0.0.1'));
    expect(decisions.map((d) => d?.allowed)).toEqual([true, true, false]);
    expect(decisions[2]!.retryAfterMs).toBeGreaterThan(0);
    expect(offline.status).toBe('wait');
    limiter.close();
  });

  it('joins are decided at once too (their count meets the other processes in batches)', () => {
    const limiter = createNodeFloodLimiter({ redis: offline, keyPrefix: 't:', points: 2, windowMs: 1_000 });
    expect(limiter.consumeNow!('join:10.0.0.1')?.allowed).toBe(true);
    limiter.close();
  });

  it('with Redis unreachable, the count in this process still refuses a flooding address', async () => {
    const limiter = createNodeFloodLimiter({ redis: offline, keyPrefix: 't:', points: 3, windowMs: 10_000 });
    const decisions = [];
    for (let i = 0; i < 5; i++) {
      decisions.push(await limiter.consume('join:10.0.0.2'));
      await limiter.flush(); // fails quietly
    }
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    expect(decisions[3]!.retryAfterMs).toBeGreaterThan(0);
    expect((await limiter.consume('join:10.0.0.3')).allowed).toBe(true);
    limiter.close();
  });
});
