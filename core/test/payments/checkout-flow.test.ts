import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import pino from 'pino';
import { isolatedDatabase } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { TEST_ADMIN_TOKEN, TEST_PUBLIC_URL, unique, releasedTogether } from '../core-harness';
import { createPaymentHarness, type PaymentHarness } from '../payment-harness';
import { backgroundJobs } from '../../src/jobs/job-runner';
import { inProcessSink } from '../../src/events/event-sink';

let sql: Sql;
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let h: PaymentHarness;
let jobs: ReturnType<typeof backgroundJobs>['jobs'];

beforeAll(async () => {
  database = await isolatedDatabase('checkout');
  sql = connectDatabase(database.url, { max: 24, applicationName: 'test-checkout' });
  h = await createPaymentHarness(sql);
  jobs = backgroundJobs({
    sql,
    gateway: h.gateway,
    sink: inProcessSink(),
    logger: pino({ level: 'silent' }),
    settings: { reconcileAfterMs: 0, compensationGraceMs: 0 },
  }).jobs;
});
afterAll(async () => {
  await h.close();
  await sql.end();
  await database?.drop();
});

async function heldSeats(seats = ['D4', 'D5'], options: { holdTtlMs?: number } = {}) {
  const { showtimeId } = await h.core.createShowtime({ priceCents: 1200, ...options });
  const customerId = unique('buyer');
  const hold = await h.core.hold(showtimeId, customerId, seats);
  expect(hold.status).toBe(201);
  return { showtimeId, customerId, holdId: hold.json.holdId as string };
}

