/**
 * The cinema's turn history (turn-history.ts, lua/history-1.lua) on every store adapter (see
 * stores.ts): rooms that saw enough turns put their mean in, the oldest entries go beyond the
 * limit, and a room opened to a crowd before any turn of its own ended is told the wait from
 * how long turns lasted elsewhere, where it was told the configured rate before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { Redis } from 'ioredis';
import { createIoredisStore } from '../src/ioredis-store';
import { createRoomEngine, type RoomEngine } from '../src/room-engine';
import { runScript } from '../src/store';
import { scripts } from '../src/scripts.gen';
import { readReply } from '../src/reply-fields';
import { entriesFromList } from '../src/turn-history';
import { startPrivateRedis, type PrivateRedis } from './redis-servers';
import { allFactories, type StoreHandle } from './stores';
import { fastRoom, nextShowtimeId, ok, sleep } from './helpers';

/** Rounds of three turns (the rooms here have capacity 3), each held about `holdMs` from claim to release. */
async function turns(room: RoomEngine, show: string, rounds: number, holdMs: number) {
  for (let round = 0; round < rounds; round++) {
    const buyers = Array.from({ length: 3 }, (_, i) => `r${round}-${i}`);
    for (const c of buyers) ok(await room.join(show, c));
    for (const c of buyers) ok(await room.claim(show, c));
    await sleep(holdMs);
    for (const c of buyers) ok(await room.release(show, c));
  }
}

const selected = process.env.QUEUE_STORES?.split(',');
const factories = allFactories.filter((f) => !selected || selected.includes(f.name.split(' ')[0]!));

describe.each(factories)('turn history on $name', (factory) => {
  let handle: StoreHandle;
  beforeAll(async () => {
    handle = await factory.open(testRedisUrl());
  });
  afterAll(async () => {
    await handle?.close();
  });
  // Each test its own cinema: the history is one key per prefix.
  const cinema = () => testRedisNamespace('turns');

  it("a crowd at an opening is told the wait from the turns of the cinema's other rooms, not from the configured rate", async () => {
    const prefix = cinema();
    const ticker = createRoomEngine({ store: handle.store, keyPrefix: prefix });
    const past = nextShowtimeId();
    ok(await ticker.configure(past, { ...fastRoom, capacity: 3 }));
    await turns(ticker, past, 2, 400);
    expect(await ticker.recordTurns(past)).toEqual({ ok: true, recorded: true });
    expect(ok(await ticker.stats(past))).toMatchObject({ turnMs: expect.any(Number), turnFrom: 'room' });
    // Three turns say too little about a room to go into the history.
    const brief = nextShowtimeId();
    ok(await ticker.configure(brief, { ...fastRoom, capacity: 3 }));
    await turns(ticker, brief, 1, 50);
    expect(await ticker.recordTurns(brief)).toEqual({ ok: true, recorded: false });
    expect(await ticker.recordTurns('bad id!')).toMatchObject({ ok: false, code: 'invalid_input' });
    const prior = (await ticker.turnPrior())!;
    expect(prior).toBeGreaterThanOrEqual(390);
    expect(prior).toBeLessThan(1_500);

    // Another process of the same cinema, and one of a cinema with no history.
    const edge = createRoomEngine({ store: handle.store, keyPrefix: prefix });
    const elsewhere = createRoomEngine({ store: handle.store, keyPrefix: cinema() });
    expect(await edge.turnPrior()).toBe(prior);
    expect(await elsewhere.turnPrior()).toBeNull();
    for (const [room, expectPrior] of [
      [edge, true],
      [elsewhere, false],
    ] as const) {
      const opening = nextShowtimeId();
      ok(await room.configure(opening, { ...fastRoom, capacity: 2 })); // 1,000 a second configured
      const crowd = await Promise.all(
        Array.from({ length: 12 }, (_, i) => room.join(opening, `c${i}`)).map(async (p) => ok(await p)),
      );
      const waiting = crowd.filter((s) => s.state === 'waiting');
      expect(waiting.length).toBeGreaterThanOrEqual(9);
      for (const standing of waiting) {
        // Two slots, each taken about prior + half a poll: position p waits ~p × (prior + 500) / 2.
        if (expectPrior)
          expect(standing.etaMs!).toBeGreaterThanOrEqual(Math.floor(((standing.position! - 1) * prior) / 2));
        else expect(standing.etaMs!).toBeLessThan(100);
      }
      // The snapshot the edge answers from carries it too, and operators see where it came from.
      expect(ok(await room.snapshot(opening)).snapshot.learning.priorTurnMs).toBe(expectPrior ? prior : null);
      expect(ok(await room.stats(opening))).toMatchObject(
        expectPrior ? { turnMs: prior, turnFrom: 'history' } : { turnMs: null, turnFrom: null },
      );
    }
  });

  it('keeps one entry per room, replaced on each record, and drops the oldest beyond the limit', async () => {
    const key = createRoomEngine({ store: handle.store, keyPrefix: cinema() }).keys.turnHistory;
    const history = (...args: (string | number)[]) => runScript(handle.store, scripts.history, [key], args);
    const list = async () =>
      entriesFromList(readReply('history', await history('list')).rest).sort((a, b) => a.atMs - b.atMs);
    expect(await list()).toEqual([]);
    for (let i = 1; i <= 5; i++)
      expect(readReply('history', await history('record', `s${i}`, 1_000 * i, 10, 1_000 + i, 3)).rest).toEqual([
        Math.min(i, 3),
      ]);
    expect((await list()).map((e) => e.showtimeId)).toEqual(['s3', 's4', 's5']);
    await history('record', 's3', 7_000, 12, 2_000, 3);
    expect(await list()).toEqual([
      { showtimeId: 's4', meanTurnMs: 4_000, turns: 10, atMs: 1_004 },
      { showtimeId: 's5', meanTurnMs: 5_000, turns: 10, atMs: 1_005 },
      { showtimeId: 's3', meanTurnMs: 7_000, turns: 12, atMs: 2_000 },
    ]);
  });
});

