import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { Redis } from 'ioredis';
import pino from 'pino';
import { isolatedDatabase, testRedisNamespace, testRedisUrl } from '../../../test/support/env';
import { bookingEventsStreamKey, decodeBookingEvent } from '../../../lib/booking-events';
import { connectDatabase } from '../../src/db/connect';
import { releasedTogether, unique } from '../core-harness';
import { createPaymentHarness, type PaymentHarness } from '../payment-harness';
import { redisStreamSink, type BookingEventSink } from '../../src/events/event-sink';
import { relayOutbox } from '../../src/jobs/outbox-relay';
import { announceSoldOutShowtimes, sweepExpiredHolds } from '../../src/jobs/sweeper';
import { compensate } from '../../src/jobs/compensation';
import { backgroundJobs } from '../../src/jobs/job-runner';

let sql: Sql;
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let redis: Redis;
let h: PaymentHarness;

beforeAll(async () => {
  database = await isolatedDatabase('jobs');
  sql = connectDatabase(database.url, { max: 16, applicationName: 'test-jobs' });
  redis = new Redis(testRedisUrl());
  h = await createPaymentHarness(sql);
});
afterAll(async () => {
  await h.close();
  await sql.end();
  await database?.drop();
  redis.disconnect();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readStream(prefix: string) {
  const entries = await redis.xrange(bookingEventsStreamKey(prefix), '-', '+');
  return entries.map(([, fields]) => decodeBookingEvent(fields)!);
}

/** Relays until nothing is left (other test files share the outbox; the stream is ours). */
async function drain(sink: BookingEventSink) {
  while ((await relayOutbox(sql, sink)) > 0);
}

describe('outbox relay', () => {
  it('publishes two transactions that commit in reverse id order: neither is skipped', async () => {
    const prefix = testRedisNamespace('outbox');
    const sink = redisStreamSink(redis, { keyPrefix: prefix });
    await drain(sink);
    const { showtimeId } = await h.core.createShowtime();
    let releaseFirst!: () => void;
    const firstMayCommit = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstInserted!: () => void;
    const firstHasId = new Promise<void>((resolve) => (firstInserted = resolve));
    const first = sql.begin(async (tx) => {
      await tx`INSERT INTO outbox (type, showtime_id, payload) VALUES ('SeatsReleased', ${showtimeId}, '{"n":"first"}')`;
      firstInserted();
      await firstMayCommit; // holds its lower id uncommitted
    });
    await firstHasId;
    await sql`INSERT INTO outbox (type, showtime_id, payload) VALUES ('SeatsReleased', ${showtimeId}, '{"n":"second"}')`;
    await drain(sink); // publishes "second" while "first" is still in flight
    releaseFirst();
    await first;
    await drain(sink);
    const published = (await readStream(prefix)).filter((e) => e.showtimeId === showtimeId).map((e) => e.payload.n);
    expect(published).toEqual(['second', 'first']);
  });

  it('a relay killed between publishing and marking publishes again; consumers dedupe on eventId', async () => {
    const prefix = testRedisNamespace('outbox-crash');
    const realSink = redisStreamSink(redis, { keyPrefix: prefix });
    await drain(realSink);
    const { showtimeId } = await h.core.createShowtime();
    await h.core.hold(showtimeId, unique('a'), ['A1']);
    await h.core.hold(showtimeId, unique('b'), ['A2']);
    const crashingSink: BookingEventSink = {
      async publish(events) {
        await realSink.publish(events);
        throw new Error('relay process killed before it could mark the rows');
      },
    };
    await expect(relayOutbox(sql, crashingSink)).rejects.toThrow('killed');
    await drain(realSink);
    const ours = (await readStream(prefix)).filter((e) => e.showtimeId === showtimeId);
    expect(ours.length).toBe(4); // each event twice: at least once, not exactly once
    const deduped = new Map(ours.map((e) => [e.eventId, e]));
    expect([...deduped.values()].map((e) => e.type)).toEqual(['HoldCreated', 'HoldCreated']);
  });

  it('two relays at once never publish the same row twice', async () => {
    const prefix = testRedisNamespace('outbox-pair');
    const sink = redisStreamSink(redis, { keyPrefix: prefix });
    await drain(sink);
    const { showtimeId } = await h.core.createShowtime({ layout: { rows: 5, columns: 20 } });
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        h.core.hold(showtimeId, unique('p'), [`${'ABCDE'[Math.floor(i / 20)]}${(i % 20) + 1}`]),
      ),
    );
    await Promise.all([drain(sink), drain(sink), drain(sink)]);
    const ours = (await readStream(prefix)).filter((e) => e.showtimeId === showtimeId);
    expect(ours).toHaveLength(100);
    expect(new Set(ours.map((e) => e.eventId)).size).toBe(100);
  });
});

