/**
 * The admission bucket's burst on every store adapter: after a quiet spell the first step
 * offers at most the burst (refilled for the time the crowd took to arrive, never more), and
 * a burst left unset follows the rate (admission-burst.ts), whatever the room was before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { burstFor } from '../../lib/admission-burst';
import { createRoomEngine } from '../src/room-engine';
import { allFactories, type StoreHandle } from './stores';
import { fastRoom, nextShowtimeId, ok, sleep } from './helpers';

const selected = process.env.QUEUE_STORES?.split(',');
const factories = allFactories.filter((f) => !selected || selected.includes(f.name.split(' ')[0]!));

describe.each(factories)('the admission burst on $name', (factory) => {
  let handle: StoreHandle;
  beforeAll(async () => {
    handle = await factory.open(testRedisUrl());
  });
  afterAll(async () => {
    await handle?.close();
  });
  const engine = () => createRoomEngine({ store: handle.store, keyPrefix: testRedisNamespace('burst') });

  /** One buyer, a quiet spell, then a crowd; what the first step after it offers, and how long the crowd took. */
  async function crowdAfterQuiet(settings: { admitPerMinute: number; admitBurst?: number }, quietMs: number) {
    const room = engine();
    const show = nextShowtimeId();
    const { admitBurst: _burst, ...unsetBurst } = fastRoom;
    ok(await room.configure(show, { ...unsetBurst, capacity: 1_000, ...settings }));
    ok(await room.join(show, 'first'));
    await sleep(quietMs);
    const started = Date.now();
    await Promise.all(
      Array.from({ length: 120 }, (_, i) => room.join(show, `crowd-${i}`)).map(async (joined) => ok(await joined)),
    );
    ok(await room.tick(show));
    const stats = ok(await room.stats(show));
    return {
      offered: stats.offered - 1,
      seconds: (Date.now() - started) / 1000,
      settings: ok(await room.getSettings(show)).settings,
    };
  }

  it('follows the rate when unset, and offers at most it after a quiet spell', async () => {
    // 600 a minute: a burst of 50 (five seconds' worth), refilling ten a second. Two quiet
    // seconds would bank 20 more than the burst if the bucket were not capped.
    const { offered, seconds, settings } = await crowdAfterQuiet({ admitPerMinute: 600 }, 2_000);
    expect(settings.admitBurst).toBe(burstFor(600));
    expect(offered).toBeLessThanOrEqual(burstFor(600) + Math.ceil(10 * seconds) + 1);
    expect(offered).toBeGreaterThanOrEqual(burstFor(600) - 1);
  });

  it('holds a burst the operator set', async () => {
    const { offered, seconds, settings } = await crowdAfterQuiet({ admitPerMinute: 600, admitBurst: 7 }, 1_500);
    expect(settings.admitBurst).toBe(7);
    expect(offered).toBeLessThanOrEqual(7 + Math.ceil(10 * seconds) + 1);
  });

  it('keeps a room-wide burst of a few seconds at any rate', () => {
    expect([1, 12, 120, 600, 60_000].map(burstFor)).toEqual([1, 1, 10, 50, 5_000]);
  });
});
