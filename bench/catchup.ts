/**
 * `npm run bench -- catchup [oldest-first]`: how long after Redis restarts empty the edge is
 * back at the live sale. A throwaway database holds a retained day of 50,000 published outbox
 * rows over 200 showtimes; a private redis-server carries the stream; the core's relay runs
 * every 200 ms and the edge's booking-events consumer every 200 ms (their defaults), in
 * process, against a real room engine. A live sale books a buyer every 50 ms throughout. Mid-
 * sale Redis is restarted empty; bookings keep committing while it is away.
 *
 * Figure: `catch-up to live` = from the relay's republish request (the pass that finds the
 * stream's history gone) until the edge has applied every live booking committed before it
 * (those lost with the stream and those that waited in the outbox). Also when the whole
 * retained day is back in the stream, and the largest delay from commit to apply of the live
 * bookings committed after the request, until then.
 * Physical limit, same run, same server: the raw XADD (pipelined, 500 a batch) and XREAD (500 a
 * read) of the same number of entries with the same fields: moving the retained day through
 * Redis and nothing else. `oldest-first` runs the old catch-up (everything requeued oldest
 * first, applied one entry and three round trips at a time), capped at 120 s.
 */
import { Redis } from 'ioredis';
import {
  bookingEventsEpochKey,
  bookingEventsStreamKey,
  encodeBookingEvent,
  type BookingEvent,
} from '../lib/booking-events';
import type { EdgeMetrics } from '../edge/src/metrics';
import { createBookingEventsConsumer } from '../edge/src/rooms/booking-events-consumer';
import { createRedisEdgeStore } from '../edge/src/state/edge-store';
import { redisStreamSink } from '../core/src/events/event-sink';
import { relayWithRecovery } from '../core/src/jobs/outbox-relay';
import { insertRetainedOutbox } from '../core/test/events/retained-outbox';
import { createIoredisStore, createRoomEngine, type RoomEngine } from '../queue/src/index';
import { startPrivateRedis } from '../queue/test/redis-servers';
import { createBenchDatabase } from './lib/bench-db';

const RETAINED = 50_000;
const SHOWTIMES = 200;
const LIVE_SHOWTIME = 990_001;
const BOOKING_EVERY_MS = 50;
const RELAY_EVERY_MS = 200;
const EDGE_POLL_MS = 200;
const BEFORE_CRASH_MS = 2_000;
const OUTAGE_MS = 500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => (ms / 1000).toFixed(2);

