/**
 * The seat gate in front of hold_seats, on the real PostgreSQL and a private redis-server (the
 * file flushes and stops it): the database stays the arbiter whatever Redis believes or forgets.
 * - a claim the database refused is released, and the refused seats' state is learnt;
 * - Redis flushed again and again under racing buyers: rebuilt from the database, one winner a seat;
 * - Redis stopped: holds go on, the database deciding alone (counted), and the gate comes back;
 * - booking events (hold created, cancelled, expired; booking confirmed; seats released by a
 *   refund or a cancellation) move the gate, through the real relay and the stream;
 * - a gate that disagrees with the database is corrected by the periodic check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { isolatedDatabase } from '../../../test/support/env';
import { startPrivateRedis, type PrivateRedis } from '../../../queue/test/redis-servers';
import { createIoredisStore } from '../../../queue/src/index';
import { connectDatabase } from '../../src/db/connect';
import { redisStreamSink } from '../../src/events/event-sink';
import { relayOutbox } from '../../src/jobs/outbox-relay';
import { sweepExpiredHolds } from '../../src/jobs/sweeper';
import { createGateEventsConsumer, gateOpsForEvent } from '../../src/gate/gate-events';
import { decodeBookingEvent } from '../../../lib/booking-events';
import { signWebhook } from '../../../lib/webhook-signature';
import { insertPayment } from '../../src/payments/payment-repo';
import {
  createCoreHarness,
  releasedTogether,
  TEST_ADMIN_TOKEN,
  TEST_WEBHOOK_SECRET,
  unique,
  type CoreHarness,
} from '../core-harness';

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let sql: Sql;
let server: PrivateRedis;
let redis: Redis;
let admin: Redis;
let gated: CoreHarness;
let alone: CoreHarness;
const prefix = 'gt:';

const counter = async (h: CoreHarness, name: string, labels: Record<string, string> = {}) => {
  const metric = (await h.metrics.registry.getSingleMetric(name)?.get())?.values ?? [];
  return metric
    .filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
    .reduce((sum, v) => sum + v.value, 0);
};
const dbAttempts = (h: CoreHarness) => counter(h, 'core_hold_database_attempts_total');

beforeAll(async () => {
  database = await isolatedDatabase('seatgate');
  sql = connectDatabase(database.url, { max: 24, applicationName: 'test-seat-gate' });
  server = await startPrivateRedis();
  // Fail fast, as the core's own client does: a gate that cannot answer is skipped.
  redis = new Redis({
    port: server.ports[0]!,
    host: '127.0.0.1',
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1_000,
  });
  redis.on('error', () => {});
  admin = new Redis({ port: server.ports[0]!, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  admin.on('error', () => {});
  gated = await createCoreHarness(sql, {
    gate: { store: createIoredisStore(redis), keyPrefix: prefix, settings: { pendingGraceMs: 4_000 } },
  });
  alone = await createCoreHarness(sql);
});
afterAll(async () => {
  redis?.disconnect();
  admin?.disconnect();
  await server?.stop();
  await sql?.end({ timeout: 1 });
  await database?.drop();
});

async function seatCodes(h: CoreHarness, showtimeId: number) {
  return (
    await h.sql<
      { seat_code: string }[]
    >`SELECT seat_code FROM show_seat WHERE showtime_id = ${showtimeId} ORDER BY seat_code`
  ).map((r) => r.seat_code);
}

/** The gate's own view of a seat, straight from Redis. */
const gateEntry = (showtimeId: number, seat: string) => admin.hget(`${prefix}gate:{show:${showtimeId}}:seats`, seat);

