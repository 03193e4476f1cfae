/**
 * A buyer's bookings outside a turn: listed and cancelled with the customer access token the
 * edge signs after verifying the customer token. Someone else's booking is refused, a forged or
 * wrongly typed token is refused, and the cancel is the same cancel (policy, idempotent).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { isolatedDatabase } from '../../../test/support/env';
import { signCustomerAccessToken } from '../../../lib/customer-access-token';
import { generateSigningJwk, loadTokenKeys } from '../../../lib/token-keys';
import { connectDatabase } from '../../src/db/connect';
import { releasedTogether, unique } from '../core-harness';
import { createPaymentHarness, type PaymentHarness } from '../payment-harness';
import { countMismatches } from '../fares/fare-harness';

let sql: Sql;
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let h: PaymentHarness;

beforeAll(async () => {
  database = await isolatedDatabase('customer_bookings');
  sql = connectDatabase(database.url, { max: 12, applicationName: 'test-customer-bookings' });
  h = await createPaymentHarness(sql);
});
afterAll(async () => {
  await h.close();
  await sql.end();
  await database?.drop();
});

/** A paid booking through checkout, the sandbox's approval and its webhook. */
async function booked(customerId: string, seats: string[], showtimeId?: number) {
  const showtime = showtimeId ?? (await h.core.createShowtime({ priceCents: 1500 })).showtimeId;
  const token = await h.core.tokenFor(customerId, showtime);
  const hold = await h.core.call('POST', `/showtimes/${showtime}/holds`, { token, body: { seats } });
  expect(hold.status).toBe(201);
  const checkout = await h.checkout(showtime, customerId, hold.json.holdId);
  expect(checkout.status).toBe(201);
  await h.sandboxApi('POST', `/v1/payments/${checkout.json.paymentId}/approve`);
  await h.sandbox.sandbox.dispatcher.idle();
  const [booking] = await sql<
    { id: string }[]
  >`SELECT id FROM booking WHERE payment_id = ${checkout.json.paymentId} AND status = 'CONFIRMED'`;
  expect(booking).toBeDefined();
  return { showtimeId: showtime, token, bookingId: booking!.id, paymentId: checkout.json.paymentId as string };
}

