import { afterEach, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { Redis } from 'ioredis';
import { bookingEventsStreamKey, decodeBookingEvent } from '../../../lib/booking-events';
import { startPrivateRedis, type PrivateRedis } from '../../../queue/test/redis-servers';
import { fastRoom, ok } from '../../../queue/test/helpers';
import { createIoredisStore, createRoomEngine, type RoomEngine } from '../../../queue/src/index';
import type { EdgeMetrics } from '../../../edge/src/metrics';
import { createBookingEventsConsumer } from '../../../edge/src/rooms/booking-events-consumer';
import { createRedisEdgeStore, type EdgeStore } from '../../../edge/src/state/edge-store';
import { isolatedDatabase, testRedisNamespace, testRedisUrl } from '../../../test/support/env';
import { createGateEventsConsumer } from '../../src/gate/gate-events';
import type { SeatGate } from '../../src/gate/seat-gate';
import { connectDatabase } from '../../src/db/connect';
import { redisStreamSink } from '../../src/events/event-sink';
import { relayWithRecovery, type RelayOptions } from '../../src/jobs/outbox-relay';
import { insertRetainedOutbox } from './retained-outbox';

/**
 * Catch-up after Redis restarts empty, with a retained day far larger than one relay pass:
 * the live sale's booking must free its slot after a bounded number of replayed entries, not
 * after the whole backlog. Counted in stream entries the edge read before the live release
 * (never in seconds): the relay and the edge take turns, a pass then a read, as their timers
 * do. The old way (everything requeued oldest first, applied one by one) is the broken variant.
 */
const BACKLOG = 12_000;
const LIVE_SHOWTIME = '990001';
/** Two passes of replayed rows (2,000 each) and the batches around them: well under the backlog. */
const ENTRIES_BEFORE_LIVE_BOUND = 5_000;

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

class OverBudget extends Error {}

/** Retries while the client reconnects to the restarted server. */
async function whenConnected<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt > 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function setUp() {
  const database = await isolatedDatabase('catchup');
  const sql: Sql = connectDatabase(database.url, { max: 4, applicationName: 'test-catch-up' });
  closers.push(
    () => database.drop(),
    () => sql.end({ timeout: 1 }),
  );
  const server: PrivateRedis = await startPrivateRedis();
  closers.push(() => server.stop());
  const redis = new Redis({ port: server.ports[0]!, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  redis.on('error', () => {}); // the restart below is on purpose
  closers.push(async () => redis.disconnect());
  await insertRetainedOutbox(sql, { rows: BACKLOG, showtimes: 40, spreadMs: 6 * 3_600_000 });
  return { sql, server, redis };
}

/** A capacity-1 room: A holds the one admission, B waits for it. */
async function liveRoom(engine: RoomEngine) {
  ok(await engine.configure(LIVE_SHOWTIME, { ...fastRoom, capacity: 1 }));
  ok(await engine.join(LIVE_SHOWTIME, 'live-a'));
  ok(await engine.tick(LIVE_SHOWTIME));
  ok(await engine.claim(LIVE_SHOWTIME, 'live-a'));
  ok(await engine.join(LIVE_SHOWTIME, 'live-b'));
  expect(ok(await engine.stats(LIVE_SHOWTIME))).toMatchObject({ active: 1, waiting: 1 });
}

/**
 * Restarts Redis empty mid-sale, then runs relay passes and edge reads in turn; the live
 * booking commits after the first pass (while the replay runs). Returns how many stream entries
 * the edge had read when the live booking freed A's slot, or null if it had not within the budget.
 */
async function catchUp(variant: { relay: RelayOptions; applyOneByOne: boolean }) {
  const { sql, server, redis } = await setUp();
  const sink = redisStreamSink(redis, { keyPrefix: '' });
  const relay = () => relayWithRecovery(sql, sink, { replayBatchSize: 500, ...variant.relay });
  // Before the crash: the retained rows were published once and the epoch planted.
  await relay();
  await server.restart();

  const engine = createRoomEngine({ store: createIoredisStore(redis), keyPrefix: '' });
  await whenConnected(() => liveRoom(engine));
  let read = 0;
  const store = createRedisEdgeStore((args) => redis.call(args[0]!, ...args.slice(1)));
  const counting: EdgeStore = {
    ...store,
    async readEvents(afterId, count) {
      if (read >= ENTRIES_BEFORE_LIVE_BOUND) throw new OverBudget();
      const entries = await store.readEvents(afterId, count);
      read += entries.length;
      return entries;
    },
  };
  let readAtLiveRelease: number | null = null;
  const watching: RoomEngine = {
    ...engine,
    async release(showtimeId, customerId) {
      if (customerId === 'live-a') readAtLiveRelease ??= read;
      return engine.release(showtimeId, customerId);
    },
  };
  const consumer = createBookingEventsConsumer({
    edgeStore: counting,
    engine: watching,
    metrics: { bookingEvents: { inc() {} } } as unknown as EdgeMetrics,
    applyOneByOne: variant.applyOneByOne,
  });

  await relay(); // finds the epoch gone: the catch-up starts
  for (let round = 0; round < 30 && readAtLiveRelease === null; round++) {
    try {
      await consumer.pumpOnce();
    } catch (error) {
      if (error instanceof OverBudget) break;
      throw error;
    }
    if (round === 0) {
      await sql`INSERT INTO outbox (type, showtime_id, payload) VALUES ('BookingConfirmed', ${Number(LIVE_SHOWTIME)}, ${sql.json({ customerId: 'live-a', bookingId: 'live-1' })})`;
    }
    await relay();
  }
  return { sql, redis, engine, relay, readAtLiveRelease };
}

describe('catch-up after Redis restarts empty with a large retained outbox', () => {
  it('the live booking frees its slot after a bounded number of replayed entries; the rest of the day follows', async () => {
    const { sql, redis, engine, relay, readAtLiveRelease } = await catchUp({ relay: {}, applyOneByOne: false });
    expect(readAtLiveRelease).not.toBeNull();
    expect(readAtLiveRelease!).toBeLessThan(ENTRIES_BEFORE_LIVE_BOUND);
    expect(ok(await engine.stats(LIVE_SHOWTIME))).toMatchObject({ active: 0, released: 1 });
    ok(await engine.tick(LIVE_SHOWTIME));
    expect(ok(await engine.stats(LIVE_SHOWTIME)).offered).toBe(1); // B is offered the slot

    // Nothing is lost: further passes bring the whole retained day, each event at least once.
    for (let pass = 0; pass < 20 && (await relay()) > 0; pass++);
    const entries = (await redis.xrange(bookingEventsStreamKey(), '-', '+')) as [string, string[]][];
    const inStream = new Set(entries.map(([, fields]) => decodeBookingEvent(fields)!.eventId));
    const [all] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM outbox`;
    expect(inStream.size).toBe(all!.n);
    expect(await relay()).toBe(0);
  });

  it('broken variant: requeued oldest first and applied one by one, the live booking waits behind the whole backlog', async () => {
    const { readAtLiveRelease } = await catchUp({ relay: { catchUp: 'oldest-first' }, applyOneByOne: true });
    expect(readAtLiveRelease).toBeNull();
  });
});

it('a relay that dies mid-replay: the next one goes on from where it got, nothing sent twice', async () => {
  const { sql, redis } = await setUp();
  // A fresh Redis has no epoch: the first pass starts the replay of the retained day.
  expect(await relayWithRecovery(sql, redisStreamSink(redis, { keyPrefix: '' }))).toBe(2_000);
  const restarted = redisStreamSink(redis, { keyPrefix: '' }); // another process, nothing in memory
  for (let pass = 0; pass < 20 && (await relayWithRecovery(sql, restarted)) > 0; pass++);
  const entries = (await redis.xrange(bookingEventsStreamKey(), '-', '+')) as [string, string[]][];
  expect(new Set(entries.map(([, fields]) => decodeBookingEvent(fields)!.eventId)).size).toBe(BACKLOG);
  expect(entries.length).toBe(BACKLOG);
});

it('the seat gate, rebuilt from the database, skips replayed entries (out of order they could sell a refunded seat again)', async () => {
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
  closers.push(async () => redis.disconnect());
  const keyPrefix = testRedisNamespace('gate-replay');
  const applied: string[] = [];
  const gate = {
    scripts: { keys: { gateEventsCursor: `${keyPrefix}gate-cursor` } },
    applyOps: async (_showtimeId: number, _ops: unknown, eventId: string) => void applied.push(eventId),
  } as unknown as SeatGate;
  const consumer = createGateEventsConsumer({ redis, gate, keyPrefix });
  await consumer.pumpOnce(); // plants the cursor at the stream's end
  const sink = redisStreamSink(redis, { keyPrefix });
  const sold = (eventId: string) => ({
    eventId,
    type: 'BookingConfirmed' as const,
    showtimeId: 7,
    occurredAt: new Date().toISOString(),
    payload: { bookingId: `b-${eventId}`, customerId: 'c', seats: ['A1'] },
  });
  await sink.publish([sold('replayed-1')], { replayed: true });
  await sink.publish([sold('live-1')]);
  await consumer.pumpOnce();
  expect(applied).toEqual(['live-1']);
});