describe('sweeper', () => {
  it('expires lapsed holds once across three concurrent sweepers, frees their seats, and announces them', async () => {
    const { showtimeId } = await h.core.createShowtime({ holdTtlMs: 1000, layout: { rows: 4, columns: 10 } });
    const holds = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        h.core.hold(showtimeId, unique('s'), [`${'ABCD'[Math.floor(i / 10)]}${(i % 10) + 1}`]),
      ),
    );
    expect(holds.every((x) => x.status === 201)).toBe(true);
    await sleep(1200);
    const [a, b, c] = await releasedTogether(3, () => sweepExpiredHolds(sql, 1000));
    expect(a! + b! + c!).toBeGreaterThanOrEqual(40); // other files' lapsed holds may be swept too
    const [row] = await sql<{ held: number; expired: number; released: number }[]>`
      SELECT (SELECT count(*) FROM show_seat WHERE showtime_id = ${showtimeId} AND status <> 'AVAILABLE')::int AS held,
             (SELECT count(*) FROM seat_hold WHERE showtime_id = ${showtimeId} AND status = 'EXPIRED')::int AS expired,
             (SELECT count(*) FROM outbox WHERE showtime_id = ${showtimeId} AND type = 'HoldReleased'
                AND payload->>'reason' = 'expired')::int AS released`;
    expect(row).toEqual({ held: 0, expired: 40, released: 40 });
  });

  it('announces a sold-out showtime once', async () => {
    const { showtimeId } = await h.core.createShowtime({ layout: { rows: 1, columns: 2 } });
    const customerId = unique('all');
    const hold = await h.core.hold(showtimeId, customerId, ['A1', 'A2']);
    const paymentId = await h.fakePayment({ holdId: hold.json.holdId, showtimeId, customerId, amountCents: 2000 });
    expect(
      (await h.postCallback(h.signedCallback({ type: 'payment.succeeded', paymentId, amount: 2000 }))).json.outcome,
    ).toBe('booked');
    await announceSoldOutShowtimes(sql);
    expect((await h.outboxTypes(showtimeId)).filter((t) => t === 'ShowtimeSoldOut')).toHaveLength(1);
    expect(
      (await h.core.call('GET', '/showtimes')).json.find((s: { id: number }) => s.id === showtimeId).saleState,
    ).toBe('sold_out');
  });
});

describe('compensation', () => {
  it('repairs paid-but-not-booked and refunded-but-not-released, once, with several instances at once', async () => {
    const { showtimeId } = await h.core.createShowtime();
    // Paid but not booked: the payment row says SUCCEEDED, no booking exists (a crash or a manual fix).
    const unbookedCustomer = unique('unbooked');
    const unbookedHold = await h.core.hold(showtimeId, unbookedCustomer, ['C1']);
    const unbooked = await h.fakePayment({
      holdId: unbookedHold.json.holdId,
      showtimeId,
      customerId: unbookedCustomer,
    });
    await sql`UPDATE payment SET status = 'SUCCEEDED', status_cause = 'test: gateway said so' WHERE id = ${unbooked}`;
    // Refunded but not released: booked, then refunded at the gateway behind our back.
    const refundedCustomer = unique('refunded');
    const refundedHold = await h.core.hold(showtimeId, refundedCustomer, ['C2']);
    const refunded = await h.fakePayment({
      holdId: refundedHold.json.holdId,
      showtimeId,
      customerId: refundedCustomer,
    });
    await h.postCallback(h.signedCallback({ type: 'payment.succeeded', paymentId: refunded }));
    await sql`UPDATE payment SET status = 'REFUNDED', status_cause = 'test: refunded in the gateway dashboard' WHERE id = ${refunded}`;

    const results = await releasedTogether(3, () => compensate(sql, { graceMs: 0 }));
    expect(results.reduce((sum, r) => sum + r.repaired, 0)).toBeGreaterThanOrEqual(2);
    expect(await h.paymentState(unbooked)).toEqual({ payment: 'SUCCEEDED', booking: 'CONFIRMED', refund: null });
    expect(await h.paymentState(refunded)).toEqual({ payment: 'REFUNDED', booking: 'REFUNDED', refund: null });
    const seats =
      await sql`SELECT seat_code, status FROM show_seat WHERE showtime_id = ${showtimeId} AND seat_code IN ('C1', 'C2') ORDER BY seat_code`;
    expect(seats.map((s) => `${s.seat_code}:${s.status}`)).toEqual(['C1:BOOKED', 'C2:AVAILABLE']);
    expect((await compensate(sql, { graceMs: 0 })).repaired).toBe(0);
  });

  it('all jobs run one pass without error on an idle database', async () => {
    const { jobs } = backgroundJobs({
      sql,
      gateway: h.gateway,
      sink: redisStreamSink(redis, { keyPrefix: testRedisNamespace('idle') }),
      logger: pino({ level: 'silent' }),
    });
    for (const job of Object.values(jobs)) await expect(job()).resolves.toBeTypeOf('number');
  });
});