export default async function catchup(args: string[]) {
  const oldestFirst = args.includes('oldest-first');
  const capMs = 120_000;
  const db = await createBenchDatabase(4);
  const server = await startPrivateRedis();
  const redis = new Redis({ port: server.ports[0]!, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  redis.on('error', () => {}); // the restart is on purpose
  try {
    await insertRetainedOutbox(db.sql, { rows: RETAINED, showtimes: SHOWTIMES, spreadMs: 23 * 3_600_000 });
    // An established stream: the epoch is there, so only the restart starts a catch-up.
    await redis.set(bookingEventsEpochKey(''), 'bench');

    const committedAt = new Map<string, number>();
    const appliedAt = new Map<string, number>();
    const engine = createRoomEngine({ store: createIoredisStore(redis), keyPrefix: '' });
    const watching: RoomEngine = {
      ...engine,
      async release(showtimeId, customerId) {
        const result = await engine.release(showtimeId, customerId);
        if (committedAt.has(customerId)) appliedAt.set(customerId, performance.now());
        return result;
      },
    };
    const consumer = createBookingEventsConsumer({
      edgeStore: createRedisEdgeStore((command) => redis.call(command[0]!, ...command.slice(1))),
      engine: watching,
      metrics: { bookingEvents: { inc() {} } } as unknown as EdgeMetrics,
      applyOneByOne: oldestFirst,
    });

    let requestAt: number | null = null;
    let stopping = false;
    const sink = redisStreamSink(redis, { keyPrefix: '' });
    const relayLoop = (async () => {
      while (!stopping) {
        await relayWithRecovery(db.sql, sink, {
          catchUp: oldestFirst ? 'oldest-first' : 'newest-first',
          onRequeue: () => (requestAt ??= performance.now()),
        }).catch(() => {}); // Redis away: the rows wait in the outbox
        await sleep(RELAY_EVERY_MS);
      }
    })();
    let booked = 0;
    const bookingLoop = (async () => {
      while (!stopping) {
        const customerId = `live-${++booked}`;
        await db.sql`INSERT INTO outbox (type, showtime_id, payload) VALUES ('BookingConfirmed', ${LIVE_SHOWTIME}, ${db.sql.json({ customerId, bookingId: `b-${booked}` })})`;
        committedAt.set(customerId, performance.now());
        await sleep(BOOKING_EVERY_MS);
      }
    })();
    consumer.start(EDGE_POLL_MS);

    await sleep(BEFORE_CRASH_MS);
    await server.restart();
    await sleep(OUTAGE_MS);
    const deadline = performance.now() + capMs;
    while (requestAt === null && performance.now() < deadline) await sleep(10);
    const owed = [...committedAt].filter(([, at]) => at < requestAt!).map(([customer]) => customer);
    const caughtUp = () => owed.every((customer) => (appliedAt.get(customer) ?? 0) > requestAt!);
    while (!caughtUp() && performance.now() < deadline) await sleep(10);
    const catchUpMs = caughtUp() ? Math.max(...owed.map((customer) => appliedAt.get(customer)!)) - requestAt! : null;
    // Live bookings go on until the whole retained day is back in the stream, and a second more.
    const bookingsKey = bookingEventsStreamKey('');
    while ((await redis.xlen(bookingsKey).catch(() => 0)) < RETAINED && performance.now() < deadline) await sleep(50);
    const replayedMs = performance.now() - requestAt!;
    await sleep(1_000);
    stopping = true;
    await Promise.all([relayLoop, bookingLoop]);
    await consumer.stop();
    const lags = [...committedAt]
      .filter(([customer, at]) => at > requestAt! && appliedAt.has(customer))
      .map(([customer, at]) => appliedAt.get(customer)! - at);

    const limitMs = await rawStreamMs(redis, RETAINED);
    console.log(
      `variant: ${oldestFirst ? 'oldest first, one by one (the old catch-up)' : 'newest first behind the live lane, batched apply'}`,
    );
    console.log(
      `retained outbox rows: ${RETAINED} over ${SHOWTIMES} showtimes; live bookings owed at the request: ${owed.length}`,
    );
    console.log(
      catchUpMs === null
        ? `catch-up to live > ${seconds(capMs)} s (not reached)`
        : `catch-up to live ${seconds(catchUpMs)} s`,
    );
    console.log(`retained day back in the stream ${seconds(replayedMs)} s after the request`);
    if (lags.length > 0)
      console.log(
        `live bookings committed after the request: ${lags.length}, commit to apply max ${seconds(Math.max(...lags))} s`,
      );
    console.log(`physical limit: raw XADD + XREAD of ${RETAINED} entries ${seconds(limitMs)} s`);
    if (catchUpMs !== null) console.log(`ratio catch-up / limit: ${(catchUpMs / limitMs).toFixed(2)}`);
  } finally {
    redis.disconnect();
    await server.stop();
    await db.drop();
  }
}

/** XADD `count` entries shaped like booking events (pipelined, 500 a batch), then XREAD them all back 500 at a time. */
async function rawStreamMs(redis: Redis, count: number): Promise<number> {
  const key = 'bench:raw-stream';
  await redis.del(key);
  const event: BookingEvent = {
    eventId: '00000000-0000-4000-8000-000000000000',
    type: 'BookingConfirmed',
    showtimeId: 1_000,
    occurredAt: new Date().toISOString(),
    payload: { customerId: 'old-1', holdId: 'hold-1', seats: ['A1'], reason: 'confirmed', bookingId: 'booking-1' },
  };
  const fields = encodeBookingEvent(event);
  const started = performance.now();
  for (let done = 0; done < count; done += 500) {
    const pipeline = redis.pipeline();
    for (let i = done; i < Math.min(count, done + 500); i++) pipeline.xadd(key, '*', ...fields);
    await pipeline.exec();
  }
  let cursor = '0';
  for (let read = 0; read < count; ) {
    const reply = (await redis.xread('COUNT', 500, 'STREAMS', key, cursor)) as [string, [string, string[]][]][] | null;
    const entries = reply?.[0]?.[1] ?? [];
    if (entries.length === 0) break;
    read += entries.length;
    cursor = entries.at(-1)![0];
  }
  const elapsed = performance.now() - started;
  await redis.del(key);
  return elapsed;
}