describe('the database stays the arbiter', () => {
  it('a claim the database refused is released; the refused seat is learnt and no longer reaches the database', async () => {
    const { showtimeId } = await gated.createShowtime();
    expect((await gated.hold(showtimeId, unique('warm'), ['A1'])).status).toBe(201); // builds the gate
    // Sold behind the gate's back (no event reaches it in this test).
    await sql`UPDATE show_seat SET status = 'BOOKED', booking_id = gen_random_uuid(), customer_id = 'elsewhere'
               WHERE showtime_id = ${showtimeId} AND seat_code = 'B2'`;
    const before = await dbAttempts(gated);
    const first = await gated.hold(showtimeId, unique('buyer'), ['B1', 'B2']);
    expect(first.status).toBe(409);
    expect(first.json.error).toMatchObject({ code: 'SEATS_UNAVAILABLE', seats: ['B2'] });
    expect(await dbAttempts(gated)).toBe(before + 1);
    // B1 was claimed and given back; B2 is now known as sold.
    expect(await gateEntry(showtimeId, 'B1')).toBe('0');
    expect(await gateEntry(showtimeId, 'B2')).toMatch(/^S\|/);
    expect((await gated.hold(showtimeId, unique('other'), ['B2'])).status).toBe(409);
    expect(await dbAttempts(gated)).toBe(before + 1);
    expect((await gated.hold(showtimeId, unique('other'), ['B1'])).status).toBe(201);
  });

  it('a claim whose database hold failed for another reason (sale closed) is released too', async () => {
    const { showtimeId } = await gated.createShowtime();
    expect((await gated.hold(showtimeId, unique('warm'), ['A1'])).status).toBe(201);
    await sql`UPDATE showtime SET sale_state = 'CLOSED' WHERE id = ${showtimeId}`;
    const refused = await gated.hold(showtimeId, unique('late'), ['C1', 'C2']);
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe('SALE_NOT_OPEN');
    expect([await gateEntry(showtimeId, 'C1'), await gateEntry(showtimeId, 'C2')]).toEqual(['0', '0']);
    await sql`UPDATE showtime SET sale_state = 'OPEN' WHERE id = ${showtimeId}`;
    expect((await gated.hold(showtimeId, unique('next'), ['C1', 'C2'])).status).toBe(201);
  });

  it('seats the gate does not know go to the database, which names them (422), and nothing is claimed', async () => {
    const { showtimeId } = await gated.createShowtime();
    expect((await gated.hold(showtimeId, unique('warm'), ['A1'])).status).toBe(201);
    const unknown = await gated.hold(showtimeId, unique('lost'), ['A2', 'Z99']);
    expect(unknown.status).toBe(422);
    expect(unknown.json.error).toMatchObject({ code: 'UNKNOWN_SEATS', seats: ['Z99'] });
    expect(await gateEntry(showtimeId, 'A2')).toBe('0');
    expect(await counter(gated, 'core_seat_gate_skipped_total', { reason: 'unknown_seats' })).toBeGreaterThanOrEqual(1);
  });

  it('64 buyers on one seat: one reaches the database, the others are answered by the gate', async () => {
    const { showtimeId } = await gated.createShowtime();
    expect((await gated.hold(showtimeId, unique('warm'), ['A1'])).status).toBe(201);
    const tokens = await Promise.all(
      Array.from({ length: 64 }, (_, i) => gated.tokenFor(unique(`hot${i}`), showtimeId)),
    );
    const before = await dbAttempts(gated);
    const results = await releasedTogether(64, (i) =>
      gated.call('POST', `/showtimes/${showtimeId}/holds`, { token: tokens[i], body: { seats: ['D5'] } }),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(63);
    expect(await dbAttempts(gated)).toBe(before + 1);
  });
});

describe('Redis losing data or going away', () => {
  it('flushed again and again while buyers race: rebuilt from the database, one winner a seat, nothing held twice', async () => {
    const { showtimeId } = await gated.createShowtime({ layout: { rows: 10, columns: 10 } });
    const seats = await seatCodes(gated, showtimeId);
    const builtBefore = await counter(gated, 'core_seat_gate_syncs_total', { why: 'not_built' });
    const rounds = 40;
    const winners: string[] = [];
    for (let round = 0; round < rounds; round++) {
      const seat = seats[round]!;
      const tokens = await Promise.all(
        Array.from({ length: 32 }, (_, i) => gated.tokenFor(`flush-${round}-${i}`, showtimeId)),
      );
      const flush = round % 4 === 1;
      const results = await releasedTogether(33, async (i) => {
        if (i === 32) {
          if (flush) await admin.flushall();
          return null;
        }
        return gated.call('POST', `/showtimes/${showtimeId}/holds`, { token: tokens[i], body: { seats: [seat] } });
      });
      const answered = results.filter((r) => r !== null);
      expect(
        answered.filter((r) => r.status === 201),
        `round ${round}`,
      ).toHaveLength(1);
      expect(
        answered.filter((r) => r.status !== 201 && r.status !== 409),
        `round ${round}`,
      ).toEqual([]);
      winners.push(seat);
    }
    const held = await sql<{ seat_code: string; n: number }[]>`
      SELECT seat_code, count(*)::int AS n FROM show_seat WHERE showtime_id = ${showtimeId} AND status = 'HELD' GROUP BY seat_code`;
    expect(held.map((r) => r.seat_code).sort()).toEqual(winners.sort());
    // Every flush emptied the gate, and the next buyer rebuilt it before it answered.
    expect(await counter(gated, 'core_seat_gate_syncs_total', { why: 'not_built' })).toBeGreaterThanOrEqual(
      builtBefore + rounds / 4,
    );
    // After a rebuild the gate knows every held seat again: a late racer never reaches the database.
    const before = await dbAttempts(gated);
    expect((await gated.hold(showtimeId, unique('late'), [winners[0]!])).status).toBe(409);
    expect(await dbAttempts(gated)).toBe(before);
  });

  it('stopped: holds go on with the database alone (counted), one winner a seat; back: the gate is rebuilt', async () => {
    const { showtimeId } = await gated.createShowtime();
    expect((await gated.hold(showtimeId, unique('warm'), ['A1'])).status).toBe(201);
    const skippedBefore = await counter(gated, 'core_seat_gate_skipped_total', { reason: 'store_down' });
    await admin.call('SHUTDOWN', 'NOSAVE').catch(() => {});
    for (let round = 0; round < 5; round++) {
      const tokens = await Promise.all(
        Array.from({ length: 16 }, (_, i) => gated.tokenFor(`down-${round}-${i}`, showtimeId)),
      );
      const results = await releasedTogether(16, (i) =>
        gated.call('POST', `/showtimes/${showtimeId}/holds`, { token: tokens[i], body: { seats: [`E${round + 1}`] } }),
      );
      expect(
        results.filter((r) => r.status === 201),
        `round ${round}`,
      ).toHaveLength(1);
      expect(
        results.filter((r) => r.status !== 201 && r.status !== 409),
        `round ${round}`,
      ).toEqual([]);
    }
    expect(await counter(gated, 'core_seat_gate_skipped_total', { reason: 'store_down' })).toBeGreaterThanOrEqual(
      skippedBefore + 80,
    );
    // Redis back, empty: the first hold rebuilds the gate, which knows what was held meanwhile.
    await server.restart();
    for (let i = 0; i < 50 && (await redis.ping().catch(() => null)) !== 'PONG'; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const before = await dbAttempts(gated);
    expect((await gated.hold(showtimeId, unique('after'), ['E3'])).status).toBe(409);
    expect(await dbAttempts(gated)).toBe(before);
    expect((await gated.hold(showtimeId, unique('after'), ['E6'])).status).toBe(201);
  });
});

describe('booking events and the periodic check keep the gate in step', () => {
  it('hold created, cancelled and expired elsewhere; booking paid, refunded by the operator, paid again and cancelled by its buyer: the gate follows, and replays change nothing', async () => {
    const { showtimeId } = await gated.createShowtime({ holdTtlMs: 4_000 });
    expect((await gated.hold(showtimeId, unique('warm'), ['A1'])).status).toBe(201);
    const sink = redisStreamSink(admin, { keyPrefix: prefix });
    const consumer = createGateEventsConsumer({ redis: admin, gate: gated.gate!, keyPrefix: prefix });
    await consumer.pumpOnce(); // plants the cursor at the stream's end
    const deliver = async () => {
      while ((await relayOutbox(sql, sink)) > 0) {
        // until the outbox is drained
      }
      await consumer.pumpOnce();
    };

    // A hold made by a core without the gate reaches the gate as an event.
    const owner = unique('elsewhere');
    const other = await alone.hold(showtimeId, owner, ['F1', 'F2']);
    expect(other.status).toBe(201);
    await deliver();
    expect(await gateEntry(showtimeId, 'F1')).toMatch(new RegExp(`^H\\|\\d+\\|\\d+\\|${other.json.holdId}\\|`));
    const before = await dbAttempts(gated);
    expect((await gated.hold(showtimeId, unique('x'), ['F2'])).status).toBe(409);
    expect(await dbAttempts(gated)).toBe(before);

    // Cancelled there: free here.
    expect(
      (await alone.call('DELETE', `/holds/${other.json.holdId}`, { token: await alone.tokenFor(owner, showtimeId) }))
        .status,
    ).toBe(204);
    await deliver();
    expect([await gateEntry(showtimeId, 'F1'), await gateEntry(showtimeId, 'F2')]).toEqual(['0', '0']);

    // Expired and swept: the gate entry had lapsed with the hold anyway; the event changes nothing wrong.
    const lapsing = await alone.hold(showtimeId, unique('lapse'), ['G1']);
    await deliver();
    expect(await gateEntry(showtimeId, 'G1')).toMatch(/^H\|/);
    await new Promise((resolve) => setTimeout(resolve, 4_200));
    expect(await sweepExpiredHolds(sql)).toBeGreaterThanOrEqual(1);
    await deliver();
    expect(await gateEntry(showtimeId, 'G1')).toBe('0');
    expect(lapsing.status).toBe(201);

    // Paid: the callback confirms the hold (BookingConfirmed) and the gate sells the seat.
    const payer = unique('payer');
    const paid = await payAndConfirm(showtimeId, payer, 'H1');
    await deliver();
    expect(await gateEntry(showtimeId, 'H1')).toBe(`S|${paid}|${payer}`);
    // The operator refunds it (SeatsReleased, reason refund): free at the gate.
    expect((await gated.call('POST', `/admin/bookings/${paid}/refund`, { token: TEST_ADMIN_TOKEN })).status).toBe(200);
    await deliver();
    expect(await gateEntry(showtimeId, 'H1')).toBe('0');
    // Sold again, then cancelled by its buyer (SeatsReleased, reason cancelled): free again.
    const buyer = unique('canceller');
    const again = await payAndConfirm(showtimeId, buyer, 'H1');
    await deliver();
    expect(await gateEntry(showtimeId, 'H1')).toBe(`S|${again}|${buyer}`);
    expect(
      (await gated.call('DELETE', `/bookings/${again}`, { token: await gated.tokenFor(buyer, showtimeId) })).status,
    ).toBe(200);
    await deliver();
    expect(await gateEntry(showtimeId, 'H1')).toBe('0');

    // At least once: every event of this showtime delivered again, in order, changes nothing now;
    // a stale confirmation delivered alone after the release cannot sell the seat again either.
    const ours = (fields: string[]) => fields[fields.indexOf('showtimeId') + 1] === String(showtimeId);
    const replay = (await admin.xrange(`${prefix}booking-events`, '-', '+')).map(([, fields]) => fields).filter(ours);
    const moving = replay.filter((fields) => gateOpsForEvent(decodeBookingEvent(fields)!).length > 0).length;
    const duplicatesBefore = await counter(gated, 'core_seat_gate_events_total', { outcome: 'duplicate' });
    for (const fields of replay) await admin.xadd(`${prefix}booking-events`, '*', ...fields);
    await consumer.pumpOnce();
    expect(await gateEntry(showtimeId, 'H1')).toBe('0');
    expect([await gateEntry(showtimeId, 'F1'), await gateEntry(showtimeId, 'G1')]).toEqual(['0', '0']);
    const confirmed = replay.find((fields) => fields.includes('BookingConfirmed'))!;
    await admin.xadd(`${prefix}booking-events`, '*', ...confirmed);
    await consumer.pumpOnce();
    expect(await gateEntry(showtimeId, 'H1')).toBe('0');
    expect(moving).toBeGreaterThanOrEqual(8);
    expect(await counter(gated, 'core_seat_gate_events_total', { outcome: 'duplicate' })).toBe(
      duplicatesBefore + moving + 1,
    );
    consumer.stop();
  });

  it('the periodic check corrects a gate that disagrees with the database, and keeps claims in flight', async () => {
    const { showtimeId } = await gated.createShowtime();
    const held = await gated.hold(showtimeId, unique('holder'), ['J1']);
    expect(held.status).toBe(201);
    // The database frees J1 and sells J2 by hand; the gate heard nothing.
    await sql`UPDATE show_seat SET status = 'AVAILABLE', hold_id = NULL, customer_id = NULL, hold_expires_at = NULL
               WHERE showtime_id = ${showtimeId} AND seat_code = 'J1'`;
    await sql`UPDATE show_seat SET status = 'BOOKED', booking_id = gen_random_uuid(), customer_id = 'hand'
               WHERE showtime_id = ${showtimeId} AND seat_code = 'J2'`;
    // A claim in flight (no database hold yet) is not dropped by a check within its grace.
    const inflight = await gated.gate!.scripts.claim(String(showtimeId), 'flying', randomUUID(), ['J3']);
    expect(inflight.kind).toBe('claimed');
    const corrections = await counter(gated, 'core_seat_gate_corrections_total', { why: 'periodic' });
    expect(await gated.gate!.checkNow()).toBeGreaterThanOrEqual(1);
    expect(await counter(gated, 'core_seat_gate_corrections_total', { why: 'periodic' })).toBeGreaterThanOrEqual(
      corrections + 1,
    );
    expect(await gateEntry(showtimeId, 'J2')).toMatch(/^S\|/);
    // J1's claim and J3's are younger than the grace: attempts that may still be in flight.
    expect(await gateEntry(showtimeId, 'J1')).toMatch(/^H\|/);
    expect(await gateEntry(showtimeId, 'J3')).toMatch(/^H\|/);
    // Past the grace, claims the database does not show are dropped.
    await new Promise((resolve) => setTimeout(resolve, 4_100));
    await gated.gate!.checkNow();
    expect(await gateEntry(showtimeId, 'J1')).toBe('0');
    expect(await gateEntry(showtimeId, 'J3')).toBe('0');
    expect((await gated.hold(showtimeId, unique('next'), ['J1', 'J3'])).status).toBe(201);
  });
});

/** A hold paid through the signed callback, as the gateway would: returns the booking id. */
async function payAndConfirm(showtimeId: number, customerId: string, seat: string): Promise<string> {
  const hold = await gated.hold(showtimeId, customerId, [seat]);
  expect(hold.status).toBe(201);
  const paymentId = `pay_gate_${randomUUID().replaceAll('-', '')}`;
  await insertPayment(sql, {
    id: paymentId,
    hold_id: hold.json.holdId,
    showtime_id: showtimeId,
    customer_id: customerId,
    amount_cents: 1000,
    currency: 'EUR',
    checkout_url: 'http://pay.test',
    expires_at: new Date(Date.now() + 60_000),
  });
  const body = JSON.stringify({
    id: `evt_${randomUUID().replaceAll('-', '')}`,
    type: 'payment.succeeded',
    created: Math.floor(Date.now() / 1000),
    data: { paymentId, amount: 1000, currency: 'EUR', reference: hold.json.holdId },
  });
  const signature = signWebhook(body, [TEST_WEBHOOK_SECRET], Math.floor(Date.now() / 1000));
  const settled = await gated.call('POST', '/payments/callback', {
    rawBody: body,
    headers: { 'content-type': 'application/json', 'x-signature': signature },
  });
  expect(settled.json.outcome).toBe('booked');
  const [booking] = await sql<{ id: string }[]>`SELECT id::text FROM booking WHERE payment_id = ${paymentId}`;
  return booking!.id;
}