describe('checkout and payment, end to end through the sandbox', () => {
  it('hold → checkout → approve → webhook → booking, with every transition logged and announced', async () => {
    const { showtimeId, customerId, holdId } = await heldSeats();
    const started = Date.now();
    const checkout = await h.checkout(showtimeId, customerId, holdId);
    expect(checkout.status).toBe(201);
    expect(checkout.json).toMatchObject({ amountCents: 2400, currency: 'EUR', holdId });
    expect(checkout.json.checkoutUrl).toContain(`/pay/${checkout.json.paymentId}`);
    // The payment session ends at about 8/10 of the hold's remaining 10 minutes.
    const paymentWindowMs = Date.parse(checkout.json.expiresAt) - started;
    expect(paymentWindowMs).toBeGreaterThan(470_000);
    expect(paymentWindowMs).toBeLessThan(490_000);

    expect((await h.sandboxApi('POST', `/v1/payments/${checkout.json.paymentId}/approve`)).status).toBe(200);
    await h.sandbox.sandbox.dispatcher.idle();

    const state = await h.paymentState(checkout.json.paymentId);
    expect(state).toEqual({ payment: 'SUCCEEDED', booking: 'CONFIRMED', refund: null });
    const token = await h.core.tokenFor(customerId, showtimeId);
    const hold = await h.core.call('GET', `/holds/${holdId}`, { token });
    expect(hold.json.status).toBe('CONFIRMED');
    const booking = await h.core.call('GET', `/bookings/${hold.json.bookingId}`, { token });
    expect(booking.json).toMatchObject({
      status: 'CONFIRMED',
      seats: ['D4', 'D5'],
      amountCents: 2400,
      paymentStatus: 'SUCCEEDED',
    });
    const stranger = await h.core.tokenFor(unique('stranger'), showtimeId);
    expect((await h.core.call('GET', `/bookings/${hold.json.bookingId}`, { token: stranger })).status).toBe(403);
    const seats =
      await sql`SELECT status FROM show_seat WHERE showtime_id = ${showtimeId} AND seat_code IN ('D4', 'D5')`;
    expect(seats.map((s) => s.status)).toEqual(['BOOKED', 'BOOKED']);
    expect(await h.outboxTypes(showtimeId)).toEqual(['HoldCreated', 'BookingConfirmed', 'HoldReleased']);

    const history = await h.core.call('GET', `/admin/bookings/${hold.json.bookingId}`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(history.json.history.map((t: { entityType: string; to: string }) => `${t.entityType}:${t.to}`)).toEqual([
      'hold:ACTIVE',
      'payment:PENDING',
      'payment:SUCCEEDED',
      'hold:CONFIRMED',
      'booking:CONFIRMED',
    ]);
  });

  it('a failed event after succeeded does not undo the booking; declines leave the hold for another try', async () => {
    const { showtimeId, customerId, holdId } = await heldSeats(['E1']);
    const declined = await h.checkout(showtimeId, customerId, holdId);
    await h.sandboxApi('POST', `/v1/payments/${declined.json.paymentId}/decline`);
    await h.sandbox.sandbox.dispatcher.idle();
    expect((await h.paymentState(declined.json.paymentId))!.payment).toBe('FAILED');
    const token = await h.core.tokenFor(customerId, showtimeId);
    expect((await h.core.call('GET', `/holds/${holdId}`, { token })).json.status).toBe('ACTIVE');

    const second = await h.checkout(showtimeId, customerId, holdId);
    await h.sandboxApi('POST', `/v1/payments/${second.json.paymentId}/approve`);
    await h.sandbox.sandbox.dispatcher.idle();
    const late = await h.postCallback(
      h.signedCallback({ type: 'payment.failed', paymentId: second.json.paymentId, amount: 1200 }),
    );
    expect(late.status).toBe(200);
    expect(await h.paymentState(second.json.paymentId)).toEqual({
      payment: 'SUCCEEDED',
      booking: 'CONFIRMED',
      refund: null,
    });
  });

  it('a callback that never comes: the reconciler asks the gateway and books', async () => {
    const { showtimeId, customerId, holdId } = await heldSeats(['F1']);
    const checkout = await h.checkout(showtimeId, customerId, holdId);
    await h.sandboxApi('PUT', `/v1/payments/${checkout.json.paymentId}/faults`, { dropWebhooks: true });
    await h.sandboxApi('POST', `/v1/payments/${checkout.json.paymentId}/approve`);
    await h.sandbox.sandbox.dispatcher.idle();
    expect((await h.paymentState(checkout.json.paymentId))!.payment).toBe('PENDING');
    await jobs.reconciler();
    expect(await h.paymentState(checkout.json.paymentId)).toEqual({
      payment: 'SUCCEEDED',
      booking: 'CONFIRMED',
      refund: null,
    });
  });

  it('operator refund: seats AVAILABLE and booking REFUNDED together, then the money goes back once', async () => {
    const { showtimeId, customerId, holdId } = await heldSeats(['G1', 'G2']);
    const checkout = await h.checkout(showtimeId, customerId, holdId);
    await h.sandboxApi('POST', `/v1/payments/${checkout.json.paymentId}/approve`);
    await h.sandbox.sandbox.dispatcher.idle();
    const [booking] = await sql<{ id: string }[]>`SELECT id FROM booking WHERE payment_id = ${checkout.json.paymentId}`;
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const refunded = await releasedTogether(4, () =>
      h.core.call('POST', `/admin/bookings/${booking!.id}/refund`, { headers: admin }),
    );
    expect(refunded.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const seats =
      await sql`SELECT status FROM show_seat WHERE showtime_id = ${showtimeId} AND seat_code IN ('G1', 'G2')`;
    expect(seats.map((s) => s.status)).toEqual(['AVAILABLE', 'AVAILABLE']);
    expect(await h.paymentState(checkout.json.paymentId)).toEqual({
      payment: 'REFUND_REQUESTED',
      booking: 'REFUNDED',
      refund: 'PENDING',
    });
    await Promise.all([jobs.refunds(), jobs.refunds()]);
    await h.sandbox.sandbox.dispatcher.idle();
    expect(await h.paymentState(checkout.json.paymentId)).toEqual({
      payment: 'REFUNDED',
      booking: 'REFUNDED',
      refund: 'DONE',
    });
    const atGateway = await h.sandboxApi('GET', `/v1/payments/${checkout.json.paymentId}`);
    expect(atGateway.json.status).toBe('refunded');
    expect((await h.outboxTypes(showtimeId)).filter((t) => t === 'SeatsReleased' || t === 'RefundRequested')).toEqual([
      'SeatsReleased',
      'RefundRequested',
    ]);
    expect((await h.core.hold(showtimeId, unique('next'), ['G1'])).status).toBe(201);
  });
});

describe('Idempotency-Key on checkout', () => {
  it('a refused body stores nothing: the corrected request with the same key goes through', async () => {
    const { showtimeId, customerId, holdId } = await heldSeats(['H7']);
    const token = await h.core.tokenFor(customerId, showtimeId);
    const key = unique('key');
    const refused = await h.core.call('POST', `/holds/${holdId}/checkout`, {
      token,
      headers: { 'idempotency-key': key },
      body: { returnUrl: 42 },
    });
    expect(refused.status).toBe(422);
    expect(refused.json.error.code).toBe('VALIDATION_FAILED');
    const corrected = await h.core.call('POST', `/holds/${holdId}/checkout`, {
      token,
      headers: { 'idempotency-key': key },
    });
    expect(corrected.status).toBe(201);
    const [stored] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM idempotency_key WHERE key = ${key}`;
    expect(stored?.n).toBe(1);
  });

  it('a deeply nested body is 422 before any fingerprint (was a 500 from a recursive walk)', async () => {
    const { showtimeId, customerId, holdId } = await heldSeats(['H8']);
    const token = await h.core.tokenFor(customerId, showtimeId);
    const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
    const answer = await h.core.call('POST', `/holds/${holdId}/checkout`, {
      token,
      headers: { 'idempotency-key': unique('key'), 'content-type': 'application/json' },
      rawBody: deep,
    });
    expect(answer.status).toBe(422);
    expect(answer.json.error.code).toBe('VALIDATION_FAILED');
  });

  it('16 concurrent checkouts with one key: one session; replay is byte for byte; another body is 422', async () => {
    const { showtimeId, customerId, holdId } = await heldSeats(['H1']);
    const token = await h.core.tokenFor(customerId, showtimeId);
    const key = unique('key');
    const attempts = await releasedTogether(16, () =>
      h.core.call('POST', `/holds/${holdId}/checkout`, { token, headers: { 'idempotency-key': key } }),
    );
    const created = attempts.filter((a) => a.status === 201);
    const busy = attempts.filter((a) => a.status === 409);
    expect(created.length + busy.length).toBe(16);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const b of busy) {
      expect(b.json.error.code).toBe('IDEMPOTENCY_KEY_IN_FLIGHT');
      expect(b.headers.get('retry-after')).toBe('1');
    }
    expect(new Set(created.map((c) => c.text)).size).toBe(1);
    const replay = await h.core.call('POST', `/holds/${holdId}/checkout`, {
      token,
      headers: { 'idempotency-key': key },
    });
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(created[0]!.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const sessions = await h.sandboxApi('GET', `/v1/payments?reference=${holdId}`);
    expect(sessions.json.data).toHaveLength(1);

    const other = await h.core.call('POST', `/holds/${holdId}/checkout`, {
      token,
      headers: { 'idempotency-key': key },
      body: { returnUrl: '/elsewhere' },
    });
    expect(other.status).toBe(422);
    expect(other.json.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const missing = await h.core.call('POST', `/holds/${holdId}/checkout`, { token });
    expect(missing.status).toBe(400);
    expect(missing.json.error.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    // Keys are per customer: another buyer's identical key is a different key (and not their hold).
    const stranger = await h.core.tokenFor(unique('stranger'), showtimeId);
    expect(
      (await h.core.call('POST', `/holds/${holdId}/checkout`, { token: stranger, headers: { 'idempotency-key': key } }))
        .status,
    ).toBe(403);
  });

  it('a returnUrl off the site or not a URL stores nothing (was stored, burning the key); the corrected request goes through', async () => {
    const { showtimeId, customerId, holdId } = await heldSeats(['H3']);
    const token = await h.core.tokenFor(customerId, showtimeId);
    const key = unique('k-offsite');
    for (const returnUrl of ['https://evil.example/steal', 'http://[', '//evil.example/x']) {
      const refused = await h.core.call('POST', `/holds/${holdId}/checkout`, {
        token,
        headers: { 'idempotency-key': key },
        body: { returnUrl },
      });
      expect([refused.status, refused.json.error.code], returnUrl).toEqual([422, 'RETURN_URL_NOT_ALLOWED']);
    }
    const [none] = await sql`SELECT count(*)::int AS n FROM idempotency_key WHERE customer_id = ${customerId}`;
    expect(none!.n).toBe(0);
    const corrected = await h.core.call('POST', `/holds/${holdId}/checkout`, {
      token,
      headers: { 'idempotency-key': key },
      body: { returnUrl: `${TEST_PUBLIC_URL}/showtimes/${showtimeId}` },
    });
    expect(corrected.status, corrected.text).toBe(201);
  });
});
