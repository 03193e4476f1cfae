/**
 * Contract tests of the core's own API (port 8081): real answers of a running core (HTTP, this
 * run's PostgreSQL, the payment sandbox delivering its webhooks to the core) held to the OpenAPI
 * document the core serves at GET /openapi.json. For every call: the status is documented for
 * that operation, the body validates against the documented schema (ajv, JSON Schema 2020-12),
 * required headers are there, and an error's code is one the document lists for that status.
 * At the end every operation of the document has been called and every route the core serves
 * is in the document, so the two cannot drift apart.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import { isolatedDatabase } from '../support/env';
import { callJson, eventually, fetchFrom, type JsonCallInit, type JsonResult } from '../support/json-call';
import { openApiConformance, type ApiDocument } from '../support/openapi-conformance';
import { connectDatabase } from '../../core/src/db/connect';
import { parseCoreConfig } from '../../core/src/config';
import { startCore, type RunningCore } from '../../core/src/node';
import { startPaymentSandbox, type RunningPaymentSandbox } from '../../payment-sandbox/src/start';
import { generateSigningJwk, loadTokenKeys, type TokenKeyMaterial } from '../../lib/token-keys';
import { signAccessToken } from '../../lib/access-token';
import { rectangularLayout } from '../../core/src/demo/seat-layout';
import { createCoreHarness } from '../../core/test/core-harness';
import { ERROR_STATUS } from '../../lib/error-codes';

const ADMIN = 'core-contract-admin-token-0123456789';
const SECRET = 'whsec_core_contract';
const API_KEY = 'sk_test_core_contract';

let sql: ReturnType<typeof connectDatabase>;
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let keys: TokenKeyMaterial;
let sandbox: RunningPaymentSandbox;
let core: RunningCore;

let doc: ApiDocument;
let contract: ReturnType<typeof openApiConformance>;

beforeAll(async () => {
  database = await isolatedDatabase('core-contract');
  sql = connectDatabase(database.url, { max: 8, applicationName: 'test-core-contract' });
  keys = await loadTokenKeys({ signingJwk: await generateSigningJwk('core-contract-1') });
  let coreUrl = '';
  sandbox = await startPaymentSandbox({
    port: 0,
    config: {
      apiKey: API_KEY,
      webhookSecrets: [SECRET],
      webhook: { baseDelayMs: 20, maxDelayMs: 200, maxAttempts: 50 },
    },
    fetch: (_url, init) => fetch(`${coreUrl}/payments/callback`, init as RequestInit),
  });
  core = await startCore(
    parseCoreConfig({
      CORE_PORT: '0',
      CORE_HOST: '127.0.0.1',
      ADMIN_TOKEN: ADMIN,
      PAYMENT_URL: sandbox.url,
      PAYMENT_API_KEY: API_KEY,
      PAYMENT_WEBHOOK_SECRET: SECRET,
      PUBLIC_URL: 'http://127.0.0.1:1',
      LOG_LEVEL: 'silent',
    }),
    { sql, tokenKeys: keys, jobSettings: { relayEveryMs: 50, sweepEveryMs: 200 } },
  );
  coreUrl = core.url;

  const served = await callJson(fetchFrom(core.url), 'GET', '/openapi.json');
  expect(served.status).toBe(200);
  doc = served.json as ApiDocument;
  contract = openApiConformance(doc, 'core');
});
afterAll(async () => {
  await core?.close();
  await sandbox?.close();
  await sql?.end();
  await database?.drop();
});

/** Calls the service and holds the answer to the document's operation `method template`. */
const call = (
  method: string,
  template: string,
  params: Record<string, string | number>,
  init?: JsonCallInit,
): Promise<JsonResult> => contract.call(core.url, method, template, params, init);
const conforms = (method: string, template: string, result: JsonResult) => contract.conforms(method, template, result);

const admin = { authorization: `Bearer ${ADMIN}` };
const tokenFor = (customerId: string, showtimeId: number) =>
  signAccessToken(keys, { customerId, showtimeId, sessionId: `s-${customerId}`, expiresAtMs: Date.now() + 600_000 });
const signed = (body: string) => {
  const t = Math.floor(Date.now() / 1000);
  return {
    'content-type': 'application/json',
    'x-signature': `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex')}`,
  };
};

