/**
 * Every script answers with the fields src/reply-fields.ts names, and the in-process twin
 * answers with the same shape as the Lua script on Redis: the same scenario runs on both,
 * every script reply is recorded, and each reply is reduced to the kind of each field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { createFairnessJournal } from '../src/fairness-journal';
import { createPurchaseBuckets } from '../src/purchase-buckets';
import { REPLY_FIELDS } from '../src/reply-fields';
import { createRoomEngine } from '../src/room-engine';
import { createSeatGateScripts } from '../src/seat-gate';
import { scripts, type ScriptName } from '../src/scripts.gen';
import type { ScriptStore } from '../src/store';
import { fastRoom, nextShowtimeId, ok } from './helpers';
import { ioredisFactory, memoryFactory, type StoreHandle } from './stores';

type Recorded = { name: ScriptName; reply: unknown };

/** The store, with every script reply kept (name and raw value) in `calls`. */
function recording(store: ScriptStore) {
  // By the generated module's key (camelCase: `gate-claim-5.lua` is `gateClaim`), the name reply-fields.ts uses.
  const bySha = new Map<string, ScriptName>(Object.entries(scripts).map(([name, s]) => [s.sha1, name as ScriptName]));
  const bySource = new Map<string, ScriptName>(
    Object.entries(scripts).map(([name, s]) => [s.source, name as ScriptName]),
  );
  const calls: Recorded[] = [];
  const keep = async (name: ScriptName | undefined, run: Promise<unknown>) => {
    const reply = await run;
    if (name) calls.push({ name, reply });
    return reply;
  };
  const wrapped: ScriptStore = {
    evalsha: (sha1, keys, args) => keep(bySha.get(sha1), store.evalsha(sha1, keys, args)),
    eval: (source, keys, args) => keep(bySource.get(source), store.eval(source, keys, args)),
    scriptLoad: (source) => store.scriptLoad(source),
  };
  return { store: wrapped, calls };
}

/** One pass through every script: a room from opening draw to release, leave and buckets. */
async function scenario(store: ScriptStore) {
  const keyPrefix = testRedisNamespace('shapes');
  const room = createRoomEngine({ store, keyPrefix, drawChunk: 2 });
  const buckets = createPurchaseBuckets({ store, keyPrefix });
  const show = nextShowtimeId();
  await room.join(show, 'nobody'); // refused: unknown room
  ok(await room.configure(show, { ...fastRoom, capacity: 1 }));
  ok(await room.join(show, 'a'));
  ok(await room.join(show, 'b'));
  ok(await room.enter(show, 'b'));
  ok(await room.enter(show, 'c'));
  await room.enter(nextShowtimeId(), 'c'); // refused: unknown room
  ok(await room.poll(show, 'b'));
  ok(await room.findTicket(show, 2)); // b waits with ticket 2
  ok(await room.findTicket(show, 99)); // no one
  await room.findTicket(nextShowtimeId(), 1); // refused: unknown room
  await room.claim(show, 'b'); // refused: not offered
  ok(await room.claim(show, 'a'));
  ok(await buckets.takePurchaseTokens(show, 'a', 1, { requireAdmission: true }));
  await buckets.takePurchaseTokens(show, 'b', 1, { requireAdmission: true }); // refused: not admitted
  ok(await room.tick(show));
  ok(await room.restoreTurns(show, [{ customerId: 'r', ticket: 7, expiresAtMs: Date.now() + 60_000 }]));
  await room.restoreTurns(nextShowtimeId(), [{ customerId: 'r', ticket: 1, expiresAtMs: Date.now() + 60_000 }]); // refused: unknown room
  ok(await room.govern(show, { ctlRate: 30, ctlCap: -1, ctlUntilMs: Date.now() + 60_000, ctlReason: 'healthy' }));
  await room.govern(nextShowtimeId(), { ctlRate: 30 }); // refused: unknown room
  ok(await room.release(show, 'a'));
  ok(await room.leave(show, 'b'));
  ok(await room.stats(show));
  // A scheduled room whose pre-queue is drawn in chunks when it opens.
  const scheduled = nextShowtimeId();
  ok(await room.configure(scheduled, { ...fastRoom, state: 'scheduled', opensAtMs: Date.now() + 3_600_000 }));
  for (const customer of ['p1', 'p2', 'p3', 'p4', 'p5']) ok(await room.join(scheduled, customer));
  ok(await room.configure(scheduled, { state: 'open' }));
  ok(await room.poll(scheduled, 'p1'));
  await room.listRooms();
  // The fairness journal the steps above wrote: read, then trimmed up to what was read.
  const journal = createFairnessJournal({ store, keyPrefix });
  const { entries } = await journal.read(show, 100);
  await journal.trim(show, entries.at(-1)!.epoch, entries.at(-1)!.seq);
  // The seat gate: refused before it is built, then every decision of a claim.
  const gate = createSeatGateScripts({ store, keyPrefix });
  await gate.claim(show, 'a', 'h0', ['A1']); // refused: not built
  await gate.apply(show, [{ op: 'free', seat: 'A1' }]); // refused: not built
  await gate.sync(show, {
    maxPerCustomer: 2,
    holdTtlMs: 60_000,
    pendingGraceMs: 1_000,
    keyTtlMs: 60_000,
    seats: ['A1', 'A2', 'A3'].map((seat) => ({ seat, state: 'A' as const })),
  });
  await gate.claim(show, 'a', 'h1', ['A1']); // claimed
  await gate.claim(show, 'b', 'h2', ['A1', 'A2']); // taken
  await gate.claim(show, 'a', 'h3', ['A2', 'A3']); // over the limit
  await gate.claim(show, 'b', 'h4', ['Z9']); // unknown seat
  await gate.apply(show, [{ op: 'sold', seat: 'A1', bookingId: 'b1', customerId: 'a' }], { eventId: 'e1' });
  await gate.release(show, 'h2', ['A1', 'A2']);
}

