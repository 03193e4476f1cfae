/**
 * Abuse matrix, the core's part, over HTTP on the run's PostgreSQL: webhooks that leave out
 * the amount or currency are refused (never settled unchecked); checkouts of holds that do
 * not exist leave no idempotency record behind; access tokens the edge would refuse (no
 * `kid`, a look-alike `typ`, issued in the future, a prototype-property customer id) are
 * refused by the core too.
 */
import { SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_TYPE, TOKEN_ISSUER } from '../../lib/access-token';
import { signWebhook } from '../../lib/webhook-signature';
import { isolatedDatabase } from '../../test/support/env';
import { connectDatabase } from '../src/db/connect';
import { TEST_WEBHOOK_SECRET, testTokenKeys, unique } from './core-harness';
import { createPaymentHarness, type PaymentHarness } from './payment-harness';

let sql: Sql;
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let h: PaymentHarness;

beforeAll(async () => {
  database = await isolatedDatabase('abusecore');
  sql = connectDatabase(database.url, { max: 4, applicationName: 'test-abuse-core' });
  h = await createPaymentHarness(sql);
});
afterAll(async () => {
  await h?.close();
  await sql?.end();
  await database?.drop();
});

describe('payment webhooks', () => {
  it('refuses a signed payment.succeeded or refund.succeeded without amount or currency, and changes nothing', async () => {
    const { showtimeId } = await h.core.createShowtime();
    const customerId = unique('nomoney');
    const hold = await h.core.hold(showtimeId, customerId, ['A1']);
    const paymentId = await h.fakePayment({ holdId: hold.json.holdId, showtimeId, customerId });
    for (const type of ['payment.succeeded', 'refund.succeeded']) {
      for (const data of [{ paymentId }, { paymentId, amount: 1000 }, { paymentId, currency: 'EUR' }]) {
        const body = JSON.stringify({
          id: `evt_${randomUUID().replaceAll('-', '')}`,
          type,
          created: Math.floor(Date.now() / 1000),
          data,
        });
        const answer = await h.postCallback({
          body,
          signature: signWebhook(body, [TEST_WEBHOOK_SECRET], Math.floor(Date.now() / 1000)),
        });
        expect(answer.status, `${type} ${JSON.stringify(data)}`).toBe(422);
        expect(answer.json.error.code).toBe('AMOUNT_REQUIRED');
      }
    }
    expect(await h.paymentState(paymentId)).toMatchObject({ payment: 'PENDING', booking: null, refund: null });
  });
});

describe('checkout idempotency records', () => {
  it('keeps none for checkouts of holds that do not exist or are not the caller’s', async () => {
    const { showtimeId } = await h.core.createShowtime();
    const customerId = unique('flooder');
    const attempts = await Promise.all(
      Array.from({ length: 30 }, () => h.checkout(showtimeId, customerId, randomUUID())),
    );
    expect(attempts.map((a) => a.status)).toEqual(Array(30).fill(404));
    const owner = unique('owner');
    const hold = await h.core.hold(showtimeId, owner, ['B2']);
    expect((await h.checkout(showtimeId, customerId, hold.json.holdId)).status).toBe(403);
    const [row] = await sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM idempotency_key WHERE customer_id = ${customerId}`;
    expect(row!.n).toBe(0);
  });
});

describe('access tokens at the core', () => {
  it('refuses what the edge refuses: no kid, a look-alike typ, a future iat, a prototype-property customer id', async () => {
    const { showtimeId } = await h.core.createShowtime();
    const keys = await testTokenKeys();
    const nowSeconds = Math.floor(Date.now() / 1000);
    const sign = (header: Record<string, unknown>, claims: { sub?: string; iat?: number } = {}) =>
      new SignJWT({ sid: `${showtimeId}.1` })
        .setProtectedHeader({ alg: 'ES256', ...header })
        .setIssuer(TOKEN_ISSUER)
        .setSubject(claims.sub ?? unique('buyer'))
        .setAudience(`showtime:${showtimeId}`)
        .setIssuedAt(claims.iat ?? nowSeconds)
        .setExpirationTime(nowSeconds + 600)
        .sign(keys.signing!.privateKey);
    const kid = keys.signing!.kid;
    const seats = (token: string) => h.core.call('GET', `/showtimes/${showtimeId}/seats`, { token });
    expect((await seats(await sign({ kid, typ: ACCESS_TOKEN_TYPE }))).status).toBe(200);
    const refused = {
      'no kid': await sign({ typ: ACCESS_TOKEN_TYPE }),
      'look-alike typ': await sign({ kid, typ: `application/${ACCESS_TOKEN_TYPE}` }),
      'future iat': await sign({ kid, typ: ACCESS_TOKEN_TYPE }, { iat: nowSeconds + 3600 }),
      'prototype id': await sign({ kid, typ: ACCESS_TOKEN_TYPE }, { sub: '__proto__' }),
    };
    for (const [name, token] of Object.entries(refused)) expect((await seats(token)).status, name).toBe(401);
  });
});
