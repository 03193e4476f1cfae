import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { Redis } from 'ioredis';
import { bookingEventsStreamKey, decodeBookingEvent } from '../../../lib/booking-events';
import { checkInvariants } from '../../../loadtest/invariants';
import { startPrivateRedis, type PrivateRedis } from '../../../queue/test/redis-servers';
import type { RoomEngine } from '../../../queue/src/index';
import type { EdgeMetrics } from '../../../edge/src/metrics';
import { createBookingEventsConsumer } from '../../../edge/src/rooms/booking-events-consumer';
import { createRedisEdgeStore } from '../../../edge/src/state/edge-store';
import { isolatedDatabase } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { redisStreamSink } from '../../src/events/event-sink';
import { relayWithRecovery } from '../../src/jobs/outbox-relay';
import { unique } from '../core-harness';
import { createPaymentHarness, type PaymentHarness } from '../payment-harness';

/**
 * Booking events survive a Redis that loses data. The outbox keeps what it published for a
 * retention period; the relay notices a stream whose history is gone (its epoch key vanished)
 * and publishes the retained events again, and a consumer that finds the stream behind the
 * position it had read (restored from an older snapshot) asks for a republish from there.
 * A private redis-server is restarted empty, as a Redis without persistence is.
 */
let sql: Sql;
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let h: PaymentHarness;
let server: PrivateRedis;
let redis: Redis;
const released: string[] = [];
let consumer: ReturnType<typeof createBookingEventsConsumer>;

