import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type BucketDecision, type Refused } from '../../../queue/src/index';
import { createPurchaseLimiter } from './purchase-limiter';

const decision = (allowed: boolean, retryAfterMs = 0): BucketDecision => ({
  ok: true,
  allowed,
  retryAfterMs,
  remainingCustomer: 0,
  remainingShowtime: 0,
  admission: 'unchecked',
});

describe('purchase limiter', () => {
  it("passes the script's decision through, with the rules the route asked for", async () => {
    const calls: unknown[] = [];
    const limiter = createPurchaseLimiter({
      take: async (showtimeId, customerId, rules) => {
        calls.push([showtimeId, customerId, rules]);
        return decision(false, 1_500);
      },
    });
    expect(await limiter.take('42', 'alice', { requireAdmission: true })).toEqual({
      allowed: false,
      retryAfterMs: 1_500,
      source: 'redis',
    });
    expect(calls).toEqual([['42', 'alice', { requireAdmission: true }]]);
  });

  it('any other refusal from the script is a refusal too, never a free pass', async () => {
    for (const code of ['cost_exceeds_capacity', 'invalid_input'] as const) {
      const limiter = createPurchaseLimiter({
        take: async (): Promise<Refused> => ({ ok: false, code, message: code }),
      });
      expect(await limiter.take('42', 'alice'), code).toMatchObject({ allowed: false, source: 'redis' });
    }
  });

  it('a refused admission says so, without a retry time', async () => {
    const notAdmitted: Refused = { ok: false, code: 'not_admitted', message: 'no live admission' };
    const limiter = createPurchaseLimiter({ take: async () => notAdmitted });
    expect(await limiter.take('42', 'alice')).toEqual({
      allowed: false,
      notAdmitted: true,
      retryAfterMs: 0,
      source: 'redis',
    });
  });

  it('when Redis fails, a local bucket pair with the default sizes decides, and the failure is reported', async () => {
    let nowMs = 0;
    const failures: unknown[] = [];
    const limiter = createPurchaseLimiter({
      take: async () => {
        throw new Error('ECONNREFUSED');
      },
      now: () => nowMs,
      onFallback: (error) => failures.push(error),
    });
    const capacity = DEFAULT_SETTINGS.customerBucketCapacity;
    const decisions = [];
    for (let i = 0; i <= capacity; i++) decisions.push(await limiter.take('42', 'alice'));
    expect(decisions.slice(0, capacity).every((d) => d.allowed && d.source === 'fallback')).toBe(true);
    const refused = decisions[capacity]!;
    expect(refused.allowed).toBe(false);
    // One token comes back after 60 s / refill-per-minute.
    const refillMs = 60_000 / DEFAULT_SETTINGS.customerRefillPerMinute;
    expect(refused.retryAfterMs).toBe(refillMs);
    expect(failures).toHaveLength(capacity + 1);
    // Another buyer of the same showtime still has a full bucket of their own.
    expect((await limiter.take('42', 'bob')).allowed).toBe(true);
    nowMs += refillMs;
    expect((await limiter.take('42', 'alice')).allowed).toBe(true);
  });

  it('the local showtime bucket caps the whole showtime during an outage', async () => {
    const limiter = createPurchaseLimiter({
      take: async () => {
        throw new Error('down');
      },
      now: () => 0,
    });
    let allowed = 0;
    for (let i = 0; i < DEFAULT_SETTINGS.showtimeBucketCapacity + 50; i++) {
      if ((await limiter.take('42', `buyer-${i}`)).allowed) allowed++;
    }
    expect(allowed).toBe(DEFAULT_SETTINGS.showtimeBucketCapacity);
  });
});
