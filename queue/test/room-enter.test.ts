/**
 * `enter`, the join that answers with the buyer's place only (lua/enter-11.lua), against
 * every store adapter (see stores.ts): it joins exactly as `join` does, and its place is the
 * one `join` and `poll` report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { createRoomEngine } from '../src/room-engine';
import { allFactories, type StoreHandle } from './stores';
import { fastRoom, nextShowtimeId, ok } from './helpers';

const selected = process.env.QUEUE_STORES?.split(',');
const factories = allFactories.filter((f) => !selected || selected.includes(f.name.split(' ')[0]!));

describe.each(factories)('enter on $name', (factory) => {
  let handle: StoreHandle;
  beforeAll(async () => {
    handle = await factory.open(testRedisUrl());
  });
  afterAll(async () => {
    await handle?.close();
  });
  const engine = () => createRoomEngine({ store: handle.store, keyPrefix: testRedisNamespace('enter') });

  it('enter joins as join does and answers with the place alone: the same place, ticket and position, and every refusal', async () => {
    const room = engine();
    const show = nextShowtimeId();
    expect(await room.enter(show, 'a')).toMatchObject({ ok: false, code: 'unknown_room' });
    ok(await room.configure(show, { ...fastRoom, capacity: 1, placesPerAddress: 2 }));
    const a = ok(await room.enter(show, 'a', '198.51.100.1'));
    expect(a).toMatchObject({ state: 'offered', position: null, roomState: 'open' });
    expect(a.offerExpiresAtMs).toBeGreaterThan(a.nowMs);
    const b = ok(await room.enter(show, 'b', '198.51.100.1'));
    expect(b).toEqual({
      ok: true,
      state: 'waiting',
      ticket: a.ticket! + 1,
      position: 1,
      offerExpiresAtMs: null,
      sessionExpiresAtMs: null,
      roomState: 'open',
      nowMs: expect.any(Number),
    });
    // The address has taken its two places; a re-join keeps the place and is not counted.
    expect(await room.enter(show, 'c', '198.51.100.1')).toMatchObject({ ok: false, code: 'address_cap' });
    expect(ok(await room.enter(show, 'b', '198.51.100.1'))).toMatchObject({ ticket: b.ticket, position: 1 });
    // join and poll see the same place.
    const c = ok(await room.join(show, 'c'));
    expect(ok(await room.enter(show, 'c'))).toMatchObject({ state: 'waiting', ticket: c.ticket, position: c.position });
    expect(ok(await room.poll(show, 'b'))).toMatchObject({ state: 'waiting', ticket: b.ticket, position: 1 });
    ok(await room.claim(show, 'a'));
    expect(ok(await room.enter(show, 'a'))).toMatchObject({
      state: 'admitted',
      ticket: a.ticket,
      position: null,
      sessionExpiresAtMs: expect.any(Number),
    });
    ok(await room.configure(show, { state: 'paused' }));
    expect(ok(await room.enter(show, 'b'))).toMatchObject({ state: 'paused', position: 1, roomState: 'paused' });
    const scheduled = nextShowtimeId();
    ok(await room.configure(scheduled, { ...fastRoom, state: 'scheduled', opensAtMs: Date.now() + 3_600_000 }));
    expect(ok(await room.enter(scheduled, 'p1'))).toMatchObject({
      state: 'prequeue',
      ticket: null,
      position: null,
      roomState: 'scheduled',
    });
    ok(await room.configure(show, { state: 'sold_out' }));
    expect(await room.enter(show, 'd')).toMatchObject({ ok: false, code: 'sold_out' });
    expect(await room.enter(show, 'bad id!')).toMatchObject({ ok: false, code: 'invalid_input' });
  });
});
