/**
 * Whatever numbers a room holds — the closed loop's fractional, zero or huge effective rate,
 * a cap on turns, any valid operator setting — joins, polls, ticks and the room's description
 * never fail inside the store. Redis refuses a fraction where it wants an integer (ZRANGE
 * indices, LIMIT counts, PEXPIRE): a script that hands it one answers with an error, and
 * buyers near the head got 503s exactly while the loop was slowing admission. The in-process
 * twin refuses the same arguments (memory/mini-redis.ts), so it cannot hide such a bug.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { createRoomEngine } from '../src/room-engine';
import { allFactories, type StoreHandle } from './stores';
import { fastRoom, nextShowtimeId, ok } from './helpers';

const selected = process.env.QUEUE_STORES?.split(',');
const factories = allFactories.filter((f) => !selected || selected.includes(f.name.split(' ')[0]!));

/** Rates as the loop writes them (two decimals), and the edges: zero, below one, huge. */
const effectiveRate = fc.oneof(
  fc.constantFrom(0, 0.5, 0.01, 1.5, 119.37, 10_000_000, 9_999_999.99),
  fc.integer({ min: 0, max: 100_000 }).map((cents) => cents / 100),
  fc.double({ min: 0, max: 1e7, noNaN: true, noDefaultInfinity: true }),
);

const roomShape = fc.record({
  capacity: fc.integer({ min: 1, max: 30 }),
  admitPerMinute: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.constant(10_000_000)),
  admitBurst: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.constant(10_000_000)),
  tickGapMs: fc.constantFrom(0, 1, 100),
  before: fc.integer({ min: 0, max: 25 }),
  after: fc.integer({ min: 1, max: 15 }),
  ctlRate: effectiveRate,
  ctlCap: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 40 }), fc.double({ min: 0, max: 40, noNaN: true })),
});

describe.each(factories)('numeric settings never break the scripts on $name', (factory) => {
  let handle: StoreHandle;
  beforeAll(async () => {
    handle = await factory.open(testRedisUrl());
  });
  afterAll(async () => {
    await handle?.close();
  });

  it('joins, polls, ticks, snapshots and stats succeed for fractional, zero and huge rates', async () => {
    const room = createRoomEngine({ store: handle.store, keyPrefix: testRedisNamespace('numeric') });
    await fc.assert(
      fc.asyncProperty(roomShape, async (shape) => {
        const show = nextShowtimeId();
        const { before, after, ctlRate, ctlCap, ...settings } = shape;
        ok(await room.configure(show, { ...fastRoom, ...settings, state: 'open' }));
        // Admissions at the operator's rate fill the one-minute window's log first, so that the
        // loop's rate then finds a window holding more than it allows (the describe path that
        // reads the log by index).
        for (let i = 0; i < before; i++) ok(await room.join(show, `early-${i}`));
        ok(await room.tick(show));
        ok(await room.govern(show, { ctlRate, ctlCap, ctlUntilMs: Date.now() + 60_000, ctlReason: 'test' }));
        for (let i = 0; i < after; i++) {
          const standing = ok(await room.join(show, `late-${i}`));
          expect(standing.etaMs === null || Number.isFinite(standing.etaMs)).toBe(true);
        }
        for (let i = 0; i < before; i++) ok(await room.poll(show, `early-${i}`));
        for (let i = 0; i < after; i++) ok(await room.poll(show, `late-${i}`));
        ok(await room.enter(show, 'entering'));
        ok(await room.tick(show));
        ok(await room.snapshot(show));
        ok(await room.stats(show));
      }),
      { numRuns: factory.name.startsWith('cluster') ? 8 : 25, endOnFailure: true },
    );
  });
});