async function newShowtime() {
  const venue = await call(
    'post',
    '/admin/venues',
    {},
    { headers: admin, body: { name: `Core contract ${randomUUID()}`, city: 'Lyon' } },
  );
  expect(venue.status).toBe(201);
  const seats = rectangularLayout({ rows: 2, columns: 6 }).map(({ code, rowLabel, row, column, type }) => ({
    code,
    rowLabel,
    row,
    column,
    type,
  }));
  const hall = await call(
    'post',
    '/admin/venues/{venueId}/halls',
    { venueId: venue.json.id },
    { headers: admin, body: { name: 'Hall 1', seats } },
  );
  expect(hall.status).toBe(201);
  const showtime = await call(
    'post',
    '/admin/showtimes',
    {},
    {
      headers: admin,
      body: {
        hallId: hall.json.id,
        title: 'Core contract',
        startsAt: new Date(Date.now() + 86_400_000).toISOString(),
        priceCents: 900,
      },
    },
  );
  expect(showtime.status).toBe(201);
  return showtime.json.id as number;
}

describe('real answers of the core conform to its /openapi.json', () => {
  it('the document is valid OpenAPI 3.1; operations answer as described', async () => {
    await SwaggerParser.validate(structuredClone(doc) as never);
    // Every code the document lists is one of the catalogue's, under the catalogue's status.
    const listed = Object.values(doc.paths).flatMap((methods) =>
      Object.values(methods).flatMap((op) =>
        Object.entries(op.responses).flatMap(([status, answer]) =>
          (answer['x-error-codes'] ?? []).map((code) => `${status} ${code}`),
        ),
      ),
    );
    expect(
      listed.filter((entry) => {
        const [status, code] = entry.split(' ');
        return String(ERROR_STATUS[code as keyof typeof ERROR_STATUS]) !== status;
      }),
    ).toEqual([]);
    await call('get', '/openapi.json', {});
    await call('get', '/healthz', {});
    await call('get', '/readyz', {});
    const metrics = await fetch(`${core.url}/metrics`);
    expect(metrics.status).toBe(200);
    conforms('get', '/metrics', { status: 200, json: null, text: await metrics.text(), headers: metrics.headers });
  });

  it('catalog: venues, halls, showtimes, fares, seat classes and the refund policy, with the refusals', async () => {
    await call('get', '/admin/venues', {}, {});
    await call('post', '/admin/venues', {}, { headers: admin, rawBody: '{nope' });
    await call('post', '/admin/venues', {}, { headers: admin, body: { name: '' } });
    await call(
      'post',
      '/admin/venues/{venueId}/halls',
      { venueId: 'nope' },
      { headers: admin, body: { name: 'H', seats: [{ code: 'A1', rowLabel: 'A', row: 1, column: 1 }] } },
    );
    await call(
      'post',
      '/admin/venues/{venueId}/halls',
      { venueId: 999_999 },
      { headers: admin, body: { name: 'H', seats: [{ code: 'A1', rowLabel: 'A', row: 1, column: 1 }] } },
    );
    await call('post', '/admin/showtimes', {}, { headers: admin, body: { hallId: 1, title: '' } });
    const id = await newShowtime();
    await call('get', '/admin/venues', {}, { headers: admin });
    await call('get', '/admin/showtimes/{showtimeId}', { showtimeId: id }, { headers: admin });
    await call('get', '/admin/showtimes/{showtimeId}', { showtimeId: 999_999 }, { headers: admin });
    await call(
      'patch',
      '/admin/showtimes/{showtimeId}',
      { showtimeId: id },
      { headers: admin, body: { maxSeatsPerCustomer: 6 } },
    );
    await call('patch', '/admin/showtimes/{showtimeId}', { showtimeId: id }, { headers: admin, body: {} });

    await call('get', '/admin/showtimes/{showtimeId}/fares', { showtimeId: id }, { headers: admin });
    const created = await call(
      'put',
      '/admin/showtimes/{showtimeId}/fares/{fareClass}',
      { showtimeId: id, fareClass: 'STANDING' },
      { headers: admin, body: { label: 'Standing', capacity: 20, priceCents: 500 } },
    );
    expect(created.status).toBe(201);
    const changed = await call(
      'put',
      '/admin/showtimes/{showtimeId}/fares/{fareClass}',
      { showtimeId: id, fareClass: 'STANDING' },
      { headers: admin, body: { capacity: 30 } },
    );
    expect(changed.status).toBe(200);
    await call(
      'put',
      '/admin/showtimes/{showtimeId}/fares/{fareClass}',
      { showtimeId: id, fareClass: 'STANDING' },
      { headers: admin, body: { capacity: -1 } },
    );
    const moved = await call(
      'put',
      '/admin/showtimes/{showtimeId}/seat-classes',
      { showtimeId: id },
      { headers: admin, body: { seats: ['A1', 'A2'], fareClass: 'PREMIUM' } },
    );
    expect(moved.status, moved.text).toBe(200);
    await call('put', '/admin/showtimes/{showtimeId}/seat-classes', { showtimeId: id }, { headers: admin, body: {} });

    await call('get', '/admin/showtimes/{showtimeId}/refund-policy', { showtimeId: id }, { headers: admin });
    await call(
      'put',
      '/admin/showtimes/{showtimeId}/refund-policy',
      { showtimeId: id },
      { headers: admin, body: { tiers: [{ percent: 80, beforeStartMinutes: 60 }] } },
    );
    await call(
      'put',
      '/admin/showtimes/{showtimeId}/refund-policy',
      { showtimeId: id },
      { headers: admin, body: { tiers: [{ percent: 180, beforeStartMinutes: 60 }] } },
    );
    await call('get', '/admin/showtimes/{showtimeId}/refund-policy', { showtimeId: 999_999 }, { headers: admin });
  });

  it("sale control: rooms, a change, the operators' 409, the turn ledger, the audit log and admission health", async () => {
    const id = await newShowtime();
    await call('get', '/admin/rooms', {}, { headers: admin });
    await call('get', '/admin/showtimes/{showtimeId}/room', { showtimeId: id }, { headers: admin });
    await call('get', '/admin/showtimes/{showtimeId}/room', { showtimeId: 999_999 }, { headers: admin });
    const changed = await call(
      'put',
      '/admin/showtimes/{showtimeId}/room',
      { showtimeId: id },
      { headers: { ...admin, 'x-operator': 'ops@example' }, body: { capacity: 5, admitPerMinute: 120 } },
    );
    expect(changed.json.version).toBe(2);
    const refused = await call(
      'put',
      '/admin/showtimes/{showtimeId}/room',
      { showtimeId: id },
      {
        headers: admin,
        body: { state: 'scheduled', opensAt: new Date(Date.now() + 3_600_000).toISOString() },
      },
    );
    expect([refused.status, refused.json.error.code]).toEqual([409, 'ALREADY_OPENED']);
    await call(
      'put',
      '/admin/showtimes/{showtimeId}/room',
      { showtimeId: id },
      { headers: admin, body: { capacity: -3 } },
    );
    await call('put', '/admin/showtimes/{showtimeId}/room', { showtimeId: id }, { body: { capacity: 3 } });

    expect(
      (
        await call(
          'post',
          '/admin/showtimes/{showtimeId}/turns',
          { showtimeId: id },
          { headers: admin, body: { customerId: 'turn-1', ticket: 1, expiresAtMs: Date.now() + 60_000 } },
        )
      ).status,
    ).toBe(204);
    await call(
      'post',
      '/admin/showtimes/{showtimeId}/turns',
      { showtimeId: id },
      { headers: admin, body: { customerId: 'turn-1' } },
    );
    const room = await call('get', '/admin/showtimes/{showtimeId}/room', { showtimeId: id }, { headers: admin });
    expect(room.json.turns).toEqual([expect.objectContaining({ customerId: 'turn-1', ticket: 1 })]);
    expect(
      (
        await call(
          'post',
          '/admin/showtimes/{showtimeId}/turns/end',
          { showtimeId: id },
          { headers: admin, body: { customerId: 'turn-1' } },
        )
      ).json,
    ).toEqual({ ended: 1 });
    await call('post', '/admin/showtimes/{showtimeId}/turns/end', { showtimeId: id }, { headers: admin, body: {} });

    const audit = await call('get', '/admin/showtimes/{showtimeId}/room/audit', { showtimeId: id }, { headers: admin });
    expect(audit.json.entries[0]).toMatchObject({
      actor: 'ops@example',
      action: 'room.update',
      before: expect.objectContaining({ capacity: 200 }),
      after: expect.objectContaining({ capacity: 5 }),
    });
    await call('get', '/admin/showtimes/{showtimeId}/room/audit', { showtimeId: 999_999 }, { headers: admin });
    await call('get', '/admin/admission-health', {}, { headers: admin });
    const health = await call('get', `/admin/admission-health`, {}, { headers: admin });
    expect(health.json.poolSize).toBeGreaterThan(0);
    await callJson(fetchFrom(core.url), 'GET', `/admin/admission-health?showtimes=${id}`, { headers: admin }).then(
      (r) => conforms('get', '/admin/admission-health', r),
    );
    await callJson(fetchFrom(core.url), 'GET', '/admin/admission-health?showtimes=nope', { headers: admin }).then((r) =>
      conforms('get', '/admin/admission-health', r),
    );
  });

  it("a buyer: seat map, holds, checkout (with a key in flight), the gateway's webhook, the booking, cancelling and refunds", async () => {
    const id = await newShowtime();
    const other = await newShowtime();
    const buyer = 'core-buyer-1';
    const token = await tokenFor(buyer, id);
    const rival = await tokenFor('core-buyer-2', id);
    await call('get', '/showtimes', {});
    await call('get', '/showtimes/{showtimeId}', { showtimeId: id }, {});
    await call('get', '/showtimes/{showtimeId}', { showtimeId: 999_999 }, {});
    await call('get', '/showtimes/{showtimeId}/fairness', { showtimeId: id }, {});
    await call('get', '/showtimes/{showtimeId}/fairness', { showtimeId: 999_999 }, {});
    await call('get', '/showtimes/{showtimeId}/seats', { showtimeId: id }, { token });
    await call('get', '/showtimes/{showtimeId}/seats', { showtimeId: id }, {});
    await call('get', '/showtimes/{showtimeId}/seats', { showtimeId: other }, { token });

    await call('post', '/showtimes/{showtimeId}/holds', { showtimeId: id }, { token, rawBody: '{nope' });
    await call('post', '/showtimes/{showtimeId}/holds', { showtimeId: id }, { token, body: { seats: ['Z99'] } });
    const hold = await call(
      'post',
      '/showtimes/{showtimeId}/holds',
      { showtimeId: id },
      { token, body: { seats: ['A3', 'A4'] } },
    );
    expect(hold.status).toBe(201);
    const taken = await call(
      'post',
      '/showtimes/{showtimeId}/holds',
      { showtimeId: id },
      { token: rival, body: { seats: ['A4', 'A5'] } },
    );
    expect(taken.status).toBe(409);
    await call('get', '/holds/{holdId}', { holdId: hold.json.holdId }, { token });
    await call('get', '/holds/{holdId}', { holdId: hold.json.holdId }, { token: rival });
    await call('get', '/holds/{holdId}', { holdId: randomUUID() }, { token });

    await call('post', '/holds/{holdId}/checkout', { holdId: hold.json.holdId }, { token });
    const same = await Promise.all(
      Array.from({ length: 8 }, () =>
        call(
          'post',
          '/holds/{holdId}/checkout',
          { holdId: hold.json.holdId },
          { token, headers: { 'idempotency-key': 'core-in-flight' } },
        ),
      ),
    );
    expect(same.some((answer) => answer.status === 409 && answer.json.error.code === 'IDEMPOTENCY_KEY_IN_FLIGHT')).toBe(
      true,
    );
    const checkout = same.find((answer) => answer.status === 201)!;
    expect(new Set(same.filter((answer) => answer.status === 201).map((answer) => answer.json.paymentId)).size).toBe(1);
    await call(
      'post',
      '/holds/{holdId}/checkout',
      { holdId: hold.json.holdId },
      { token, headers: { 'idempotency-key': 'core-in-flight' }, body: { returnUrl: '/elsewhere' } },
    );

    await call(
      'post',
      '/payments/callback',
      {},
      { rawBody: '{"id":"evt_x"}', headers: { 'content-type': 'application/json', 'x-signature': 't=1,v1=00' } },
    );
    const unknown = JSON.stringify({
      id: `evt_${randomUUID()}`,
      type: 'payment.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: { paymentId: checkout.json.paymentId, reference: 'r' },
    });
    await call('post', '/payments/callback', {}, { rawBody: unknown, headers: signed(unknown) });
    const approved = await callJson(fetchFrom(sandbox.url), 'POST', `/v1/payments/${checkout.json.paymentId}/approve`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(approved.status).toBe(200);
    const confirmed = await eventually(
      () => call('get', '/holds/{holdId}', { holdId: hold.json.holdId }, { token }),
      (r) => r.json?.status === 'CONFIRMED',
    );
    const bookingId = confirmed.json.bookingId as string;
    // The same event again, signed: a duplicate, answered 200.
    const again = JSON.stringify({
      id: `evt_${randomUUID()}`,
      type: 'payment.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: { paymentId: checkout.json.paymentId, amount: 1800, currency: 'EUR', reference: 'r' },
    });
    expect((await call('post', '/payments/callback', {}, { rawBody: again, headers: signed(again) })).status).toBe(200);
    await call('delete', '/holds/{holdId}', { holdId: hold.json.holdId }, { token });

    await call('get', '/bookings/{bookingId}', { bookingId }, { token });
    const listed = await call('get', '/bookings', {}, { token });
    expect(listed.json.bookings.map((b: { bookingId: string }) => b.bookingId)).toContain(bookingId);
    await call('get', '/bookings', {}, {});
    await call('get', '/bookings/{bookingId}', { bookingId }, { token: rival });
    await call('get', '/bookings/{bookingId}', { bookingId: randomUUID() }, { token });
    await call('get', '/bookings/{bookingId}/cancellation', { bookingId }, { token });
    await call('get', '/admin/bookings/{bookingId}', { bookingId }, { headers: admin });
    await call('get', '/admin/bookings/{bookingId}', { bookingId: randomUUID() }, { headers: admin });
    expect((await call('delete', '/bookings/{bookingId}', { bookingId }, { token })).status).toBe(200);
    await call('delete', '/bookings/{bookingId}', { bookingId }, { token: rival });
    const notRefundable = await call('post', '/admin/bookings/{bookingId}/refund', { bookingId }, { headers: admin });
    expect(notRefundable.status).toBe(409);

    // A second purchase, refunded by an operator; a hold cancelled.
    const second = await call(
      'post',
      '/showtimes/{showtimeId}/holds',
      { showtimeId: id },
      { token: rival, body: { seats: ['B1'] } },
    );
    const pay = await call(
      'post',
      '/holds/{holdId}/checkout',
      { holdId: second.json.holdId },
      { token: rival, headers: { 'idempotency-key': randomUUID() } },
    );
    await callJson(fetchFrom(sandbox.url), 'POST', `/v1/payments/${pay.json.paymentId}/approve`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    const paid = await eventually(
      () => call('get', '/holds/{holdId}', { holdId: second.json.holdId }, { token: rival }),
      (r) => r.json?.status === 'CONFIRMED',
    );
    expect(
      (await call('post', '/admin/bookings/{bookingId}/refund', { bookingId: paid.json.bookingId }, { headers: admin }))
        .status,
    ).toBe(200);
    await call('post', '/admin/bookings/{bookingId}/refund', { bookingId: randomUUID() }, { headers: admin });
    const third = await call(
      'post',
      '/showtimes/{showtimeId}/holds',
      { showtimeId: id },
      { token: rival, body: { seats: ['B2'] } },
    );
    expect((await call('delete', '/holds/{holdId}', { holdId: third.json.holdId }, { token: rival })).status).toBe(204);
    await call('delete', '/holds/{holdId}', { holdId: third.json.holdId }, { token });
  });

  it('every operation in the document was called, and every route the core serves is documented', async () => {
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method} ${path}`),
    );
    const called = new Set([...contract.exercised].map((entry) => entry.split(' ').slice(0, 2).join(' ')));
    expect(operations.filter((operation) => !called.has(operation))).toEqual([]);
    const { app } = await createCoreHarness(sql);
    const served = app.routes
      .filter((route) => route.method !== 'ALL')
      .map((route) => `${route.method.toLowerCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
    const undocumented = [...new Set(served)].filter((route) => !operations.includes(route));
    expect(undocumented, 'describe these routes in core/src/openapi/core-api-description.ts').toEqual([]);
  });
});
