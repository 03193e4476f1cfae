/**
 * The room contract, run against every store adapter (see stores.ts). Each test gets its
 * own key namespace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { drawOrder, seedCommitment, verifyDraw } from '../src/fair-draw';
import { createRoomEngine } from '../src/room-engine';
import { createPurchaseBuckets } from '../src/purchase-buckets';
import { allFactories, type StoreHandle } from './stores';
import { fastRoom, nextShowtimeId, ok, sleep } from './helpers';

const selected = process.env.QUEUE_STORES?.split(',');
const factories = allFactories.filter((f) => !selected || selected.includes(f.name.split(' ')[0]!));

describe.each(factories)('room contract on $name', (factory) => {
  let handle: StoreHandle;
  beforeAll(async () => {
    handle = await factory.open(testRedisUrl());
  });
  afterAll(async () => {
    await handle?.close();
  });
  const engine = () => createRoomEngine({ store: handle.store, keyPrefix: testRedisNamespace('room') });

  it('gives one place per customer, and the same place on re-join', async () => {
    const room = engine();
    const show = nextShowtimeId();
    expect(await room.join(show, 'a')).toMatchObject({ ok: false, code: 'unknown_room' });
    ok(await room.configure(show, { ...fastRoom, capacity: 1 }));
    const first = ok(await room.join(show, 'a'));
    const again = ok(await room.join(show, 'a'));
    expect(first.state).toBe('offered');
    expect(again.ticket).toBe(first.ticket);
    const b = ok(await room.join(show, 'b'));
    expect(b).toMatchObject({ state: 'waiting', position: 1 });
    expect(ok(await room.join(show, 'b')).ticket).toBe(b.ticket);
    expect(ok(await room.stats(show))).toMatchObject({ joined: 2, waiting: 1, offered: 1 });
  });

  it('finds who waits with a ticket (support), and tells the whole line and the pre-queue', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 1 }));
    ok(await room.join(show, 'a')); // offered at once: out of the line
    const b = ok(await room.join(show, 'b'));
    const c = ok(await room.join(show, 'c'));
    expect(c).toMatchObject({ state: 'waiting', position: 2, lineLength: 2, preLength: 0 });
    expect(ok(await room.findTicket(show, c.ticket!))).toEqual({
      ok: true,
      customerId: 'c',
      position: 2,
      lineLength: 2,
    });
    expect(ok(await room.findTicket(show, b.ticket!))).toMatchObject({ customerId: 'b', position: 1 });
    expect(ok(await room.findTicket(show, 1))).toEqual({ ok: true, customerId: null, position: null, lineLength: 2 }); // a: offered, not in line
    expect(ok(await room.findTicket(show, 999))).toMatchObject({ customerId: null });
    expect(await room.findTicket(show, 0)).toMatchObject({ ok: false, code: 'invalid_input' });
    expect(await room.findTicket(nextShowtimeId(), 1)).toMatchObject({ ok: false, code: 'unknown_room' });
    const scheduled = nextShowtimeId();
    ok(await room.configure(scheduled, { ...fastRoom, state: 'scheduled', opensAtMs: Date.now() + 3_600_000 }));
    ok(await room.join(scheduled, 'p1'));
    expect(ok(await room.join(scheduled, 'p2'))).toMatchObject({ state: 'prequeue', lineLength: 0, preLength: 2 });
  });

  it('admits in join order when nobody leaves (FIFO)', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 3 }));
    const customers = Array.from({ length: 20 }, (_, i) => `c${String(i).padStart(2, '0')}`);
    for (const c of customers) ok(await room.join(show, c));
    const admittedOrder: string[] = [];
    while (admittedOrder.length < customers.length) {
      ok(await room.tick(show));
      const offeredNow: string[] = [];
      for (const c of customers) {
        if (!admittedOrder.includes(c) && ok(await room.poll(show, c)).state === 'offered') offeredNow.push(c);
      }
      expect(offeredNow.length).toBeGreaterThan(0);
      admittedOrder.push(...offeredNow);
      // Everyone offered so far is exactly the head of the join order.
      expect(admittedOrder).toEqual(customers.slice(0, admittedOrder.length));
      for (const c of offeredNow) {
        ok(await room.claim(show, c));
        ok(await room.release(show, c));
      }
    }
  });

  it('reports exact positions and an ETA, and never admits past capacity', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 2 }));
    for (const c of ['a', 'b', 'c', 'd', 'e']) ok(await room.join(show, c));
    const e = ok(await room.poll(show, 'e'));
    expect(e).toMatchObject({ state: 'waiting', position: 3 });
    expect(e.etaMs).toBeGreaterThanOrEqual(0);
    expect(e.pollAfterMs).toBeGreaterThan(0);
    ok(await room.leave(show, 'c'));
    expect(ok(await room.poll(show, 'e')).position).toBe(2);
    const stats = ok(await room.stats(show));
    expect(stats.offered + stats.active).toBe(2);
    expect(stats.lastPosition).toBe(2);
  });

  it('never holds more than N admissions while 200 pollers hammer one room', async () => {
    const room = engine();
    const show = nextShowtimeId();
    const capacity = 7;
    ok(await room.configure(show, { ...fastRoom, capacity, offerWindowMs: 400 }));
    const pollers = Array.from({ length: 200 }, (_, i) => `p${i}`);
    await Promise.all(pollers.map((c) => room.join(show, c).then(ok)));
    let maxSeen = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const stats = ok(await room.stats(show));
        maxSeen = Math.max(maxSeen, stats.active);
        expect(stats.active).toBeLessThanOrEqual(capacity);
        // Lapsing offers (400 ms) teach a no-show rate, and offers then run beyond the free
        // slots, never past twice the capacity (a no-show rate of at most one half).
        expect(stats.offered + stats.active).toBeLessThanOrEqual(capacity * 2);
      }
    })();
    let admittedTotal = 0;
    for (let round = 0; round < 6; round++) {
      // All pollers released together each round: poll, claim what is offered, give some back.
      await Promise.all(
        pollers.map(async (c, i) => {
          const standing = ok(await room.poll(show, c));
          if (standing.state === 'offered') {
            const claim = await room.claim(show, c);
            if (claim.ok && !claim.alreadyAdmitted) admittedTotal++;
          } else if (standing.state === 'admitted' && (i + round) % 2 === 0) {
            ok(await room.release(show, c));
          }
        }),
      );
    }
    sampling = false;
    await sampler;
    expect(maxSeen).toBeGreaterThan(0);
    expect(maxSeen).toBeLessThanOrEqual(capacity);
    expect(admittedTotal).toBeGreaterThan(capacity);
  });

  it('respects the admission rate: the window caps a sliding minute, the bucket smooths', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 100, admitPerMinute: 3, admitBurst: 3 }));
    for (let i = 0; i < 10; i++) ok(await room.join(show, `w${i}`));
    for (let i = 0; i < 20; i++) ok(await room.tick(show));
    expect(ok(await room.stats(show)).offered).toBe(3);

    const paced = nextShowtimeId();
    // Timed from the configure: joins admit too (each runs a step when one is due), and on a
    // loaded machine forty joins take a while.
    const started = Date.now();
    ok(await room.configure(paced, { ...fastRoom, capacity: 100, admitPerMinute: 600, admitBurst: 1 }));
    for (let i = 0; i < 40; i++) ok(await room.join(paced, `r${i}`));
    for (let i = 0; i < 15; i++) {
      ok(await room.tick(paced));
      await sleep(50);
    }
    const elapsedMs = Date.now() - started;
    const offered = ok(await room.stats(paced)).offered;
    // 600/min = one per 100 ms, plus the burst of one and one for clock granularity.
    expect(offered).toBeLessThanOrEqual(2 + Math.ceil(elapsedMs / 100));
    expect(offered).toBeGreaterThanOrEqual(2);
  });

  it('passes the turn of a buyer who stopped polling on; gone longer than the grace after that, the turn has lapsed', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 1, abandonGraceMs: 300 }));
    for (const c of ['a', 'b', 'c']) ok(await room.join(show, c));
    ok(await room.claim(show, 'a'));
    for (let i = 0; i < 4; i++) {
      await sleep(120);
      ok(await room.poll(show, 'c')); // b has gone quiet
    }
    ok(await room.release(show, 'a'));
    expect(ok(await room.poll(show, 'c')).state).toBe('offered');
    await sleep(400); // b stays away past the grace, counted from when its turn passed on
    expect(ok(await room.poll(show, 'b')).state).toBe('expired');
    expect(await room.claim(show, 'b')).toMatchObject({ ok: false, code: 'turn_expired' });
    expect(ok(await room.stats(show)).abandoned).toBe(1);
    // Coming back after the turn passed means a new place at the end.
    const back = ok(await room.join(show, 'b'));
    expect(back.state).toBe('waiting');
  });

  it('a buyer the line outran between two polls takes the place back at the front', async () => {
    // Polls far back are answered by the edge's snapshot and leave no heartbeat: when the line
    // moves faster than a buyer was told, its last heartbeat can be older than the grace by the
    // time its turn comes, though it polls exactly as asked.
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 1, abandonGraceMs: 300 }));
    for (const c of ['a', 'b', 'c']) ok(await room.join(show, c));
    ok(await room.claim(show, 'a'));
    for (let i = 0; i < 4; i++) {
      await sleep(120);
      ok(await room.poll(show, 'c')); // b's heartbeat ages past the grace
    }
    ok(await room.release(show, 'a'));
    expect(ok(await room.poll(show, 'c')).state).toBe('offered'); // b was passed over
    const returned = ok(await room.poll(show, 'b')); // b polls again, as it was told to
    expect(returned).toMatchObject({ state: 'waiting', position: 1 });
    expect(ok(await room.stats(show))).toMatchObject({ abandoned: 0, unparked: 1 });
    ok(await room.claim(show, 'c'));
    ok(await room.release(show, 'c'));
    expect(ok(await room.poll(show, 'b')).state).toBe('offered');
  });

  it('expires unclaimed offers and frees their slot', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 1, offerWindowMs: 200 }));
    ok(await room.join(show, 'a'));
    ok(await room.join(show, 'b'));
    expect(ok(await room.poll(show, 'a')).state).toBe('offered');
    await sleep(260);
    ok(await room.tick(show));
    expect(ok(await room.poll(show, 'b')).state).toBe('offered');
    expect(await room.claim(show, 'a')).toMatchObject({ ok: false, code: 'turn_expired' });
    expect(ok(await room.stats(show)).offersExpired).toBe(1);
    expect(ok(await room.claim(show, 'b')).sessionId).toMatch(new RegExp(`^${show}\\.`));
  });

  it('gives a new place to a customer re-joining after the offer ran out', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 1, offerWindowMs: 150 }));
    const first = ok(await room.join(show, 'a'));
    expect(first.state).toBe('offered');
    await sleep(200);
    const again = ok(await room.join(show, 'a'));
    expect(again.ticket).toBeGreaterThan(first.ticket!);
    expect(again.state).toBe('offered');
  });

  it('admits once when 32 claims for one customer race, over several rounds', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 1 }));
    for (let round = 0; round < 3; round++) {
      const customer = `racer${round}`;
      ok(await room.join(show, customer));
      expect(ok(await room.poll(show, customer)).state).toBe('offered');
      const claims = await Promise.all(Array.from({ length: 32 }, () => room.claim(show, customer)));
      const granted = claims.map(ok);
      expect(granted.filter((c) => !c.alreadyAdmitted)).toHaveLength(1);
      expect(new Set(granted.map((c) => c.sessionId)).size).toBe(1);
      const stats = ok(await room.stats(show));
      expect(stats).toMatchObject({ active: 1, admitted: round + 1 });
      ok(await room.release(show, customer));
    }
  });

  it('releases early, leaves at once, pauses and tells waiters when sold out', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 1 }));
    for (const c of ['a', 'b', 'c']) ok(await room.join(show, c));
    ok(await room.claim(show, 'a'));
    expect(ok(await room.release(show, 'a')).freed).toBe(true);
    expect(ok(await room.poll(show, 'b')).state).toBe('offered'); // slot given back at once
    expect(ok(await room.leave(show, 'b')).removed).toBe(true);
    expect(ok(await room.poll(show, 'b')).state).toBe('none');
    expect(ok(await room.poll(show, 'c')).state).toBe('offered');
    ok(await room.leave(show, 'c'));
    ok(await room.configure(show, { state: 'paused' }));
    ok(await room.join(show, 'd'));
    expect(ok(await room.poll(show, 'd'))).toMatchObject({ state: 'paused', position: 1 });
    ok(await room.markSoldOut(show));
    expect(ok(await room.poll(show, 'd'))).toMatchObject({ state: 'sold_out', pollAfterMs: null });
    expect(await room.join(show, 'e')).toMatchObject({ ok: false, code: 'sold_out' });
    expect(await room.listRooms()).not.toContain(show);
  });

  it('shuffles the pre-queue once at opening, reproducibly from the revealed seed', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, state: 'scheduled', capacity: 1 }));
    expect(await room.listRooms()).toContain(show);
    const before = ok(await room.stats(show));
    expect(before.seedHash).toMatch(/^[0-9a-f]{64}$/);
    expect(before.seed).toBeNull();
    const participants = Array.from({ length: 40 }, (_, i) => `pre${i}`);
    for (const c of participants) expect(ok(await room.join(show, c)).state).toBe('prequeue');
    ok(await room.configure(show, { state: 'open' }));
    ok(await room.join(show, 'late'));
    const after = ok(await room.stats(show));
    expect(after.state).toBe('open');
    expect(after.seedHash).toBe(before.seedHash);
    expect(await seedCommitment(after.seed!)).toBe(before.seedHash);
    const tickets = await Promise.all(
      participants.map(async (c) => [c, ok(await room.poll(show, c)).ticket!] as const),
    );
    const drawn = [...tickets].sort((x, y) => x[1] - y[1]).map(([c]) => c);
    expect([...drawn].sort()).toEqual([...participants].sort());
    expect(drawn).toEqual(await drawOrder(after.seed!, participants));
    expect(await verifyDraw({ seed: after.seed!, seedHash: before.seedHash! }, participants, drawn)).toBe(true);
    // The late joiner queues behind every pre-queue member.
    expect(ok(await room.poll(show, 'late')).ticket).toBeGreaterThan(Math.max(...tickets.map(([, t]) => t)));
  });

  it('a closed or sold-out room forgets its keys after closedRetentionMs; reopening keeps them', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 1, closedRetentionMs: 300 }));
    ok(await room.join(show, 'r1'));
    ok(await room.join(show, 'r2'));
    ok(await room.configure(show, { state: 'closed' }));
    expect(ok(await room.stats(show)).state).toBe('closed'); // waiters are still told why
    ok(await room.configure(show, { state: 'open' }));
    await sleep(450);
    expect(
      ok(await room.stats(show)).waiting + ok(await room.stats(show)).offered + ok(await room.stats(show)).active,
    ).toBeGreaterThan(0);
    ok(await room.markSoldOut(show));
    await sleep(450);
    expect(await room.stats(show)).toMatchObject({ ok: false, code: 'unknown_room' });
    expect(await room.poll(show, 'r2')).toMatchObject({ ok: false });
  });

  it('takes purchase tokens from both buckets or from neither', async () => {
    const prefix = testRedisNamespace('bucket');
    const room = createRoomEngine({ store: handle.store, keyPrefix: prefix });
    const buckets = createPurchaseBuckets({ store: handle.store, keyPrefix: prefix });
    const show = nextShowtimeId();
    ok(
      await room.configure(show, {
        customerBucketCapacity: 3,
        customerRefillPerMinute: 1,
        showtimeBucketCapacity: 5,
        showtimeRefillPerSecond: 1,
      }),
    );
    for (let i = 0; i < 3; i++) expect(ok(await buckets.takePurchaseTokens(show, 'a')).allowed).toBe(true);
    const refused = ok(await buckets.takePurchaseTokens(show, 'a'));
    expect(refused).toMatchObject({ allowed: false, remainingCustomer: 0 });
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.remainingShowtime).toBeGreaterThanOrEqual(2); // the refusal charged nothing
    expect(ok(await buckets.takePurchaseTokens(show, 'b', 2)).allowed).toBe(true);
    // Showtime bucket empty now: c is refused and c's own bucket is untouched.
    const c = ok(await buckets.takePurchaseTokens(show, 'c', 2));
    expect(c).toMatchObject({ allowed: false, remainingCustomer: 3 });
    expect(await buckets.takePurchaseTokens(show, 'c', 4)).toMatchObject({ ok: false, code: 'cost_exceeds_capacity' });

    // Unconfigured showtime: defaults (10 per customer), and a retry after retryAfterMs works.
    const fresh = nextShowtimeId();
    const decisions = await Promise.all(Array.from({ length: 32 }, () => buckets.takePurchaseTokens(fresh, 'z')));
    expect(decisions.map(ok).filter((d) => d.allowed)).toHaveLength(10);
  });

  it('with requireAdmission, only a live admission session may take purchase tokens', async () => {
    const prefix = testRedisNamespace('admission');
    const room = createRoomEngine({ store: handle.store, keyPrefix: prefix });
    const buckets = createPurchaseBuckets({ store: handle.store, keyPrefix: prefix });
    const show = nextShowtimeId();
    ok(
      await room.configure(show, { state: 'open', capacity: 1, customerBucketCapacity: 3, customerRefillPerMinute: 1 }),
    );
    const requireAdmission = { requireAdmission: true };
    expect(await buckets.takePurchaseTokens(show, 'outsider', 1, requireAdmission)).toMatchObject({
      ok: false,
      code: 'not_admitted',
    });
    ok(await room.join(show, 'member'));
    ok(await room.tick(show));
    ok(await room.claim(show, 'member'));
    expect(ok(await buckets.takePurchaseTokens(show, 'member', 1, requireAdmission))).toMatchObject({
      allowed: true,
      remainingCustomer: 2,
    });
    ok(await room.release(show, 'member'));
    expect(await buckets.takePurchaseTokens(show, 'member', 1, requireAdmission)).toMatchObject({
      ok: false,
      code: 'not_admitted',
    });
    // The refusals charged nothing; without the rule the buckets alone decide.
    expect(ok(await buckets.takePurchaseTokens(show, 'member'))).toMatchObject({ allowed: true, remainingCustomer: 1 });
  });

  it('never charges one bucket when the other refused, under concurrent load', async () => {
    const prefix = testRedisNamespace('bucket');
    const room = createRoomEngine({ store: handle.store, keyPrefix: prefix });
    const buckets = createPurchaseBuckets({ store: handle.store, keyPrefix: prefix });
    const show = nextShowtimeId();
    ok(
      await room.configure(show, {
        customerBucketCapacity: 3,
        customerRefillPerMinute: 1,
        showtimeBucketCapacity: 20,
        showtimeRefillPerSecond: 1,
      }),
    );
    const customers = Array.from({ length: 10 }, (_, i) => `k${i}`);
    const allowedBy = new Map(customers.map((c) => [c, 0]));
    for (let round = 0; round < 5; round++) {
      // Every customer's request released together, five rounds: 50 requests for 20 tokens.
      const decisions = await Promise.all(
        customers.map(async (c) => [c, ok(await buckets.takePurchaseTokens(show, c))] as const),
      );
      for (const [c, d] of decisions) if (d.allowed) allowedBy.set(c, allowedBy.get(c)! + 1);
    }
    const total = [...allowedBy.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(20);
    expect(total).toBeLessThanOrEqual(22); // 20 plus at most a token or two of refill
    // The showtime bucket is (nearly) empty: a take of 3 is refused and reports each
    // customer's own bucket, which must hold exactly what its allowed takes left.
    for (const c of customers) {
      expect(allowedBy.get(c)).toBeLessThanOrEqual(3);
      const probe = ok(await buckets.takePurchaseTokens(show, c, 3));
      expect(probe.allowed).toBe(false);
      expect(probe.remainingCustomer).toBe(3 - allowedBy.get(c)!);
    }
  });

  it('waits exactly as long as retryAfterMs says', async () => {
    const prefix = testRedisNamespace('bucket');
    const room = createRoomEngine({ store: handle.store, keyPrefix: prefix });
    const buckets = createPurchaseBuckets({ store: handle.store, keyPrefix: prefix });
    const show = nextShowtimeId();
    ok(await room.configure(show, { customerBucketCapacity: 1, customerRefillPerMinute: 600 }));
    ok(await buckets.takePurchaseTokens(show, 'a'));
    const refused = ok(await buckets.takePurchaseTokens(show, 'a'));
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(100);
    await sleep(refused.retryAfterMs + 5);
    expect(ok(await buckets.takePurchaseTokens(show, 'a')).allowed).toBe(true);
  });
});
