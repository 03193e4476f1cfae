import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDeferredLeaves, VIEW_ID } from './deferred-leave';

const GRACE_MS = 2_000;

function setup(leave: (showtimeId: string, customerId: string) => Promise<unknown> = async () => undefined) {
  const left: string[] = [];
  const errors: unknown[] = [];
  const leaves = createDeferredLeaves({
    graceMs: GRACE_MS,
    leave: async (showtimeId, customerId) => {
      left.push(`${showtimeId}/${customerId}`);
      return leave(showtimeId, customerId);
    },
    onError: (error) => errors.push(error),
  });
  return { leaves, left, errors };
}

describe('deferred leave', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('a closed tab leaves after the grace period', async () => {
    const { leaves, left } = setup();
    const view = leaves.viewed('42', 'alice');
    expect(view).toMatch(VIEW_ID);
    const done = leaves.schedule('42', 'alice', view);
    await vi.advanceTimersByTimeAsync(GRACE_MS - 1);
    expect(left).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(await done).toBe(true);
    expect(left).toEqual(['42/alice']);
  });

  it('a reload within the grace period keeps the place, even when its beacon arrives late', async () => {
    const { leaves, left } = setup();
    const first = leaves.viewed('42', 'alice');
    const beacon = leaves.schedule('42', 'alice', first);
    leaves.viewed('42', 'alice'); // the reloaded page
    await vi.advanceTimersByTimeAsync(GRACE_MS);
    expect(await beacon).toBe(false);
    // The old page's beacon reaching the edge after the reload is ignored at once.
    expect(await leaves.schedule('42', 'alice', first)).toBe(false);
    expect(left).toEqual([]);
  });

  it('a page rendered before sign-in (no view on record) can still leave', async () => {
    const { leaves, left } = setup();
    const view = leaves.viewed('42', null);
    const done = leaves.schedule('42', 'bob', view);
    await vi.advanceTimersByTimeAsync(GRACE_MS);
    expect(await done).toBe(true);
    expect(left).toEqual(['42/bob']);
  });

  it('buyers and showtimes are independent', async () => {
    const { leaves, left } = setup();
    const alice = leaves.viewed('42', 'alice');
    const bob = leaves.viewed('42', 'bob');
    leaves.viewed('43', 'alice');
    const done = [leaves.schedule('42', 'alice', alice), leaves.schedule('42', 'bob', bob)];
    await vi.advanceTimersByTimeAsync(GRACE_MS);
    expect(await Promise.all(done)).toEqual([true, true]);
    expect(left.sort()).toEqual(['42/alice', '42/bob']);
  });

  it('a failing leave is reported, not thrown', async () => {
    const { leaves, errors } = setup(async () => {
      throw new Error('redis down');
    });
    const done = leaves.schedule('42', 'alice', leaves.viewed('42', 'alice'));
    await vi.advanceTimersByTimeAsync(GRACE_MS);
    expect(await done).toBe(false);
    expect(errors).toHaveLength(1);
  });

  it('when full, forgets the least recently seen buyer, never one who just reloaded', async () => {
    const run = async (eviction: 'oldest' | 'all') => {
      const left: string[] = [];
      const leaves = createDeferredLeaves({
        graceMs: GRACE_MS,
        maxEntries: 3,
        eviction,
        leave: async (showtimeId, customerId) => left.push(`${showtimeId}/${customerId}`),
      });
      leaves.viewed('42', 'bob');
      leaves.viewed('42', 'carol');
      const first = leaves.viewed('42', 'alice');
      leaves.viewed('42', 'alice'); // alice reloads: her latest view is the new one
      leaves.viewed('42', 'dave'); // the map is full: someone is forgotten
      // The first page's beacon reaches the edge late: it must not take alice's place.
      const beacon = leaves.schedule('42', 'alice', first);
      await vi.advanceTimersByTimeAsync(GRACE_MS);
      return { leftEarly: await beacon, left };
    };
    expect(await run('oldest')).toEqual({ leftEarly: false, left: [] });
    // Broken variant: wiping the whole map forgot alice's reload, and her old page left for her.
    expect(await run('all')).toEqual({ leftEarly: true, left: ['42/alice'] });
  });
});
