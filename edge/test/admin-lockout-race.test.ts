/**
 * The admin lockout under concurrent guesses, on the run's real Redis (a key namespace of this
 * file's own): many wrong tokens from one address released together, round after round, and
 * never more than ADMIN_LOCKOUT_ATTEMPTS of them are judged; the rest are 429 LOCKED_OUT. The
 * broken variant, the old read-then-count lockout, is shown to judge more.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../lib/errors';
import { testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { createLoginLockout, type LoginLockout } from '../src/limits/login-lockout';
import { createMemoryGuardStore, createRedisGuardStore, type GuardStore } from '../src/state/guard-store';
import { createEdgeHarness, type EdgeHarness } from './edge-harness';

const ATTEMPTS = 10;
const GUESSES = 30;
const ROUNDS = 5;

let redis: Redis;
let store: GuardStore;
beforeAll(() => {
  redis = new Redis(testRedisUrl());
  store = createRedisGuardStore((args) => redis.call(args[0]!, ...args.slice(1)), testRedisNamespace('lockout-race'));
});
afterAll(() => redis?.disconnect());

/** The old lockout: reads the count, judges the token, counts afterwards (check, then count). */
function createCheckThenCountLockout(options: { store: GuardStore; attempts: number }): LoginLockout {
  const real = createLoginLockout(options);
  return {
    ...real,
    isLocked: async (address) => (await options.store.count(`admin-fail:${address}`)) > options.attempts,
    recordFailure: async (address) => {
      await options.store.hit(`admin-fail:${address}`, real.windowMs);
    },
  };
}

/** One wrong guess as admin-auth and the console treat it: locked, or judged "wrong". */
async function guess(lockout: LoginLockout, address: string): Promise<'judged' | 'locked'> {
  if (await lockout.isLocked(address)) return 'locked';
  await crypto.subtle.digest('SHA-256', new TextEncoder().encode(address)); // the token compare's await
  try {
    await lockout.recordFailure(address);
    return 'judged';
  } catch (error) {
    if (isAppError(error) && error.code === 'LOCKED_OUT') return 'locked';
    throw error;
  }
}

/** Judged guesses per round, GUESSES at once from one fresh address each round. */
async function judgedPerRound(lockout: LoginLockout, label: string): Promise<number[]> {
  const judged: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const address = `198.51.100.${round}-${label}`;
    const verdicts = await Promise.all(Array.from({ length: GUESSES }, () => guess(lockout, address)));
    judged.push(verdicts.filter((v) => v === 'judged').length);
  }
  return judged;
}

describe('admin lockout: count and decision in one step', () => {
  it('on Redis: exactly ten of thirty concurrent guesses are judged, every round', async () => {
    expect(await judgedPerRound(createLoginLockout({ store, attempts: ATTEMPTS }), 'redis')).toEqual(
      Array(ROUNDS).fill(ATTEMPTS),
    );
  });

  it('in memory (the embedded stack and the insurance limiter): the same', async () => {
    expect(
      await judgedPerRound(createLoginLockout({ store: createMemoryGuardStore(), attempts: ATTEMPTS }), 'memory'),
    ).toEqual(Array(ROUNDS).fill(ATTEMPTS));
  });

  it('broken variant: the read-then-count lockout judges more than ten', async () => {
    const judged = await judgedPerRound(createCheckThenCountLockout({ store, attempts: ATTEMPTS }), 'naive');
    expect(Math.max(...judged)).toBeGreaterThan(ATTEMPTS);
  });
});

describe('admin lockout through the edge (real Redis)', () => {
  let edge: EdgeHarness;
  beforeAll(async () => {
    edge = await createEdgeHarness();
  });
  afterAll(() => edge?.close());

  it('thirty wrong Bearer tokens at once: ten 401s, the rest 429 LOCKED_OUT, every round', async () => {
    for (let round = 0; round < 3; round++) {
      const client = { 'x-test-client': `203.0.113.${100 + round}` };
      const answers = await Promise.all(
        Array.from({ length: GUESSES }, (_, i) =>
          edge.call('GET', '/api/admin/showtimes/1/room', { token: `wrong-${round}-${i}-0123456789`, headers: client }),
        ),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 401)).toHaveLength(edge.config.adminLockoutAttempts);
      expect(statuses.filter((s) => s === 429)).toHaveLength(GUESSES - edge.config.adminLockoutAttempts);
      expect(answers.find((a) => a.status === 429)!.json.error.code).toBe('LOCKED_OUT');
    }
  });

  it('thirty wrong console sign-ins at once: ten answered "wrong token", the rest 429', async () => {
    const answers = await Promise.all(
      Array.from({ length: GUESSES }, (_, i) =>
        edge.call('POST', '/admin/login', {
          rawBody: new URLSearchParams({ token: `wrong-console-${i}-0123456789` }).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-test-client': '203.0.113.150' },
        }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(edge.config.adminLockoutAttempts);
    expect(statuses.filter((s) => s === 429)).toHaveLength(GUESSES - edge.config.adminLockoutAttempts);
  });
});
