import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import pino from 'pino';
import { isolatedDatabase } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { releasedTogether, unique } from '../core-harness';
import { createPaymentHarness, type PaymentHarness } from '../payment-harness';
import { backgroundJobs } from '../../src/jobs/job-runner';
import { inProcessSink } from '../../src/events/event-sink';

let sql: Sql;
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let h: PaymentHarness;

beforeAll(async () => {
  database = await isolatedDatabase('callbacks');
  sql = connectDatabase(database.url, { max: 32, applicationName: 'test-callback-races' });
  h = await createPaymentHarness(sql);
});
afterAll(async () => {
  await h.close();
  await sql.end();
  await database?.drop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function seatOwners(showtimeId: number, seat: string) {
  const [row] = await sql<{ status: string; hold_id: string | null; booking_id: string | null }[]>`
    SELECT status, hold_id, booking_id FROM show_seat WHERE showtime_id = ${showtimeId} AND seat_code = ${seat}`;
  return row!;
}

describe('payment callbacks under duplication and races', () => {
  it('64 identical callbacks at once, 200 rounds: one booking and one BookingConfirmed per round, all answered 2xx', async () => {
    const { showtimeId } = await h.core.createShowtime({ layout: { rows: 10, columns: 20 } });
    const seats = (
      await sql<
        { seat_code: string }[]
      >`SELECT seat_code FROM show_seat WHERE showtime_id = ${showtimeId} ORDER BY seat_code`
    ).map((r) => r.seat_code);
    for (let round = 0; round < 200; round++) {
      const customerId = unique(`dup-${round}`);
      const hold = await h.core.hold(showtimeId, customerId, [seats[round]!]);
      const paymentId = await h.fakePayment({ holdId: hold.json.holdId, showtimeId, customerId });
      const callback = h.signedCallback({ type: 'payment.succeeded', paymentId });
      const answers = await releasedTogether(64, () => h.postCallback(callback));
      expect(
        answers.filter((a) => a.status !== 200),
        `round ${round}`,
      ).toEqual([]);
      expect(answers.filter((a) => a.json.outcome === 'booked')).toHaveLength(1);
    }
    const [counts] = await sql<{ bookings: number; confirmed_events: number; booked: number }[]>`
      SELECT (SELECT count(*) FROM booking WHERE showtime_id = ${showtimeId})::int AS bookings,
             (SELECT count(*) FROM outbox WHERE showtime_id = ${showtimeId} AND type = 'BookingConfirmed')::int AS confirmed_events,
             (SELECT count(*) FROM show_seat WHERE showtime_id = ${showtimeId} AND status = 'BOOKED')::int AS booked`;
    expect(counts).toEqual({ bookings: 200, confirmed_events: 200, booked: 200 });
  });

  it('a callback one second before expiry books; one second after refunds; after a resale the seat stays with its new holder', async () => {
    const { showtimeId } = await h.core.createShowtime({ holdTtlMs: 2000 });
    const before = { customer: unique('before'), seat: 'A1' };
    const after = { customer: unique('after'), seat: 'A2' };
    const resold = { customer: unique('resold'), seat: 'A3' };
    const holds = await Promise.all([before, after, resold].map((b) => h.core.hold(showtimeId, b.customer, [b.seat])));
    const payments = await Promise.all(
      [before, after, resold].map((b, i) =>
        h.fakePayment({ holdId: holds[i]!.json.holdId, showtimeId, customerId: b.customer }),
      ),
    );

    await sleep(1000); // 1 s before expiry
    expect(
      (await h.postCallback(h.signedCallback({ type: 'payment.succeeded', paymentId: payments[0]! }))).json.outcome,
    ).toBe('booked');
    await sleep(2000); // 1 s after expiry
    const rival = await h.core.hold(showtimeId, unique('rival'), ['A3']);
    expect(rival.status).toBe(201);
    expect(
      (await h.postCallback(h.signedCallback({ type: 'payment.succeeded', paymentId: payments[1]! }))).json.outcome,
    ).toBe('refund_requested');
    expect(
      (await h.postCallback(h.signedCallback({ type: 'payment.succeeded', paymentId: payments[2]! }))).json.outcome,
    ).toBe('refund_requested');

    expect(await h.paymentState(payments[0]!)).toEqual({ payment: 'SUCCEEDED', booking: 'CONFIRMED', refund: null });
    expect(await h.paymentState(payments[1]!)).toEqual({
      payment: 'REFUND_REQUESTED',
      booking: 'FAILED',
      refund: 'PENDING',
    });
    expect(await h.paymentState(payments[2]!)).toEqual({
      payment: 'REFUND_REQUESTED',
      booking: 'FAILED',
      refund: 'PENDING',
    });
    expect((await seatOwners(showtimeId, 'A1')).status).toBe('BOOKED');
    expect((await seatOwners(showtimeId, 'A2')).status).toBe('HELD'); // lapsed, not yet swept: free by the clock
    expect(await seatOwners(showtimeId, 'A3')).toMatchObject({ status: 'HELD', hold_id: rival.json.holdId });
    const refunds =
      await sql`SELECT count(*)::int AS n FROM refund_command WHERE payment_id IN ${sql([payments[1]!, payments[2]!])}`;
    expect(refunds[0]!.n).toBe(2);
  });

  it('payment against expiry, 500 trials racing at the expiry instant: never two owners, never money without a seat or a refund', async () => {
    const { showtimeId } = await h.core.createShowtime({ holdTtlMs: 1000, layout: { rows: 20, columns: 25 } });
    const seats = (
      await sql<
        { seat_code: string }[]
      >`SELECT seat_code FROM show_seat WHERE showtime_id = ${showtimeId} ORDER BY seat_code`
    ).map((r) => r.seat_code);
    const jobs = backgroundJobs({
      sql,
      gateway: h.gateway,
      sink: inProcessSink(),
      logger: pino({ level: 'silent' }),
    }).jobs;
    // Ten waves of 50 trials, so each expiry instant meets a burst the machine can serve on
    // time. In each trial the callback, a rival's hold and a sweeper pass fire at random
    // instants within ±100 ms of that hold's expiry.
    type Outcome = {
      trial: { seat: string; holdId: string; paymentId: string };
      callback: Awaited<ReturnType<PaymentHarness['postCallback']>>;
      rival: Awaited<ReturnType<PaymentHarness['core']['call']>>;
      seat: Awaited<ReturnType<typeof seatOwners>>;
    };
    const outcomes: Outcome[] = [];
    for (let wave = 0; wave < 10; wave++) {
      const trials = await Promise.all(
        seats.slice(wave * 50, wave * 50 + 50).map(async (seat) => {
          const customerId = unique('racer');
          const rival = await h.core.tokenFor(unique('rival'), showtimeId);
          const hold = await h.core.hold(showtimeId, customerId, [seat]);
          const paymentId = await h.fakePayment({ holdId: hold.json.holdId, showtimeId, customerId });
          return {
            seat,
            holdId: hold.json.holdId as string,
            expiresAtMs: Date.parse(hold.json.expiresAt),
            paymentId,
            rival,
          };
        }),
      );
      outcomes.push(
        ...(await Promise.all(
          trials.map(async (trial) => {
            const at = (offsetMs: number) => sleep(Math.max(0, trial.expiresAtMs + offsetMs - Date.now()));
            const jitter = () => Math.random() * 200 - 100;
            const [callback, rival] = await Promise.all([
              at(jitter()).then(() =>
                h.postCallback(h.signedCallback({ type: 'payment.succeeded', paymentId: trial.paymentId })),
              ),
              at(jitter()).then(() =>
                h.core.call('POST', `/showtimes/${showtimeId}/holds`, {
                  token: trial.rival,
                  body: { seats: [trial.seat] },
                }),
              ),
              at(jitter()).then(() => jobs.sweeper()),
            ]);
            // Read at once: the rival's own hold lasts only a second too.
            return { trial, callback, rival, seat: await seatOwners(showtimeId, trial.seat) };
          }),
        )),
      );
    }

    let booked = 0;
    let refunded = 0;
    for (const { trial, callback, rival, seat } of outcomes) {
      expect(callback.status).toBe(200);
      expect([201, 409]).toContain(rival.status);
      const state = await h.paymentState(trial.paymentId);
      if (callback.json.outcome === 'booked') {
        booked++;
        expect(rival.status).toBe(409);
        expect(seat.status).toBe('BOOKED');
        expect(state).toEqual({ payment: 'SUCCEEDED', booking: 'CONFIRMED', refund: null });
      } else {
        refunded++;
        expect(callback.json.outcome).toBe('refund_requested');
        expect(state).toEqual({ payment: 'REFUND_REQUESTED', booking: 'FAILED', refund: 'PENDING' });
        expect(seat.status).not.toBe('BOOKED');
        if (rival.status === 201) {
          // The seat stayed with the rival, unless the rival's own one-second hold lapsed since.
          if (seat.hold_id !== rival.json.holdId) {
            const [rivalHold] = await sql`SELECT status FROM seat_hold WHERE id = ${rival.json.holdId}`;
            expect({ seat: seat.status, rivalHold: rivalHold!.status }).toEqual({
              seat: 'AVAILABLE',
              rivalHold: 'EXPIRED',
            });
          }
        } else if (seat.status === 'HELD') expect(seat.hold_id).toBe(trial.holdId); // the lapsed hold, not yet swept
      }
    }
    expect(booked + refunded).toBe(500);
    expect(booked, 'some payments won the race').toBeGreaterThan(0);
    expect(refunded, 'some payments lost the race').toBeGreaterThan(0);
    // Money and seats agree for the whole showtime: every paid payment has a seat or a refund.
    const [orphans] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM payment p
       WHERE p.showtime_id = ${showtimeId} AND p.status IN ('SUCCEEDED', 'REFUND_REQUESTED')
         AND NOT EXISTS (SELECT 1 FROM booking b WHERE b.payment_id = p.id AND b.status = 'CONFIRMED')
         AND NOT EXISTS (SELECT 1 FROM refund_command r WHERE r.payment_id = p.id)`;
    expect(orphans!.n).toBe(0);
    const [doubles] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM show_seat s JOIN booking b ON b.id = s.booking_id
       WHERE s.showtime_id = ${showtimeId} AND b.status <> 'CONFIRMED'`;
    expect(doubles!.n).toBe(0);
  });
});

describe('webhook signature matrix', () => {
  async function pendingPayment() {
    const { showtimeId } = await h.core.createShowtime();
    const customerId = unique('sig');
    const hold = await h.core.hold(showtimeId, customerId, ['B1']);
    return h.fakePayment({ holdId: hold.json.holdId, showtimeId, customerId });
  }
  const now = () => Math.floor(Date.now() / 1000);

  it.each([
    ['the right secret', () => ({}), 200],
    ['a wrong secret', () => ({ secrets: ['whsec_wrong'] }), 401],
    ['signed 299 s ago', () => ({ signedAtSeconds: now() - 299 }), 200],
    ['signed 301 s ago', () => ({ signedAtSeconds: now() - 301 }), 401],
    ['signed 301 s in the future', () => ({ signedAtSeconds: now() + 301 }), 401],
    [
      'two v1 values during a rotation, one of them ours',
      () => ({ secrets: ['whsec_new_one', 'whsec_test_secret'] }),
      200,
    ],
  ])('%s', async (_label, options, status) => {
    const paymentId = await pendingPayment();
    const answer = await h.postCallback(h.signedCallback({ type: 'payment.succeeded', paymentId }, options()));
    expect(answer.status).toBe(status);
    expect((await h.paymentState(paymentId))!.payment).toBe(status === 200 ? 'SUCCEEDED' : 'PENDING');
  });

  it('a body re-serialised after signing, a missing or malformed header: refused, nothing changes', async () => {
    const paymentId = await pendingPayment();
    const signed = h.signedCallback({ type: 'payment.succeeded', paymentId });
    const reserialised = JSON.stringify(JSON.parse(signed.body), null, 1);
    expect((await h.postCallback({ body: reserialised, signature: signed.signature })).status).toBe(401);
    expect((await h.core.call('POST', '/payments/callback', { rawBody: signed.body })).status).toBe(401);
    expect((await h.postCallback({ body: signed.body, signature: 'v1=abc' })).status).toBe(401);
    expect((await h.paymentState(paymentId))!.payment).toBe('PENDING');
    const [events] = await sql`SELECT count(*)::int AS n FROM payment_event WHERE payment_id = ${paymentId}`;
    expect(events!.n).toBe(0);
  });

  it('signed but malformed or unknown: clear 4xx or a retry request, never a 500, nothing recorded', async () => {
    const { signWebhook } = await import('../../../lib/webhook-signature');
    const post = (body: string) => h.postCallback({ body, signature: signWebhook(body, ['whsec_test_secret'], now()) });
    expect((await post('{"id":')).status).toBe(400);
    expect((await post('{"id":"evt_1","type":"payment.succeeded"}')).status).toBe(422);
    expect(
      (
        await post(
          JSON.stringify({ id: 'evt_x', type: 'customer.created', created: now(), data: { paymentId: 'pay_x' } }),
        )
      ).json.outcome,
    ).toBe('ignored');
    const unknown = await post(
      JSON.stringify({
        id: 'evt_unknown',
        type: 'payment.succeeded',
        created: now(),
        data: { paymentId: 'pay_nope', amount: 1000, currency: 'EUR' },
      }),
    );
    expect(unknown.status).toBe(503);
    expect(unknown.headers.get('retry-after')).toBeTruthy();
    const [events] = await sql`SELECT count(*)::int AS n FROM payment_event WHERE event_id = 'evt_unknown'`;
    expect(events!.n).toBe(0);
  });
});

describe('the state machine', () => {
  it('refuses transitions it does not list, whoever writes them', async () => {
    const { showtimeId } = await h.core.createShowtime();
    const customerId = unique('sm');
    const hold = await h.core.hold(showtimeId, customerId, ['C1']);
    const paymentId = await h.fakePayment({ holdId: hold.json.holdId, showtimeId, customerId });
    await expect(
      sql`UPDATE payment SET status = 'REFUNDED', status_cause = 'bug' WHERE id = ${paymentId}`,
    ).rejects.toMatchObject({ code: 'WRT09' });
    await expect(
      sql`UPDATE seat_hold SET status = 'ACTIVE', status_cause = 'bug' WHERE id = ${hold.json.holdId}`,
    ).resolves.toBeDefined(); // unchanged: no transition
    await sql`UPDATE seat_hold SET status = 'CANCELLED', status_cause = 'test', ended_at = now() WHERE id = ${hold.json.holdId}`;
    await expect(
      sql`UPDATE seat_hold SET status = 'ACTIVE', status_cause = 'bug', ended_at = NULL WHERE id = ${hold.json.holdId}`,
    ).rejects.toMatchObject({ code: 'WRT09' });
    const log =
      await sql`SELECT from_state, to_state, cause FROM state_transition WHERE entity_type = 'hold' AND entity_id = ${hold.json.holdId} ORDER BY id`;
    expect(log.map((r) => `${r.from_state}->${r.to_state}:${r.cause}`)).toEqual([
      'null->ACTIVE:hold requested',
      'ACTIVE->CANCELLED:test',
    ]);
  });
});