beforeAll(async () => {
  database = await isolatedDatabase('eventloss');
  sql = connectDatabase(database.url, { max: 6, applicationName: 'test-event-loss' });
  h = await createPaymentHarness(sql);
  server = await startPrivateRedis();
  redis = new Redis({ port: server.ports[0]!, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  redis.on('error', () => {}); // the restarts below are on purpose
  // The edge's consumer, against a room engine that only records what it is told.
  const engine = {
    release: async (_showtimeId: string, customerId: string) => {
      released.push(customerId);
      return { ok: true, freed: true };
    },
    markSoldOut: async () => ({ ok: true }),
  } as unknown as RoomEngine;
  consumer = createBookingEventsConsumer({
    edgeStore: createRedisEdgeStore((args) => redis.call(args[0]!, ...args.slice(1))),
    engine,
    metrics: { bookingEvents: { inc() {} } } as unknown as EdgeMetrics,
    consumerName: 'test',
  });
});
afterAll(async () => {
  await consumer?.stop();
  redis?.disconnect();
  await server?.stop();
  await h?.close();
  await sql?.end({ timeout: 1 });
  await database?.drop();
});
beforeEach(() => {
  released.length = 0;
});

const sink = () => redisStreamSink(redis, { keyPrefix: '' }); // a private server: no namespace needed
/** One relay process: it remembers what it published last, as the core's relay does. */
let relayInstance: ReturnType<typeof sink> | null = null;
const relay = () => relayWithRecovery(sql, (relayInstance ??= sink()));

/** Books `count` buyers on a fresh showtime (a held seat each, paid through a signed callback). */
async function bookings(count: number) {
  const { showtimeId } = await h.core.createShowtime({ layout: { rows: 2, columns: 10 } });
  const customers: string[] = [];
  for (let i = 0; i < count; i++) {
    const customerId = unique('paid');
    const hold = await h.core.hold(showtimeId, customerId, [`A${i + 1}`]);
    const paymentId = await h.fakePayment({ holdId: hold.json.holdId, showtimeId, customerId });
    expect((await h.postCallback(h.signedCallback({ type: 'payment.succeeded', paymentId }))).json.outcome).toBe(
      'booked',
    );
    customers.push(customerId);
  }
  return { showtimeId, customers };
}

async function streamEventIds(): Promise<Set<string>> {
  const entries = (await redis.xrange(bookingEventsStreamKey(), '-', '+')) as [string, string[]][];
  return new Set(entries.map(([, fields]) => decodeBookingEvent(fields)!.eventId));
}

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

it('Redis restarted empty: the relay publishes the retained events again, verify passes, the consumer gets them', async () => {
  const { showtimeId, customers } = await bookings(3);
  await relay();
  await consumer.pumpOnce();
  expect(new Set(released)).toEqual(new Set(customers));
  expect((await checkInvariants(sql, { showtimeIds: [showtimeId], redis: { client: redis } })).breaches).toEqual([]);

  await server.restart(); // nothing kept on disk: stream, cursor, dedupe marks and epoch are gone
  released.length = 0;
  const lost = await whenConnected(() => checkInvariants(sql, { showtimeIds: [showtimeId], redis: { client: redis } }));
  expect(lost.breaches.join()).toContain('missing from the stream'); // what loadtest:verify reported

  const republished = await whenConnected(relay);
  expect(republished).toBeGreaterThanOrEqual(3 * 2); // bookings' events at least (holds, confirmations, releases)
  expect((await checkInvariants(sql, { showtimeIds: [showtimeId], redis: { client: redis } })).breaches).toEqual([]);
  const [outboxIds] = await sql<
    { ids: string[] }[]
  >`SELECT array_agg(event_id::text) AS ids FROM outbox WHERE showtime_id = ${showtimeId}`;
  const inStream = await streamEventIds();
  expect(outboxIds!.ids.filter((id) => !inStream.has(id))).toEqual([]);
  await whenConnected(() => consumer.pumpOnce());
  expect(new Set(released)).toEqual(new Set(customers));
  // Once recovered, the next pass publishes nothing more.
  expect(await relay()).toBe(0);
});

it('a stream restored behind the consumer: the consumer asks, the relay republishes what it had missed', async () => {
  relayInstance = sink(); // a relay process started after the rollback knows nothing it published
  const first = await bookings(2);
  await relay();
  await consumer.pumpOnce();
  const key = bookingEventsStreamKey();
  const snapshot = (await redis.xrange(key, '-', '+')) as [string, string[]][];
  const second = await bookings(2);
  await relay(); // published to the stream, but Redis goes back to the snapshot before the consumer reads it
  relayInstance = sink(); // and the relay restarts with it, so only the consumer can notice
  const consumedUpTo = snapshot.at(-1)![0];
  await redis.del(key);
  for (const [id, fields] of snapshot.slice(0, Math.max(1, snapshot.length - 3))) await redis.xadd(key, id, ...fields);
  expect((await redis.xrevrange(key, '+', '-', 'COUNT', 1))[0]![0] < consumedUpTo).toBe(true);
  released.length = 0;

  await consumer.pumpOnce(); // nothing after its position: it notices the stream is behind and asks
  expect(await redis.zcard('booking-events:republish')).toBe(1);
  await relay();
  expect(await redis.zcard('booking-events:republish')).toBe(0);
  await consumer.pumpOnce();
  expect(released).toEqual(expect.arrayContaining(second.customers));
  expect(first.customers.length).toBe(2);
});

it('Redis back from an older append-only file: the relay sees the stream end before its own last entry and republishes', async () => {
  relayInstance = sink();
  await bookings(1);
  await relay();
  const key = bookingEventsStreamKey();
  const before = (await redis.xrange(key, '-', '+')) as [string, string[]][];
  const later = await bookings(2);
  await relay(); // these entries are lost: Redis comes back from a file written before them
  await redis.del(key);
  for (const [id, fields] of before) await redis.xadd(key, id, ...fields);
  const lostIds = new Set(
    (
      await sql<{ event_id: string }[]>`
    SELECT event_id::text FROM outbox WHERE showtime_id = ${later.showtimeId}`
    ).map((r) => r.event_id),
  );
  expect([...lostIds].some((id) => !before.some(([, fields]) => fields.includes(id)))).toBe(true);

  await relay(); // the epoch key survived; the relay's own position tells it the stream went back
  const inStream = await streamEventIds();
  expect([...lostIds].filter((id) => !inStream.has(id))).toEqual([]);
  expect(await relay()).toBe(0);
});
