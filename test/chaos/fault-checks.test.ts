import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capSamplers } from '../../chaos/cap-sampler';
import { failuresOf, runChecks } from '../../chaos/checks/check';
import { eventCheck } from '../../chaos/checks/events';
import { moneyCheck } from '../../chaos/checks/money';
import { capCheck, settingsCheck, type RoomContext } from '../../chaos/checks/room';
import { seatCheck } from '../../chaos/checks/seats';
import { FAULT_CHECKS, type FaultCheckContext } from '../../chaos/fault-checks';
import { connectDatabase } from '../../core/src/db/connect';
import { recordTurn } from '../../core/src/sale/turn-repo';
import { unique } from '../../core/test/core-harness';
import { createPaymentHarness, SANDBOX_API_KEY, type PaymentHarness } from '../../core/test/payment-harness';
import { checkInvariants } from '../../loadtest/invariants';
import { createKeyBuilder } from '../../queue/src/keys';
import { isolatedDatabase, testRedisNamespace, testRedisUrl } from '../support/env';

/**
 * The fault suite's checks (chaos/checks/), each shown able to fail: a clean sale reads 0 on
 * every figure, then a defect planted by hand (a double booking, a refund the gateway never
 * made, a charge the core never recorded, a hold paid twice, a live turn Redis forgot, a room
 * over its cap, a setting changed without an operator, a pause lost, an event lost) must show
 * as a non-zero figure of the check that owns it. Real PostgreSQL, the real sandbox, real Redis
 * under a namespace of this file.
 */
let sql: Sql;
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let payments: PaymentHarness;
let redis: Redis;
let prefix: string;

beforeAll(async () => {
  database = await isolatedDatabase('faultchecks');
  sql = connectDatabase(database.url, { max: 6, applicationName: 'test-fault-checks' });
  payments = await createPaymentHarness(sql);
  redis = new Redis(testRedisUrl());
  prefix = testRedisNamespace('faultchecks');
});
afterAll(async () => {
  redis.disconnect();
  await payments.close();
  await sql.end({ timeout: 1 });
  await database.drop();
});

const gateway = () => ({ url: payments.sandbox.url, apiKey: SANDBOX_API_KEY });
const cleanRoom = (): RoomContext => ({
  capacity: 4,
  cap: { redis: { highest: 2, reads: 10 }, ledger: { highest: 2, reads: 10 } },
  settings: {
    before: { capacity: 4, state: 'open' },
    after: { capacity: 4, state: 'open' },
    durableBefore: { version: 1 },
    durableAfter: { version: 1 },
    soldOut: false,
  },
  paused: null,
});

/** A showtime with one real purchase: hold, checkout at the sandbox, paid, booked through the webhook. */
async function saleWithOneBooking() {
  const { showtimeId } = await payments.core.createShowtime({ priceCents: 800 });
  const customerId = unique('buyer');
  const hold = await payments.core.hold(showtimeId, customerId, ['A1', 'A2']);
  const holdId = hold.json.holdId as string;
  const checkout = await payments.checkout(showtimeId, customerId, holdId);
  expect(checkout.status).toBe(201);
  await payments.sandboxApi('POST', `/v1/payments/${checkout.json.paymentId}/approve`);
  await expect.poll(async () => (await payments.paymentState(checkout.json.paymentId))?.booking).toBe('CONFIRMED');
  return { showtimeId, holdId, paymentId: checkout.json.paymentId as string };
}

function context(showtimeId: number, room: RoomContext = cleanRoom()): FaultCheckContext {
  return {
    sql,
    redis,
    keyPrefix: prefix,
    showtimeId,
    staleAfterSeconds: 3600,
    gateway: gateway(),
    acknowledged: { holdIds: [], paymentIds: [] },
    ...room,
  };
}

