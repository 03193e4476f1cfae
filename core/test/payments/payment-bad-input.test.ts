import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Sql } from 'postgres';
import { isolatedDatabase } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { TEST_ADMIN_TOKEN, unique } from '../core-harness';
import { createPaymentHarness, type PaymentHarness } from '../payment-harness';

let sql: Sql;
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let h: PaymentHarness;

beforeAll(async () => {
  database = await isolatedDatabase('paybad');
  sql = connectDatabase(database.url, { max: 8, applicationName: 'test-payment-bad-input' });
  h = await createPaymentHarness(sql);
});
afterAll(async () => {
  await h.close();
  await sql.end();
  await database?.drop();
});

async function snapshot(holdId: string) {
  const [row] = await sql`
    SELECT (SELECT count(*) FROM payment WHERE hold_id = ${holdId})::int AS payments,
           (SELECT status FROM seat_hold WHERE id = ${holdId}) AS hold,
           (SELECT count(*) FROM booking WHERE hold_id = ${holdId})::int AS bookings`;
  return row;
}

describe('checkout refusals: clear 4xx, nothing changed', () => {
  it('ids, tokens, keys and hold states', async () => {
    const { showtimeId } = await h.core.createShowtime({ holdTtlMs: 1000 });
    const owner = unique('owner');
    const hold = await h.core.hold(showtimeId, owner, ['A1']);
    const token = await h.core.tokenFor(owner, showtimeId);
    const key = { 'idempotency-key': unique('k') };
    const before = await snapshot(hold.json.holdId);
    expect((await h.core.call('POST', `/holds/${hold.json.holdId}/checkout`, { headers: key })).status).toBe(401);
    expect((await h.core.call('POST', '/holds/not-a-uuid/checkout', { token, headers: key })).status).toBe(404);
    expect(
      (await h.core.call('POST', '/holds/00000000-0000-4000-8000-000000000000/checkout', { token, headers: key }))
        .status,
    ).toBe(404);
    expect(
      (
        await h.core.call('POST', `/holds/${hold.json.holdId}/checkout`, {
          token,
          headers: { 'idempotency-key': 'x'.repeat(256) },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await h.core.call('POST', `/holds/${hold.json.holdId}/checkout`, {
          token,
          headers: key,
          rawBody: '{"returnUrl":',
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await h.core.call('POST', `/holds/${hold.json.holdId}/checkout`, {
          token,
          headers: { 'idempotency-key': unique('k') },
          body: { returnUrl: 5 },
        })
      ).status,
    ).toBe(422);
    expect(
      (
        await h.core.call('POST', `/holds/${hold.json.holdId}/checkout`, {
          token,
          headers: { 'idempotency-key': unique('k') },
          body: { extra: true },
        })
      ).status,
    ).toBe(422);
    expect(await snapshot(hold.json.holdId)).toEqual(before);

    await new Promise((resolve) => setTimeout(resolve, 1100));
    const expired = await h.core.call('POST', `/holds/${hold.json.holdId}/checkout`, {
      token,
      headers: { 'idempotency-key': unique('k') },
    });
    expect(expired.status).toBe(410);
    expect(expired.json.error.code).toBe('HOLD_EXPIRED');
    expect(await snapshot(hold.json.holdId)).toEqual(before);
  });

  it('generated bodies and keys never cause a 500 and never open more than one payment per key', async () => {
    const { showtimeId } = await h.core.createShowtime();
    const owner = unique('fuzz');
    const hold = await h.core.hold(showtimeId, owner, ['B1']);
    const token = await h.core.tokenFor(owner, showtimeId);
    const keys = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.constantFrom('k1', 'k2', 'k1')),
        fc.oneof(fc.json(), fc.string({ maxLength: 50 }), fc.constant(''), fc.constant('{"returnUrl":"/showtimes/1"}')),
        async (key, rawBody) => {
          const answer = await h.core.call('POST', `/holds/${hold.json.holdId}/checkout`, {
            token,
            rawBody,
            headers: { 'content-type': 'application/json', 'idempotency-key': key },
          });
          expect(answer.status).toBeLessThan(500);
          if (answer.status === 201) keys.add(key);
        },
      ),
      { numRuns: 80 },
    );
    const [row] = await sql`SELECT count(*)::int AS n FROM payment WHERE hold_id = ${hold.json.holdId}`;
    expect(row!.n).toBe(keys.size);
  });

  it('bookings and operator refunds refuse bad ids and the wrong people', async () => {
    const token = await h.core.tokenFor(unique('x'), 1);
    expect((await h.core.call('GET', '/bookings/nope', { token })).status).toBe(404);
    expect((await h.core.call('GET', '/bookings/00000000-0000-4000-8000-000000000000', { token })).status).toBe(404);
    expect((await h.core.call('POST', '/admin/bookings/00000000-0000-4000-8000-000000000000/refund')).status).toBe(401);
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    expect(
      (await h.core.call('POST', '/admin/bookings/00000000-0000-4000-8000-000000000000/refund', { headers: admin }))
        .status,
    ).toBe(404);
    // A FAILED booking (its payment lost the race) cannot be refunded by an operator: its refund is already on its way.
    const { showtimeId } = await h.core.createShowtime({ holdTtlMs: 1000 });
    const customerId = unique('late');
    const hold = await h.core.hold(showtimeId, customerId, ['C1']);
    const paymentId = await h.fakePayment({ holdId: hold.json.holdId, showtimeId, customerId });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await h.postCallback(h.signedCallback({ type: 'payment.succeeded', paymentId }));
    const [failed] = await sql<{ id: string }[]>`SELECT id FROM booking WHERE payment_id = ${paymentId}`;
    const refused = await h.core.call('POST', `/admin/bookings/${failed!.id}/refund`, { headers: admin });
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe('BOOKING_NOT_REFUNDABLE');
  });
});
