/**
 * Walk-aways (a crashed phone, a lost network: no poll, no leave) must not slow the line, on
 * every store adapter: a buyer not seen for a few seconds when the turn comes is passed over
 * (no slot, no share of the rate) and takes the place back when seen again, an offer nobody
 * claimed gives its share of the rate back, and once no-shows are observed the step offers
 * beyond the free slots while claims never let more than the capacity in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { createRoomEngine } from '../src/room-engine';
import { allFactories, type StoreHandle } from './stores';
import { fastRoom, nextShowtimeId, ok, sleep } from './helpers';

const selected = process.env.QUEUE_STORES?.split(',');
const factories = allFactories.filter((f) => !selected || selected.includes(f.name.split(' ')[0]!));

describe.each(factories)('walk-aways on $name', (factory) => {
  let handle: StoreHandle;
  beforeAll(async () => {
    handle = await factory.open(testRedisUrl());
  });
  afterAll(async () => {
    await handle?.close();
  });
  const engine = () => createRoomEngine({ store: handle.store, keyPrefix: testRedisNamespace('walk') });

  it('passes over a buyer not seen for a few seconds, who takes the place back when seen again', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 1, offerWindowMs: 60_000 }));
    ok(await room.join(show, 'first'));
    ok(await room.join(show, 'silent'));
    ok(await room.join(show, 'present'));
    await sleep(4_300);
    ok(await room.poll(show, 'present'));
    ok(await room.release(show, 'first')); // 'silent', next in line, has not been seen for 4.3 s
    const present = ok(await room.poll(show, 'present'));
    expect(present.state).toBe('offered');
    // Seen: offered, for the first claim window (10 s; a claim refused for a full room extends it).
    expect(present.offerExpiresAtMs! - present.nowMs).toBeGreaterThan(9_000);
    expect(ok(await room.stats(show))).toMatchObject({ offered: 1, waiting: 0 });
    // Seen again within the grace: back at the front, ahead of anyone who joined later.
    ok(await room.join(show, 'later'));
    expect(ok(await room.poll(show, 'silent'))).toMatchObject({ state: 'waiting', position: 1 });
    ok(await room.claim(show, 'present'));
    ok(await room.release(show, 'present'));
    const silent = ok(await room.poll(show, 'silent'));
    expect(silent.state).toBe('offered');
    expect(silent.offerExpiresAtMs! - silent.nowMs).toBeGreaterThan(9_000);
    expect(Number(ok(await room.stats(show)).abandoned)).toBe(0);
  });

  it('takes the slot back from an offer not claimed in the first 10 s, and the place back to the front when its buyer shows up', async () => {
    const room = engine();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 1, offerWindowMs: 60_000 }));
    ok(await room.join(show, 'vanished')); // offered at once, then never seen again
    ok(await room.join(show, 'next'));
    const started = Date.now();
    while (ok(await room.poll(show, 'next')).state !== 'offered') {
      if (Date.now() - started > 15_000) throw new Error('the slot never came back');
      await sleep(500);
    }
    const waitedMs = Date.now() - started;
    expect(waitedMs).toBeGreaterThan(9_000);
    expect(waitedMs).toBeLessThan(13_000); // not the room's 60 s window
    expect(ok(await room.stats(show))).toMatchObject({ offersExpired: 1, abandoned: 0 });
    // The one who did not claim in time comes back within the grace: the front of the line, not the back.
    ok(await room.join(show, 'later'));
    expect(ok(await room.poll(show, 'vanished'))).toMatchObject({ state: 'waiting', position: 1 });
  });

  it('gives the rate back for offers nobody claimed', async () => {
    const room = engine();
    const show = nextShowtimeId();
    // Two a minute, two banked: without the refund nobody else would be offered for a minute.
    ok(await room.configure(show, { ...fastRoom, capacity: 10, admitPerMinute: 2, admitBurst: 2, offerWindowMs: 300 }));
    for (const c of ['a', 'b', 'c', 'd']) ok(await room.join(show, c));
    expect(ok(await room.stats(show))).toMatchObject({ offered: 2, waiting: 2 });
    await sleep(450);
    ok(await room.tick(show));
    const stats = ok(await room.stats(show));
    expect(stats.offersExpired).toBe(2);
    expect(stats.offered).toBe(2); // c and d
    expect(stats.waiting).toBe(0);
  });

  it('offers beyond the free slots once no-shows are seen, and never admits more than N', async () => {
    const room = engine();
    const show = nextShowtimeId();
    const capacity = 4;
    ok(await room.configure(show, { ...fastRoom, capacity, offerWindowMs: 300 }));
    // Twelve offers lapse unclaimed: a no-show rate of one (counted as at most one half).
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < capacity; i++) ok(await room.join(show, `gone${round}-${i}`));
      await sleep(350);
      ok(await room.tick(show));
    }
    // The buyers who come now claim within the window even on a loaded machine (a 300 ms one
    // could lapse between a poll and its claim, which is not what this test is about).
    ok(await room.configure(show, { offerWindowMs: 10_000 }));
    for (let i = 0; i < 30; i++) ok(await room.join(show, `b${i}`));
    ok(await room.tick(show));
    const stats = ok(await room.stats(show));
    expect(stats.offered).toBeGreaterThan(capacity);
    expect(stats.offered).toBeLessThanOrEqual(capacity * 2);
    // Every offered buyer claims at once, together: the capacity still holds.
    for (let round = 0; round < 5; round++) {
      const standings = await Promise.all(Array.from({ length: 30 }, (_, i) => room.poll(show, `b${i}`).then(ok)));
      const offered = standings.flatMap((s, i) => (s.state === 'offered' ? [`b${i}`] : []));
      const claims = await Promise.all(offered.map((c) => room.claim(show, c)));
      expect(claims.filter((c) => c.ok).length).toBeLessThanOrEqual(capacity);
      expect(claims.filter((c) => !c.ok).every((c) => !c.ok && c.code === 'not_offered')).toBe(true);
      expect(ok(await room.stats(show)).active).toBeLessThanOrEqual(capacity);
      // One admitted buyer finishes each round; a waiting offer takes the slot.
      const admitted = standings.findIndex((s) => s.state === 'admitted');
      if (admitted >= 0) ok(await room.release(show, `b${admitted}`));
    }
  });
});