/** A session opened at the gateway directly (the core never hears of it: webhooks dropped). */
async function gatewaySession(showtimeId: number, reference: string, paid: boolean) {
  const response = await fetch(`${payments.sandbox.url}/v1/payments`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${SANDBOX_API_KEY}`,
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
    },
    body: JSON.stringify({
      amount: 800,
      currency: 'EUR',
      reference,
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
      returnUrl: 'http://buyers.test/back',
      metadata: { showtimeId: String(showtimeId) },
      faults: { dropWebhooks: true },
    }),
  });
  const session = (await response.json()) as { id: string };
  if (paid) await payments.sandboxApi('POST', `/v1/payments/${session.id}/approve`);
  return session.id;
}

describe('a clean sale', () => {
  it('reads 0 on every figure of every check, and every check runs', async () => {
    const { showtimeId } = await saleWithOneBooking();
    const outcome = await runChecks(FAULT_CHECKS, context(showtimeId));
    expect(outcome.couldNotRun).toEqual({});
    expect(failuresOf(outcome)).toEqual([]);
    expect(Object.keys(outcome.byCheck)).toEqual(['seats', 'money', 'events', 'cap', 'settings']);
  });
});

describe('negative controls: each planted defect is caught', () => {
  it('a double booking written by hand: oversoldSeats counts the seats', async () => {
    const { showtimeId } = await saleWithOneBooking();
    const other = unique('other');
    const hold = await payments.core.hold(showtimeId, other, ['B1']);
    const paymentId = await payments.fakePayment({ holdId: hold.json.holdId, showtimeId, customerId: other });
    await sql`UPDATE payment SET status = 'SUCCEEDED' WHERE id = ${paymentId}`;
    await sql`
      INSERT INTO booking (id, hold_id, payment_id, showtime_id, customer_id, seat_codes, amount_cents, currency, status, status_cause)
      VALUES (${randomUUID()}::uuid, ${hold.json.holdId}::uuid, ${paymentId}, ${showtimeId}, ${other}, '{A1,A2}', 800, 'EUR', 'CONFIRMED', 'planted')`;
    const figures = await seatCheck.run(context(showtimeId));
    expect(figures.oversoldSeats).toBe(2);
  });

  it('a refund that never completes at the gateway: caught by the gateway, missed by the core-only count', async () => {
    const { showtimeId } = await payments.core.createShowtime({ priceCents: 800 });
    const customerId = unique('refund');
    const hold = await payments.core.hold(showtimeId, customerId, ['C1']);
    const checkout = await payments.checkout(showtimeId, customerId, hold.json.holdId);
    const paymentId = checkout.json.paymentId as string;
    await payments.sandboxApi('PUT', `/v1/payments/${paymentId}/faults`, { dropWebhooks: true });
    await payments.sandboxApi('POST', `/v1/payments/${paymentId}/approve`);
    // The core "decided" to refund: the command exists, the worker never gets it done.
    await sql`UPDATE payment SET status = 'SUCCEEDED' WHERE id = ${paymentId}`;
    await sql`UPDATE payment SET status = 'REFUND_REQUESTED' WHERE id = ${paymentId}`;
    await sql`INSERT INTO refund_command (payment_id, reason) VALUES (${paymentId}, 'planted')`;
    expect((await checkInvariants(sql, { showtimeIds: [showtimeId] })).counts.paidWithoutBookingOrRefund).toBe(0);
    const figures = await moneyCheck.run(context(showtimeId));
    expect(figures.refundsNotConfirmedByGateway).toBe(1);
    expect(figures.gatewayPaidWithoutBooking).toBe(1);
  });

  it('a charge the core never recorded (crash between the gateway and the insert)', async () => {
    const { showtimeId } = await saleWithOneBooking();
    await gatewaySession(showtimeId, randomUUID(), true);
    const figures = await moneyCheck.run(context(showtimeId));
    expect(figures.chargesUnknownToCore).toBe(1);
    expect(figures.gatewayPaidWithoutBooking).toBe(1);
  });

  it('two paid sessions for one hold', async () => {
    const { showtimeId } = await payments.core.createShowtime({ priceCents: 800 });
    const holdId = randomUUID();
    await gatewaySession(showtimeId, holdId, true);
    await gatewaySession(showtimeId, holdId, true);
    await gatewaySession(showtimeId, randomUUID(), false); // a pending one charges nobody
    expect((await moneyCheck.run(context(showtimeId))).holdsPaidTwice).toBe(1);
  });

  it('a live turn Redis forgot: the ledger sampler sees the room over its cap, Redis does not', async () => {
    const { showtimeId } = await payments.core.createShowtime();
    for (let i = 0; i < 5; i++)
      await recordTurn(sql, showtimeId, {
        customerId: unique('turn'),
        ticket: i + 1,
        expiresAtMs: Date.now() + 60_000,
      });
    // Redis still has two of the five: it forgot three that the ledger keeps.
    const active = createKeyBuilder(prefix).forShowtime(String(showtimeId)).active;
    for (let i = 0; i < 2; i++) await redis.zadd(active, Date.now() + 60_000, `kept${i}`);
    const sampling = capSamplers({ redis, sql, showtimeId: String(showtimeId), keyPrefix: prefix });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const cap = await sampling.stop();
    const figures = await capCheck.run({ ...cleanRoom(), capacity: 4, cap });
    expect(figures).toEqual({ admittedAboveCapRedis: 0, admittedAboveCapLedger: 1 });
  });

  it('a room over its cap in Redis', async () => {
    const { showtimeId } = await payments.core.createShowtime();
    const active = createKeyBuilder(prefix).forShowtime(String(showtimeId)).active;
    for (let i = 0; i < 6; i++) await redis.zadd(active, Date.now() + 60_000, `c${i}`);
    // The ledger knows three of them (under the cap): Redis is where the room ran over.
    for (let i = 0; i < 3; i++)
      await recordTurn(sql, showtimeId, { customerId: `c${i}`, ticket: i + 1, expiresAtMs: Date.now() + 60_000 });
    const sampling = capSamplers({ redis, sql, showtimeId: String(showtimeId), keyPrefix: prefix });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const figures = await capCheck.run({ ...cleanRoom(), capacity: 4, cap: await sampling.stop() });
    expect(figures).toEqual({ admittedAboveCapRedis: 2, admittedAboveCapLedger: 0 });
  });

  it('a setting changed without an operator, a durable row that moved, a pause a restore lost', async () => {
    const room = cleanRoom();
    const figures = await settingsCheck.run({
      ...room,
      settings: { ...room.settings, after: { capacity: 10, state: 'open' }, durableAfter: { version: 2 } },
      paused: { stateAfterFault: 'open' },
    });
    expect(figures).toEqual({ roomSettingsChanged: 2, pauseLost: 1 });
  });

  it('a lost event: published but never applied by the edge, and an outbox row left unpublished', async () => {
    const { showtimeId } = await saleWithOneBooking();
    await sql`UPDATE outbox SET published_at = now() WHERE showtime_id = ${showtimeId}`;
    await sql`INSERT INTO outbox (type, showtime_id, payload, created_at) VALUES ('HoldReleased', ${showtimeId}, '{}'::jsonb, now() - interval '2 hours')`;
    const figures = await eventCheck.run(context(showtimeId));
    expect(figures.eventsNotAppliedByEdge).toBeGreaterThanOrEqual(1);
    expect(figures.outboxBacklog).toBeGreaterThanOrEqual(1);
    // The stream never got the published confirmation either.
    expect(figures.eventsMissingFromStream).toBe(1);
  });

  it("a booking whose event was never written, found among other showtimes' events", async () => {
    const { showtimeId } = await saleWithOneBooking();
    const other = await saleWithOneBooking();
    expect((await eventCheck.run(context(showtimeId))).bookingsWithoutEvent).toBe(0);
    await sql`DELETE FROM outbox WHERE showtime_id = ${showtimeId} AND type = 'BookingConfirmed'`;
    expect((await eventCheck.run(context(showtimeId))).bookingsWithoutEvent).toBe(1);
    // The other sale's confirmation is still there and still matched to its own booking only.
    expect((await eventCheck.run(context(other.showtimeId))).bookingsWithoutEvent).toBe(0);
  });

  it('a check that cannot look fails the run: a sampler that never read, Redis unreachable', async () => {
    const { showtimeId } = await payments.core.createShowtime();
    const deadRedis = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    deadRedis.on('error', () => {});
    const outcome = await runChecks(FAULT_CHECKS, {
      ...context(showtimeId, {
        ...cleanRoom(),
        cap: { redis: { highest: 0, reads: 0 }, ledger: { highest: 0, reads: 3 } },
      }),
      redis: deadRedis,
    });
    deadRedis.disconnect();
    expect(Object.keys(outcome.couldNotRun).sort()).toEqual(['cap', 'events']);
    expect(failuresOf(outcome).filter((f) => f.includes('could not run'))).toHaveLength(2);
    // A sampler that read but never saw anyone admitted was looking in the wrong place.
    const blind = await runChecks([capCheck], {
      ...cleanRoom(),
      cap: { redis: { highest: 3, reads: 9 }, ledger: { highest: 0, reads: 9 } },
    });
    expect(blind.couldNotRun.cap).toMatch(/turn ledger never showed an admitted buyer/);
  });
});
