/**
 * The closed loop's decision inside the room (govern-10.lua and its twin): every admission step
 * uses the effective rate and the cap on turns while they are valid and switched on, and the
 * operator's settings otherwise. Redis and the in-process store alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { createRoomEngine } from '../src/room-engine';
import { ioredisFactory, memoryFactory, type StoreHandle } from './stores';
import { fastRoom, nextShowtimeId, ok, sleep } from './helpers';

describe.each([ioredisFactory, memoryFactory])('the loop governs a room on $name', (factory) => {
  let handle: StoreHandle;
  beforeAll(async () => {
    handle = await factory.open(testRedisUrl());
  });
  afterAll(async () => {
    await handle?.close();
  });
  const engine = () => createRoomEngine({ store: handle.store, keyPrefix: testRedisNamespace('govern') });
  const later = () => Date.now() + 60_000;

  async function lineOf(room: ReturnType<typeof engine>, show: string, buyers: number) {
    for (let i = 0; i < buyers; i++) ok(await room.join(show, `b${i}`));
  }

  it('refuses an unknown room and never creates one', async () => {
    const room = engine();
    const show = nextShowtimeId();
    expect(await room.govern(show, { ctlRate: 0, ctlUntilMs: later() })).toMatchObject({
      ok: false,
      code: 'unknown_room',
    });
    expect(await room.stats(show)).toMatchObject({ ok: false, code: 'unknown_room' });
  });

  it('admits nobody at an effective rate of 0, and at the operator rate once the decision lapses', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 100, state: 'paused' }));
    ok(await room.govern(show, { ctlRate: 0, ctlUntilMs: later(), ctlReason: 'core_down', ctlDetail: 'down' }));
    ok(await room.configure(show, { state: 'open' }));
    await lineOf(room, show, 20);
    ok(await room.tick(show));
    const stats = ok(await room.stats(show));
    expect(stats.offered).toBe(0);
    expect(stats.admission).toMatchObject({ effectiveAdmitPerMinute: 0, reason: 'core_down', targetPerMinute: 60_000 });
    const far = ok(await room.poll(show, 'b19'));
    expect(far.etaMs).toBeNull(); // nobody goes in: the wait is not known
    ok(await room.govern(show, { ctlUntilMs: Date.now() - 1 }));
    // The bucket banked nothing at rate 0: it refills at the operator's rate (1 a ms) from now.
    await sleep(50);
    ok(await room.tick(show));
    const after = ok(await room.stats(show));
    expect(after.offered).toBeGreaterThan(0);
    expect(after.admission).toMatchObject({ reason: 'no_governor', effectiveAdmitPerMinute: 60_000 });
  });

  it('offers within the effective rate (its burst scaled with it)', async () => {
    const room = engine();
    const show = nextShowtimeId();
    // Operator: 60,000 a minute with a burst of 1,000; the loop says 120 a minute (burst 2).
    ok(await room.configure(show, { ...fastRoom, capacity: 100, state: 'paused' }));
    ok(await room.govern(show, { ctlRate: 120, ctlUntilMs: later(), ctlReason: 'slow_holds' }));
    ok(await room.configure(show, { state: 'open' }));
    await lineOf(room, show, 20);
    ok(await room.tick(show));
    const stats = ok(await room.stats(show));
    expect(stats.offered).toBeGreaterThanOrEqual(2);
    expect(stats.offered).toBeLessThanOrEqual(3);
    expect(stats.admission).toMatchObject({ effectiveAdmitPerMinute: 120, reason: 'slow_holds' });
  });

  it('stops at the cap on turns from the seats left, and says why', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 100, state: 'paused' }));
    ok(
      await room.govern(show, {
        ctlRate: 60_000,
        ctlCap: 4,
        ctlSeatsLeft: 6,
        ctlSeatsPerHold: 2,
        ctlUntilMs: later(),
        ctlReason: 'healthy',
      }),
    );
    ok(await room.configure(show, { state: 'open' }));
    await lineOf(room, show, 30);
    ok(await room.tick(show));
    const stats = ok(await room.stats(show));
    expect(stats.offered + stats.active).toBe(4);
    expect(stats.waiting).toBe(26);
    expect(stats.admission).toMatchObject({
      effectiveAdmitPerMinute: 0,
      reason: 'seats_covered',
      seatsLeft: 6,
      turnCap: 4,
    });
  });

  it('is ignored once the operator switches the loop off', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 100, state: 'paused', adaptiveAdmission: 0 }));
    ok(await room.govern(show, { ctlRate: 0, ctlCap: 0, ctlUntilMs: later(), ctlReason: 'core_down' }));
    ok(await room.configure(show, { state: 'open' }));
    await lineOf(room, show, 10);
    ok(await room.tick(show));
    expect(ok(await room.stats(show))).toMatchObject({
      offered: 10,
      admission: { adaptive: false, reason: 'off', effectiveAdmitPerMinute: 60_000 },
    });
  });
});