/** A reply reduced to what must agree: the kind of each position, lists recursively. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'fraction';
  return typeof value;
}

const isRefusal = (reply: unknown) => Array.isArray(reply) && Number(reply[0]) < 0;

describe('script replies', () => {
  const handles: StoreHandle[] = [];
  const runs: Record<'lua' | 'twin', Recorded[]> = { lua: [], twin: [] };
  beforeAll(async () => {
    for (const [side, factory] of [
      ['lua', ioredisFactory],
      ['twin', memoryFactory],
    ] as const) {
      const handle = await factory.open(testRedisUrl());
      handles.push(handle);
      const recorder = recording(handle.store);
      await scenario(recorder.store);
      runs[side] = recorder.calls;
    }
  });
  afterAll(async () => {
    for (const handle of handles) await handle.close();
  });

  it('the scenario runs every script on both sides', () => {
    const all = Object.keys(scripts).sort();
    expect([...new Set(runs.lua.map((c) => c.name))].sort()).toEqual(all);
    expect([...new Set(runs.twin.map((c) => c.name))].sort()).toEqual(all);
  });

  it.each(Object.keys(scripts) as ScriptName[])(
    '%s answers with the named fields, on Redis and on the twin alike',
    (name) => {
      const lua = runs.lua.filter((c) => c.name === name).map((c) => c.reply);
      const twin = runs.twin.filter((c) => c.name === name).map((c) => c.reply);
      expect(twin.map(shape)).toEqual(lua.map(shape));
      const layout = REPLY_FIELDS[name];
      const fixed = (layout.status ? 1 : 0) + layout.fields.length;
      for (const reply of lua) {
        expect(Array.isArray(reply)).toBe(true);
        if (isRefusal(reply)) {
          expect(reply).toHaveLength(1);
          continue;
        }
        if (layout.rest === null) expect(reply).toHaveLength(fixed);
        else expect((reply as unknown[]).length).toBeGreaterThanOrEqual(fixed);
        if (layout.status) expect((reply as unknown[])[0]).toBe(1);
      }
    },
  );
});
