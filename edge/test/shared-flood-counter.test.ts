/**
 * The join flood limit across edge processes (limits/shared-flood-counter.ts) on the run's
 * Redis: counters standing for three processes share one budget per address once their
 * counts have met, where per-process counting alone would let each spend the whole budget.
 */
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { createSharedFloodCounter } from '../src/limits/shared-flood-counter';

const redis = new Redis(testRedisUrl());
afterAll(() => redis.disconnect());

const processes = (keyPrefix: string, points: number) =>
  [1, 2, 3].map(() => createSharedFloodCounter({ redis, keyPrefix, points, windowMs: 60_000, flushMs: 3_600_000 }));

const spend = (counter: ReturnType<typeof createSharedFloodCounter>, key: string, times: number) =>
  Array.from({ length: times }, () => counter.consumeNow!(key)!.allowed).filter(Boolean).length;

it('three processes share one budget per address once their counts meet, where each alone would spend all of it', async () => {
  const [a, b, c] = processes(testRedisNamespace('flood'), 10);
  let passed = 0;
  passed += spend(a!, 'join:x', 4);
  await a!.flush(); // a knows 4
  passed += spend(b!, 'join:x', 4);
  await b!.flush(); // b knows 8
  passed += spend(a!, 'join:x', 1);
  await a!.flush(); // a learns 9 with its next batch
  expect(spend(a!, 'join:x', 5)).toBe(1);
  passed += 1;
  await a!.flush(); // 10: a refuses from memory now
  // b last heard 8: it may let 2 more through before its batch tells it the total (the bound).
  passed += spend(b!, 'join:x', 5);
  await b!.flush();
  passed += spend(c!, 'join:x', 5); // a new process knows nothing yet...
  await c!.flush(); // ...until its first batch
  for (const counter of [a, b, c]) expect(spend(counter!, 'join:x', 3)).toBe(0);
  expect(passed).toBeLessThanOrEqual(10 + 2 + 5);
  expect(passed).toBeLessThan(30); // three processes counting alone: 10 each
  // Another address has its own budget.
  expect(spend(b!, 'join:y', 3)).toBe(3);
  for (const counter of [a, b, c]) counter!.close();
});

it('with Redis away the counts stay in the process and still refuse there', async () => {
  const offline = new Redis({
    port: 1,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  const counter = createSharedFloodCounter({
    redis: offline,
    keyPrefix: 'x:',
    points: 3,
    windowMs: 60_000,
    flushMs: 3_600_000,
  });
  expect(spend(counter, 'join:z', 2)).toBe(2);
  await counter.flush();
  expect(spend(counter, 'join:z', 3)).toBe(1);
  counter.close();
  offline.disconnect();
});
