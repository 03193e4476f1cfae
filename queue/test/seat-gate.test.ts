/**
 * The seat gate's scripts on Redis, on a three-node Redis Cluster (one showtime, one slot) and on
 * the in-process twin: the same cases on each, and a
 * property (fast-check) that a claim is all or nothing over the seats and the customer's limit,
 * checked against a plain model of the gate.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { createSeatGateScripts, type GateSeatState, type SeatGateScripts } from '../src/seat-gate';
import { nextShowtimeId, sleep } from './helpers';
import { clusterFactory, ioredisFactory, memoryFactory, type StoreHandle } from './stores';

const SEATS = ['A1', 'A2', 'A3', 'A4', 'A5', 'A6'];
const allFree = (seats = SEATS): GateSeatState[] => seats.map((seat) => ({ seat, state: 'A' as const }));
const build = (
  gate: SeatGateScripts,
  show: string,
  seats: GateSeatState[] = allFree(),
  extra: Partial<{ maxPerCustomer: number; holdTtlMs: number }> = {},
) =>
  gate.sync(show, {
    maxPerCustomer: extra.maxPerCustomer ?? 4,
    holdTtlMs: extra.holdTtlMs ?? 60_000,
    pendingGraceMs: 5_000,
    keyTtlMs: 3_600_000,
    seats,
  });

describe.each([ioredisFactory, memoryFactory, clusterFactory])('seat gate scripts on $name', (factory) => {
  let handle: StoreHandle;
  let gate: SeatGateScripts;
  beforeAll(async () => {
    handle = await factory.open(testRedisUrl());
    gate = createSeatGateScripts({ store: handle.store, keyPrefix: testRedisNamespace('gate') });
  });
  afterAll(async () => handle?.close());

  it('answers not built until it is built from the database', async () => {
    const show = nextShowtimeId();
    expect(await gate.claim(show, 'c1', 'h1', ['A1'])).toEqual({ kind: 'not_built' });
    expect((await gate.apply(show, [{ op: 'free', seat: 'A1' }])).built).toBe(false);
    expect(await build(gate, show)).toEqual({ changed: 6, wasBuilt: false });
    expect(await gate.claim(show, 'c1', 'h1', ['A1'])).toMatchObject({ kind: 'claimed', owned: 1, maxPerCustomer: 4 });
  });

  it('claims every seat or none: one taken seat refuses the batch and costs the others nothing', async () => {
    const show = nextShowtimeId();
    await build(gate, show);
    expect(await gate.claim(show, 'a', 'ha', ['A2'])).toMatchObject({ kind: 'claimed' });
    expect(await gate.claim(show, 'b', 'hb', ['A1', 'A2', 'A3'])).toEqual({ kind: 'taken', seats: ['A2'] });
    expect(await gate.claim(show, 'c', 'hc', ['A1', 'A3'])).toMatchObject({ kind: 'claimed', owned: 2 });
    expect(await gate.claim(show, 'd', 'hd', ['A9'])).toEqual({ kind: 'unknown_seats', seats: ['A9'] });
  });

  it('counts the customer across claims and refuses past the limit, all or nothing', async () => {
    const show = nextShowtimeId();
    await build(gate, show, allFree(), { maxPerCustomer: 3 });
    expect(await gate.claim(show, 'greedy', 'h1', ['A1', 'A2'])).toMatchObject({ kind: 'claimed', owned: 2 });
    expect(await gate.claim(show, 'greedy', 'h2', ['A3', 'A4'])).toEqual({
      kind: 'over_limit',
      owned: 2,
      maxPerCustomer: 3,
    });
    expect(await gate.claim(show, 'other', 'h3', ['A3', 'A4'])).toMatchObject({ kind: 'claimed' });
    // Released claims give the count back.
    expect(await gate.release(show, 'h1', ['A1', 'A2'])).toBe(2);
    expect(await gate.claim(show, 'greedy', 'h4', ['A1', 'A2', 'A5'])).toMatchObject({ kind: 'claimed', owned: 3 });
  });

  it('release frees only the seats still under that hold id', async () => {
    const show = nextShowtimeId();
    await build(gate, show);
    await gate.claim(show, 'a', 'ha', ['A1']);
    expect(await gate.release(show, 'other-hold', ['A1'])).toBe(0);
    expect(await gate.claim(show, 'b', 'hb', ['A1'])).toMatchObject({ kind: 'taken' });
    expect(await gate.release(show, 'ha', ['A1'])).toBe(1);
    expect(await gate.claim(show, 'b', 'hb', ['A1'])).toMatchObject({ kind: 'claimed' });
  });

  it('a held entry lapses with its hold, and its count with it', async () => {
    const show = nextShowtimeId();
    await build(gate, show, allFree(), { holdTtlMs: 1_000, maxPerCustomer: 1 });
    expect(await gate.claim(show, 'a', 'h1', ['A1'])).toMatchObject({ kind: 'claimed' });
    expect(await gate.claim(show, 'b', 'h2', ['A1'])).toMatchObject({ kind: 'taken' });
    await sleep(1_100);
    expect(await gate.claim(show, 'a', 'h3', ['A2'])).toMatchObject({ kind: 'claimed', owned: 1 });
    expect(await gate.claim(show, 'b', 'h4', ['A1'])).toMatchObject({ kind: 'claimed' });
  });

  it('applies what the database did: sold stays sold until its booking releases it; events apply once', async () => {
    const show = nextShowtimeId();
    await build(gate, show);
    const later = Date.now() + 60_000;
    expect(
      await gate.apply(show, [{ op: 'held', seat: 'A1', expiresAtMs: later, holdId: 'h1', customerId: 'a' }], {
        eventId: 'e1',
      }),
    ).toEqual({ built: true, changed: 1, duplicate: false });
    expect(await gate.claim(show, 'b', 'x', ['A1'])).toMatchObject({ kind: 'taken' });
    await gate.apply(show, [{ op: 'sold', seat: 'A1', bookingId: 'b1', customerId: 'a' }], { eventId: 'e2' });
    // A late "hold ended" or a stale "held" cannot undo the sale.
    await gate.apply(show, [{ op: 'freehold', seat: 'A1', holdId: 'h1' }], { eventId: 'e3' });
    await gate.apply(show, [{ op: 'held', seat: 'A1', expiresAtMs: later, holdId: 'h0', customerId: 'z' }], {
      eventId: 'e4',
    });
    await gate.apply(show, [{ op: 'freebooking', seat: 'A1', bookingId: 'other' }], { eventId: 'e5' });
    expect(await gate.claim(show, 'b', 'x', ['A1'])).toMatchObject({ kind: 'taken' });
    expect(
      await gate.apply(show, [{ op: 'freebooking', seat: 'A1', bookingId: 'b1' }], { eventId: 'e6' }),
    ).toMatchObject({ changed: 1 });
    expect(
      await gate.apply(show, [{ op: 'sold', seat: 'A1', bookingId: 'b1', customerId: 'a' }], { eventId: 'e2' }),
    ).toEqual({ built: true, changed: 0, duplicate: true });
    expect(await gate.claim(show, 'b', 'x', ['A1'])).toMatchObject({ kind: 'claimed' });
  });

  it('sync takes the database word, keeps young claims in flight, and recounts', async () => {
    const show = nextShowtimeId();
    await build(gate, show, allFree(), { maxPerCustomer: 2 });
    await gate.claim(show, 'a', 'pending', ['A1']);
    const later = Date.now() + 60_000;
    const truth: GateSeatState[] = [
      { seat: 'A1', state: 'A' },
      { seat: 'A2', state: 'S', bookingId: 'b9', customerId: 'a' },
      { seat: 'A3', state: 'H', expiresAtMs: later, holdId: 'h3', customerId: 'c' },
      ...allFree(['A4', 'A5', 'A6']),
    ];
    expect(await build(gate, show, truth, { maxPerCustomer: 2 })).toMatchObject({ wasBuilt: true, changed: 2 });
    expect(await gate.claim(show, 'x', 'h', ['A1'])).toMatchObject({ kind: 'taken' }); // the young claim is kept
    expect(await gate.claim(show, 'x', 'h', ['A3'])).toMatchObject({ kind: 'taken' });
    expect(await gate.claim(show, 'a', 'h', ['A4'])).toEqual({ kind: 'over_limit', owned: 2, maxPerCustomer: 2 });
    // With no grace, a claim the database does not know is dropped.
    await gate.sync(show, {
      maxPerCustomer: 2,
      holdTtlMs: 60_000,
      pendingGraceMs: 0,
      keyTtlMs: 3_600_000,
      seats: truth,
    });
    expect(await gate.claim(show, 'x', 'h', ['A1'])).toMatchObject({ kind: 'claimed' });
  });

  it('sync leaves alone a seat written after the database was read (a cancel racing the check)', async () => {
    const show = nextShowtimeId();
    await build(gate, show);
    const later = Date.now() + 60_000;
    await gate.apply(show, [{ op: 'held', seat: 'A1', expiresAtMs: later, holdId: 'h1', customerId: 'a' }]);
    // The check read the database while h1 still held A1; the cancel freed it at the gate since.
    const staleRead: GateSeatState[] = [
      { seat: 'A1', state: 'H', expiresAtMs: later, holdId: 'h1', customerId: 'a' },
      ...allFree(SEATS.slice(1)),
    ];
    await gate.apply(show, [{ op: 'freehold', seat: 'A1', holdId: 'h1' }]);
    expect(await build(gate, show, staleRead)).toMatchObject({ changed: 0 });
    expect(await gate.claim(show, 'b', 'h2', ['A1'])).toMatchObject({ kind: 'claimed' });
    // A seat nobody wrote lately takes the database's word.
    await gate.sync(show, {
      maxPerCustomer: 4,
      holdTtlMs: 60_000,
      pendingGraceMs: 0,
      keyTtlMs: 3_600_000,
      seats: staleRead,
    });
    expect(await gate.claim(show, 'c', 'h3', ['A1'])).toMatchObject({ kind: 'taken' });
  });

  it('property: a claim is all or nothing over its seats and the customer limit (against a model)', async () => {
    type Model = Map<string, { hold: string; customer: string }>;
    const action = fc.oneof(
      fc.record({
        kind: fc.constant('claim' as const),
        customer: fc.constantFrom('p', 'q', 'r'),
        seats: fc.uniqueArray(fc.constantFrom(...SEATS), { minLength: 1, maxLength: 4 }),
      }),
      fc.record({ kind: fc.constant('release' as const), pick: fc.nat(20) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(action, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 1, max: 5 }),
        async (actions, limit) => {
          const show = nextShowtimeId();
          await build(gate, show, allFree(), { maxPerCustomer: limit });
          const model: Model = new Map();
          const holds: { hold: string; seats: string[] }[] = [];
          for (const [i, a] of actions.entries()) {
            if (a.kind === 'claim') {
              const hold = `h${i}`;
              const owned = [...model.values()].filter((v) => v.customer === a.customer).length;
              const taken = a.seats.filter((s) => model.has(s)).sort();
              const decision = await gate.claim(show, a.customer, hold, a.seats);
              if (taken.length > 0)
                expect(decision).toEqual({ kind: 'taken', seats: a.seats.filter((s) => model.has(s)) });
              else if (owned + a.seats.length > limit)
                expect(decision).toEqual({ kind: 'over_limit', owned, maxPerCustomer: limit });
              else {
                expect(decision).toMatchObject({ kind: 'claimed', owned: owned + a.seats.length });
                for (const seat of a.seats) model.set(seat, { hold, customer: a.customer });
                holds.push({ hold, seats: a.seats });
              }
            } else if (holds.length > 0) {
              const { hold, seats } = holds[a.pick % holds.length]!;
              const expected = seats.filter((s) => model.get(s)?.hold === hold).length;
              expect(await gate.release(show, hold, seats)).toBe(expected);
              for (const seat of seats) if (model.get(seat)?.hold === hold) model.delete(seat);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