describe('bookings with the customer access token', () => {
  it("lists the customer's own bookings across showtimes, newest first, with what cancelling gives back; a turn's token lists its showtime only", async () => {
    const customer = unique('lister');
    const first = await booked(customer, ['A1', 'A2']);
    const second = await booked(customer, ['B3']);
    await booked(unique('stranger'), ['A3'], first.showtimeId);
    await sql`UPDATE showtime SET starts_at = now() + interval '2 days' WHERE id = ${first.showtimeId}`;

    const listed = await h.core.call('GET', '/bookings', { token: await h.core.customerTokenFor(customer) });
    expect(listed.status).toBe(200);
    expect(listed.json.customerId).toBe(customer);
    expect(listed.json.bookings.map((b: { bookingId: string }) => b.bookingId)).toEqual([
      second.bookingId,
      first.bookingId,
    ]);
    expect(listed.json.bookings[1]).toMatchObject({
      showtimeId: first.showtimeId,
      status: 'CONFIRMED',
      seats: ['A1', 'A2'],
      amountCents: 3000,
      currency: 'EUR',
      cancellable: true,
      cancelRefundCents: 3000,
      cancelPercent: 100,
    });
    expect(typeof listed.json.bookings[1].title).toBe('string');

    const turnOnly = await h.core.call('GET', '/bookings', { token: second.token });
    expect(turnOnly.json.bookings.map((b: { bookingId: string }) => b.bookingId)).toEqual([second.bookingId]);
    const nobody = await h.core.call('GET', '/bookings', { token: await h.core.customerTokenFor(unique('nobody')) });
    expect(nobody.json.bookings).toEqual([]);
  });

  it("cancels after the turn ended: the turn's expired token is refused, the customer token is accepted, a repeat answers the same", async () => {
    const customer = unique('late');
    const b = await booked(customer, ['C1', 'C2']);
    await sql`UPDATE showtime SET starts_at = now() + interval '10 hours' WHERE id = ${b.showtimeId}`;
    const expiredTurn = await h.core.tokenFor(customer, b.showtimeId, -60_000);
    expect((await h.core.call('DELETE', `/bookings/${b.bookingId}`, { token: expiredTurn })).json.error.code).toBe(
      'TOKEN_EXPIRED',
    );

    const token = await h.core.customerTokenFor(customer);
    const quote = await h.core.call('GET', `/bookings/${b.bookingId}/cancellation`, { token });
    expect(quote.json).toMatchObject({ cancellable: true, percent: 50, refundCents: 1500, amountCents: 3000 });
    const cancelled = await h.core.call('DELETE', `/bookings/${b.bookingId}`, { token });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({ status: 'CANCELLED', refundCents: 1500, percent: 50, seats: ['C1', 'C2'] });
    expect((await h.core.call('DELETE', `/bookings/${b.bookingId}`, { token })).json).toEqual(cancelled.json);
    expect(await h.paymentState(b.paymentId)).toMatchObject({
      payment: 'REFUND_REQUESTED',
      booking: 'CANCELLED',
      refund: 'PENDING',
    });
    const after = await h.core.call('GET', `/bookings/${b.bookingId}`, { token });
    expect(after.json).toMatchObject({ status: 'CANCELLED', refundCents: 1500 });
    const listed = await h.core.call('GET', '/bookings', { token });
    expect(listed.json.bookings[0]).toMatchObject({ status: 'CANCELLED', refundCents: 1500, cancellable: false });
    expect(listed.json.bookings[0].cancelRefundCents).toBeUndefined();
    expect(await countMismatches(sql, b.showtimeId)).toEqual([]);
  });

  it('the same cancel sent 8 times at once with the customer token: one cancellation, one refund command, the same answer to all', async () => {
    const customer = unique('twice');
    const b = await booked(customer, ['D4']);
    const token = await h.core.customerTokenFor(customer);
    const answers = await releasedTogether(8, () => h.core.call('DELETE', `/bookings/${b.bookingId}`, { token }));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((a) => JSON.stringify(a.json))).size).toBe(1);
    const [state] = await sql<{ commands: number; cancelled: number }[]>`
      SELECT (SELECT count(*)::int FROM refund_command WHERE payment_id = ${b.paymentId}) AS commands,
             (SELECT count(*)::int FROM outbox WHERE type = 'BookingCancelled' AND payload->>'bookingId' = ${b.bookingId}) AS cancelled`;
    expect(state).toEqual({ commands: 1, cancelled: 1 });
  });

  it("someone else's booking is refused with either token and nothing of it is shown; nothing changes", async () => {
    const owner = unique('owner');
    const b = await booked(owner, ['E5']);
    const stranger = await h.core.customerTokenFor(unique('stranger'));
    for (const [method, path] of [
      ['GET', `/bookings/${b.bookingId}`],
      ['GET', `/bookings/${b.bookingId}/cancellation`],
      ['DELETE', `/bookings/${b.bookingId}`],
    ] as const) {
      const refused = await h.core.call(method, path, { token: stranger });
      expect(refused.status).toBe(403);
      expect(refused.json.error.code).toBe('NOT_YOUR_BOOKING');
      expect(refused.text).not.toContain('E5');
      expect(refused.text).not.toContain(b.paymentId);
    }
    // The owner's turn token for another showtime does not reach this one.
    const other = await h.core.createShowtime();
    const wrongTurn = await h.core.tokenFor(owner, other.showtimeId);
    expect((await h.core.call('DELETE', `/bookings/${b.bookingId}`, { token: wrongTurn })).status).toBe(403);
    expect((await sql`SELECT status FROM booking WHERE id = ${b.bookingId}`)[0]!.status).toBe('CONFIRMED');
    const unknown = await h.core.call('DELETE', '/bookings/00000000-0000-4000-8000-000000000000', { token: stranger });
    expect(unknown.status).toBe(404);
  });

  it('forged, missing and wrongly typed tokens are refused: the customer token never admits to a showtime, a turn token never lists across showtimes', async () => {
    const customer = unique('forger');
    const b = await booked(customer, ['F6']);
    const otherKeys = await loadTokenKeys({ signingJwk: await generateSigningJwk('not-ours') });
    const forged = await signCustomerAccessToken(otherKeys, customer);
    expect((await h.core.call('GET', '/bookings', { token: forged })).json.error.code).toBe('INVALID_TOKEN');
    expect((await h.core.call('DELETE', `/bookings/${b.bookingId}`, { token: forged })).status).toBe(401);
    expect((await h.core.call('GET', '/bookings')).json.error.code).toBe('MISSING_TOKEN');
    expect((await h.core.call('GET', '/bookings', { token: 'not-a-jwt' })).status).toBe(401);
    const expired = await signCustomerAccessToken(h.core.tokenKeys, customer, Date.now() - 3_600_000);
    expect((await h.core.call('GET', '/bookings', { token: expired })).json.error.code).toBe('TOKEN_EXPIRED');
    // A customer access token is not an admission: the seat map and holds refuse it.
    const token = await h.core.customerTokenFor(customer);
    expect((await h.core.call('GET', `/showtimes/${b.showtimeId}/seats`, { token })).status).toBe(401);
    expect(
      (await h.core.call('POST', `/showtimes/${b.showtimeId}/holds`, { token, body: { seats: ['F7'] } })).status,
    ).toBe(401);
    expect((await sql`SELECT status FROM booking WHERE id = ${b.bookingId}`)[0]!.status).toBe('CONFIRMED');
  });
});
