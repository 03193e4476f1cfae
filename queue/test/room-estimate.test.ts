/**
 * What the wait estimate learns inside the scripts, on every store adapter (see stores.ts):
 * idle time never dilutes the rate, turns teach how long a slot stays taken, busy time is
 * counted only while buyers wait in an open room, and a new rate starts a new measurement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { createRoomEngine } from '../src/room-engine';
import { allFactories, type StoreHandle } from './stores';
import { fastRoom, nextShowtimeId, ok, sleep } from './helpers';

const selected = process.env.QUEUE_STORES?.split(',');
const factories = allFactories.filter((f) => !selected || selected.includes(f.name.split(' ')[0]!));

describe.each(factories)('wait estimate learning on $name', (factory) => {
  let handle: StoreHandle;
  beforeAll(async () => {
    handle = await factory.open(testRedisUrl());
  });
  afterAll(async () => {
    await handle?.close();
  });
  const engine = () => createRoomEngine({ store: handle.store, keyPrefix: testRedisNamespace('eta') });
  const learning = async (room: ReturnType<typeof engine>, show: string) =>
    ok(await room.snapshot(show)).snapshot.learning;

  it('quotes the configured rate to a crowd arriving after a quiet spell', async () => {
    const room = engine();
    const show = nextShowtimeId();
    // 60 a minute, one turn at a time cannot be the limit here: capacity 1,000.
    ok(await room.configure(show, { ...fastRoom, capacity: 1_000, admitPerMinute: 60, admitBurst: 1 }));
    ok(await room.join(show, 'early'));
    ok(await room.release(show, 'early'));
    await sleep(5_500); // quiet: under the old one-minute measure this read as 1 admission in 5.5 s
    const crowd = await Promise.all(
      Array.from({ length: 12 }, (_, i) => room.join(show, `c${i}`)).map(async (p) => ok(await p)),
    );
    for (const standing of crowd.filter((s) => s.state === 'waiting')) {
      // One a second: position p waits about p seconds (not 5.5 p).
      expect(standing.etaMs!).toBeGreaterThan(standing.position! * 800);
      expect(standing.etaMs!).toBeLessThan(standing.position! * 1_250);
    }
  });

  it('learns how long turns hold their slots, and then quotes the capacity-bound rate', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 2 }));
    for (let round = 0; round < 3; round++) {
      const pair = [`t${round}a`, `t${round}b`];
      for (const c of pair) ok(await room.join(show, c));
      for (const c of pair) ok(await room.claim(show, c));
      await sleep(300);
      for (const c of pair) ok(await room.release(show, c));
    }
    const learned = await learning(room, show);
    expect(learned.turnsEnded).toBeCloseTo(6, 1);
    expect(learned.turnMs!).toBeGreaterThanOrEqual(290);
    expect(learned.turnMs!).toBeLessThan(1_500);
    // The room's own rate is 1,000 a second; two slots held ~300 ms each admit ~7 a second.
    ok(await room.join(show, 'h1'));
    ok(await room.join(show, 'h2'));
    const waiter = ok(await room.join(show, 'w'));
    expect(waiter).toMatchObject({ state: 'waiting', position: 1 });
    expect(waiter.etaMs!).toBeGreaterThanOrEqual(Math.floor(learned.turnMs! / 2) - 5);
  });

  it('after a rate cut, tells the line it waits for the one-minute window to let anyone in', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 100, admitPerMinute: 600, admitBurst: 20 }));
    for (let i = 0; i < 20; i++) ok(await room.join(show, `early${i}`));
    expect(ok(await room.stats(show)).offered).toBe(20);
    // Ten a minute now: the window already holds twenty, ten of which must age out first.
    ok(await room.configure(show, { admitPerMinute: 10, admitBurst: 1 }));
    const waiter = ok(await room.join(show, 'w'));
    expect(waiter).toMatchObject({ state: 'waiting', position: 1 });
    expect(waiter.etaMs!).toBeGreaterThan(55_000);
    expect(waiter.etaMs!).toBeLessThanOrEqual(60_000);
  });

  it('keeps a paused buyer near the front polling at the pace of the place, so the resume finds them there', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 1, admitPerMinute: 60, admitBurst: 1 }));
    ok(await room.join(show, 'a'));
    ok(await room.join(show, 'b'));
    ok(await room.configure(show, { state: 'paused' }));
    const paused = ok(await room.poll(show, 'b'));
    expect(paused).toMatchObject({ state: 'paused', position: 1, etaMs: null });
    expect(paused.pollAfterMs!).toBeLessThanOrEqual(1_200);
  });

  it('counts busy time only while buyers wait in an open room, and starts again on a new rate', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 1, admitPerMinute: 600, admitBurst: 1 }));
    ok(await room.tick(show));
    await sleep(300);
    ok(await room.tick(show));
    expect((await learning(room, show)).busyMs).toBe(0); // open, nobody waiting
    for (const c of ['a', 'b', 'c']) ok(await room.join(show, c));
    ok(await room.tick(show));
    await sleep(300);
    ok(await room.tick(show));
    expect((await learning(room, show)).busyMs).toBeGreaterThanOrEqual(250);
    ok(await room.configure(show, { state: 'paused' }));
    ok(await room.tick(show));
    // Read once paused (how long the pause took to arrive is load, not the rule): nothing more
    // counts while it lasts.
    const paused = await learning(room, show);
    await sleep(300);
    ok(await room.tick(show));
    expect((await learning(room, show)).busyMs).toBeLessThanOrEqual(paused.busyMs + 20);
    ok(await room.configure(show, { state: 'open', admitPerMinute: 300 }));
    expect((await learning(room, show)).busyMs).toBeLessThan(150);
  });

  it('holds the measurement for the one-minute window after a rate cut, whoever cuts it', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 100, admitPerMinute: 600, admitBurst: 20 }));
    // Twenty offered, a hundred wait: a loaded machine slow between the ticks cannot empty the line.
    for (let i = 0; i < 120; i++) ok(await room.join(show, `c${i}`));
    ok(await room.tick(show));
    await sleep(200);
    ok(await room.tick(show));
    expect((await learning(room, show)).busyMs).toBeGreaterThanOrEqual(150);
    // The closed loop cuts the rate: the window holds the admissions made at the old one, and
    // while they age out the line stalls; that stall is read from the window's log, and must
    // not teach the estimate a rate far below the new one.
    ok(await room.govern(show, { ctlRate: 10, ctlUntilMs: Date.now() + 120_000, ctlReason: 'slow_holds' }));
    ok(await room.tick(show));
    const cut = await learning(room, show);
    await sleep(300);
    ok(await room.tick(show));
    await sleep(300);
    ok(await room.tick(show));
    expect((await learning(room, show)).busyMs).toBeLessThanOrEqual(cut.busyMs + 1);
    // What was measured before is re-expressed under the new rate (a sixtieth of it), not dropped.
    expect(cut.busyAdmits).toBeGreaterThan(0);
    expect(cut.busyAdmits / cut.busyMs).toBeLessThan(20 / 150 / 30);
  });

  it('at an opening, before any turn has ended, tells the line turns last at least as long as the running ones have run', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 2 })); // 1,000 a second configured
    for (let i = 0; i < 8; i++) ok(await room.join(show, `o${i}`));
    for (const c of ['o0', 'o1']) ok(await room.claim(show, c));
    await sleep(1_500);
    ok(await room.tick(show)); // the admission step counts the running turns
    const last = ok(await room.poll(show, 'o7'));
    expect(last.state).toBe('waiting');
    // Two slots held 1.5 s so far and counting: place p waits at least (p - 1) × 1.5 s / 2.
    expect(last.etaMs!).toBeGreaterThanOrEqual(((last.position! - 1) * 1_400) / 2);
    expect(ok(await room.stats(show))).toMatchObject({ turnFrom: 'room', turnMs: expect.any(Number) });
    expect(ok(await room.stats(show)).turnMs!).toBeGreaterThanOrEqual(1_400);
    expect((await learning(room, show)).turnsEnded).toBe(0);
  });

  it('learns how long an offer waits for its claim, and counts long running turns at their age', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 4 }));
    for (const c of ['s1', 's2', 's3']) {
      ok(await room.join(show, c));
      ok(await room.claim(show, c));
      ok(await room.release(show, c));
    }
    ok(await room.join(show, 'slow'));
    await sleep(300);
    ok(await room.claim(show, 'slow'));
    await sleep(600);
    ok(await room.tick(show));
    const learned = await learning(room, show);
    expect(learned.claimGapMs).toBeGreaterThanOrEqual(60); // one gap of ~300 ms among four claims
    expect(learned.claimGapMs).toBeLessThan(300);
    // Three turns ended almost at once; the one still running for ~600 ms is longer than them.
    expect(learned.runningTurns).toBe(1);
    expect(learned.runningTurnMs).toBeGreaterThanOrEqual(550);
    const waiting = ok(await room.poll(show, 'slow'));
    expect(waiting.state).toBe('admitted');
  });
});