describe('turn history when Redis restarts empty', () => {
  let server: PrivateRedis;
  let client: Redis;
  beforeAll(async () => {
    server = await startPrivateRedis();
    client = new Redis(`redis://127.0.0.1:${server.ports[0]}`);
  });
  afterAll(async () => {
    client?.disconnect();
    await server?.stop();
  });

  it('goes with the rest: estimates fall back to the configured rate without an error, and the history fills again', async () => {
    const cinema = createRoomEngine({ store: createIoredisStore(client) });
    ok(await cinema.configure('past', { ...fastRoom, capacity: 3 }));
    await turns(cinema, 'past', 2, 300);
    expect(await cinema.recordTurns('past')).toEqual({ ok: true, recorded: true });
    const prior = (await cinema.turnPrior())!;
    expect(prior).toBeGreaterThanOrEqual(290);

    await server.restart();
    // ioredis reconnects; the history did not survive, and reading it says so (no error).
    expect(await cinema.turnPrior()).toBeNull();
    ok(await cinema.configure('opening', { ...fastRoom, capacity: 2 }));
    const crowd = await Promise.all(
      Array.from({ length: 8 }, (_, i) => cinema.join('opening', `c${i}`)).map(async (p) => ok(await p)),
    );
    for (const standing of crowd.filter((s) => s.state === 'waiting')) expect(standing.etaMs!).toBeLessThan(100);
    expect(ok(await cinema.stats('opening'))).toMatchObject({ turnFrom: null, turnMs: null });

    // A room that learns its turns again puts them back.
    ok(await cinema.configure('again', { ...fastRoom, capacity: 3 }));
    await turns(cinema, 'again', 2, 300);
    expect(await cinema.recordTurns('again')).toEqual({ ok: true, recorded: true });
    expect(await cinema.turnPrior()).toBeGreaterThanOrEqual(290);
  });
});
