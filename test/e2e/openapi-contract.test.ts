/**
 * Contract tests: real answers of the whole stack (edge on real Redis, core on this run's
 * PostgreSQL, the payment sandbox) held to the OpenAPI document the edge serves. For every call:
 * the status is documented for that operation, the body validates against the documented schema
 * (ajv, JSON Schema 2020-12), the required headers are there (X-Request-Id, Retry-After on 429
 * and 503, Location on a created hold), and an error's code is one the document lists for that
 * status. At the end every operation of the document has been called and every /api route the
 * edge serves is in the document, so the two cannot drift apart.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, eventually, fetchFrom, type JsonCallInit, type JsonResult } from '../support/json-call';
import { openApiConformance, type ApiDocument } from '../support/openapi-conformance';
import { startInProcessStack, type InProcessStack } from '../support/in-process-stack';
import type { RunningCore } from '../../core/src/node';
import type { RunningEdge } from '../../edge/src/node';
import type { RunningPaymentSandbox } from '../../payment-sandbox/src/start';
import { rectangularLayout } from '../../core/src/demo/seat-layout';

const ADMIN = 'contract-admin-token-0123456789';
const SECRET = 'whsec_contract';
const API_KEY = 'sk_test_contract';

let stack: InProcessStack;
let sandbox: RunningPaymentSandbox;
let core: RunningCore;
let edge: RunningEdge;

let doc: ApiDocument;
let contract: ReturnType<typeof openApiConformance>;

beforeAll(async () => {
  stack = await startInProcessStack({
    name: 'contract',
    adminToken: ADMIN,
    webhookSecret: SECRET,
    paymentApiKey: API_KEY,
    jobSettings: { relayEveryMs: 50, sweepEveryMs: 200 },
  });
  ({ sandbox, core, edge } = stack);

  // The document as the edge serves it, nothing else.
  const served = await callJson(fetchFrom(edge.url), 'GET', '/api/openapi.json');
  expect(served.status).toBe(200);
  doc = served.json as ApiDocument;
  contract = openApiConformance(doc, 'api');
});
afterAll(async () => {
  await stack?.close();
});

/** Calls the service and holds the answer to the document's operation `method template`. */
const call = (
  method: string,
  template: string,
  params: Record<string, string | number>,
  init?: JsonCallInit,
): Promise<JsonResult> => contract.call(edge.url, method, template, params, init);
const conforms = (method: string, template: string, result: JsonResult) => contract.conforms(method, template, result);

const adminHeaders = { authorization: `Bearer ${ADMIN}` };
const coreCall = (method: string, path: string, init?: JsonCallInit) =>
  callJson(fetchFrom(core.url), method, path, init);

async function createShowtime() {
  const venue = await coreCall('POST', '/admin/venues', {
    headers: adminHeaders,
    body: { name: `Contract ${Date.now()}-${Math.random()}` },
  });
  const seats = rectangularLayout({ rows: 2, columns: 6 }).map(({ code, rowLabel, row, column, type }) => ({
    code,
    rowLabel,
    row,
    column,
    type,
  }));
  const hall = await coreCall('POST', `/admin/venues/${venue.json.id}/halls`, {
    headers: adminHeaders,
    body: { name: 'Hall', seats },
  });
  const showtime = await coreCall('POST', '/admin/showtimes', {
    headers: adminHeaders,
    body: {
      hallId: hall.json.id,
      title: 'Contract premiere',
      startsAt: new Date(Date.now() + 86_400_000).toISOString(),
      priceCents: 900,
    },
  });
  expect(showtime.status).toBe(201);
  return showtime.json.id as number;
}

async function admittedBuyer(id: number) {
  const login = await call('post', '/api/auth/demo', {}, { body: {} });
  const token = login.json.token as string;
  const joined = await eventually(
    () => call('post', '/api/showtimes/{id}/queue', { id }, { token }),
    (r) => r.json?.state === 'admitted',
  );
  expect(joined.json.state).toBe('admitted');
  return {
    token,
    access: joined.json.accessToken as string,
    queueToken: joined.json.queueToken as string,
    queueId: joined.json.queueId as string | undefined,
  };
}

describe('real answers conform to /api/openapi.json', () => {
  it('operations: health, readiness, keys, metrics, the description and the reference page', async () => {
    await call('get', '/healthz', {});
    await call('get', '/readyz', {});
    await call('get', '/.well-known/jwks.json', {});
    await call('get', '/api/fairness/keys', {});
    await call('get', '/api/openapi.json', {});
    await call('get', '/metrics', {});
    await call('get', '/metrics', {}, { headers: adminHeaders });
    const page = await fetch(`${edge.url}/api/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const text = await page.text();
    expect(text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
    for (const path of Object.keys(doc.paths)) expect(text).toContain(path);
  });

  it('operators set a room up; bad settings and missing tokens are refused as documented', async () => {
    const id = await createShowtime();
    await call(
      'put',
      '/api/admin/showtimes/{id}/room',
      { id },
      { headers: adminHeaders, body: { capacity: 5, admitPerMinute: 600, sessionTtlSeconds: 120, state: 'open' } },
    );
    await call('put', '/api/admin/showtimes/{id}/room', { id }, { headers: adminHeaders, body: { capacity: -1 } });
    await call('put', '/api/admin/showtimes/{id}/room', { id }, { headers: adminHeaders, body: { nonsense: true } });
    await call('put', '/api/admin/showtimes/{id}/room', { id }, { body: { capacity: 2 } });
    await call('get', '/api/admin/showtimes/{id}/room', { id }, { headers: adminHeaders });
    await call('get', '/api/admin/showtimes/{id}/room', { id }, {});
    await call('get', '/api/admin/showtimes/{id}/room/audit', { id }, { headers: adminHeaders });
    const events = await fetch(`${edge.url}/api/admin/showtimes/${id}/room/events`, {
      headers: adminHeaders,
      signal: AbortSignal.timeout(5_000),
    });
    expect(events.status).toBe(200);
    expect(events.headers.get('content-type')).toContain('text/event-stream');
    await events.body?.cancel();
    conforms('get', '/api/admin/showtimes/{id}/room/events', {
      status: 200,
      json: null,
      text: '',
      headers: events.headers,
    });
  });

  it('a buyer from the queue to a booking, with the refusals on the way', async () => {
    const id = await createShowtime();
    await call(
      'put',
      '/api/admin/showtimes/{id}/room',
      { id },
      { headers: adminHeaders, body: { capacity: 5, admitPerMinute: 600, sessionTtlSeconds: 120, state: 'open' } },
    );
    await call('get', '/api/showtimes', {});
    await call('get', '/api/showtimes/{id}/fairness', { id });
    await call('get', '/api/showtimes/{id}/fairness', { id: 999_999 });
    await call('post', '/api/showtimes/{id}/queue', { id }, {});
    const buyer = await admittedBuyer(id);
    await call('get', '/api/showtimes/{id}/queue', { id }, { headers: { 'x-queue-token': buyer.queueToken } });
    await call('get', '/api/showtimes/{id}/queue', { id }, {});

    await call('get', '/api/showtimes/{id}/seats', { id }, { token: buyer.access });
    await call('get', '/api/showtimes/{id}/seats', { id }, {});
    const other = await createShowtime();
    await call('get', '/api/showtimes/{id}/seats', { id: other }, { token: buyer.access });

    await call('post', '/api/showtimes/{id}/holds', { id }, { token: buyer.access, rawBody: '{not json' });
    await call('post', '/api/showtimes/{id}/holds', { id }, { token: buyer.access, body: { seats: [] } });
    await call('post', '/api/showtimes/{id}/holds', { id }, { token: buyer.access, body: { seats: ['Z99'] } });
    const hold = await call(
      'post',
      '/api/showtimes/{id}/holds',
      { id },
      { token: buyer.access, body: { seats: ['A1', 'A2'] } },
    );
    expect(hold.status).toBe(201);
    const second = await admittedBuyer(id);
    const taken = await call(
      'post',
      '/api/showtimes/{id}/holds',
      { id },
      { token: second.access, body: { seats: ['A2', 'A3'] } },
    );
    expect(taken.status).toBe(409);
    await call('get', '/api/holds/{holdId}', { holdId: hold.json.holdId }, { token: buyer.access });
    await call('get', '/api/holds/{holdId}', { holdId: hold.json.holdId }, { token: second.access });
    await call(
      'get',
      '/api/holds/{holdId}',
      { holdId: '00000000-0000-4000-8000-000000000000' },
      { token: buyer.access },
    );

    await call('post', '/api/holds/{holdId}/checkout', { holdId: hold.json.holdId }, { token: buyer.access });
    const checkout = await call(
      'post',
      '/api/holds/{holdId}/checkout',
      { holdId: hold.json.holdId },
      { token: buyer.access, headers: { 'idempotency-key': 'contract-1' } },
    );
    expect(checkout.status).toBe(201);
    const replay = await call(
      'post',
      '/api/holds/{holdId}/checkout',
      { holdId: hold.json.holdId },
      { token: buyer.access, headers: { 'idempotency-key': 'contract-1' } },
    );
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await call(
      'post',
      '/api/holds/{holdId}/checkout',
      { holdId: hold.json.holdId },
      { token: buyer.access, headers: { 'idempotency-key': 'contract-1' }, body: { returnUrl: '/elsewhere' } },
    );

    await call(
      'post',
      '/api/payments/callback',
      {},
      { rawBody: '{"id":"evt_x"}', headers: { 'content-type': 'application/json', 'x-signature': 't=1,v1=00' } },
    );
    const approved = await callJson(fetchFrom(sandbox.url), 'POST', `/v1/payments/${checkout.json.paymentId}/approve`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(approved.status).toBe(200);
    const confirmed = await eventually(
      () => call('get', '/api/holds/{holdId}', { holdId: hold.json.holdId }, { token: buyer.access }),
      (r) => r.json?.status === 'CONFIRMED',
    );
    await call('get', '/api/bookings/{bookingId}', { bookingId: confirmed.json.bookingId }, { token: buyer.access });
    await call('get', '/api/bookings/{bookingId}', { bookingId: confirmed.json.bookingId }, { token: second.access });
    await call(
      'get',
      '/api/bookings/{bookingId}',
      { bookingId: '00000000-0000-4000-8000-000000000000' },
      { token: buyer.access },
    );
    await call('delete', '/api/holds/{holdId}', { holdId: hold.json.holdId }, { token: buyer.access });
    await call(
      'get',
      '/api/bookings/{bookingId}/cancellation',
      { bookingId: confirmed.json.bookingId },
      { token: buyer.access },
    );
    await call(
      'get',
      '/api/bookings/{bookingId}/cancellation',
      { bookingId: confirmed.json.bookingId },
      { token: second.access },
    );
    const cancelled = await call(
      'delete',
      '/api/bookings/{bookingId}',
      { bookingId: confirmed.json.bookingId },
      { token: buyer.access },
    );
    expect(cancelled.status).toBe(200);
    await call(
      'delete',
      '/api/bookings/{bookingId}',
      { bookingId: confirmed.json.bookingId },
      { token: second.access },
    );
    expect(
      (await call('get', '/api/bookings/{bookingId}', { bookingId: confirmed.json.bookingId }, { token: buyer.access }))
        .json.status,
    ).toBe('CANCELLED');

    // A correctly signed callback the core has to act on, then a second hold cancelled and the line left.
    const body = JSON.stringify({
      id: `evt_contract_${Date.now()}`,
      type: 'payment.failed',
      created: Math.floor(Date.now() / 1000),
      data: { paymentId: checkout.json.paymentId, amount: 1800, currency: 'EUR', reference: hold.json.holdId },
    });
    const t = Math.floor(Date.now() / 1000);
    await call(
      'post',
      '/api/payments/callback',
      {},
      {
        rawBody: body,
        headers: {
          'content-type': 'application/json',
          'x-signature': `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex')}`,
        },
      },
    );
    const again = await call(
      'post',
      '/api/showtimes/{id}/holds',
      { id },
      { token: second.access, body: { seats: ['B1'] } },
    );
    expect(again.status, again.text).toBe(201);
    expect(
      (await call('delete', '/api/holds/{holdId}', { holdId: again.json.holdId }, { token: second.access })).status,
    ).toBe(204);
    await call('delete', '/api/showtimes/{id}/queue', { id }, { token: second.token });
    await call('delete', '/api/showtimes/{id}/queue', { id }, {});
  });

  it('bodies too large or not JSON, and a room asking for proof of work, answer as documented', async () => {
    const id = await createShowtime();
    await call(
      'put',
      '/api/admin/showtimes/{id}/room',
      { id },
      { headers: adminHeaders, body: { capacity: 5, admitPerMinute: 600, sessionTtlSeconds: 120, state: 'open' } },
    );
    const buyer = await admittedBuyer(id);
    const large = await call(
      'post',
      '/api/showtimes/{id}/holds',
      { id },
      { token: buyer.access, rawBody: JSON.stringify({ seats: ['A1'], pad: 'x'.repeat(70_000) }) },
    );
    expect(large.status).toBe(413);
    const text = await call(
      'post',
      '/api/showtimes/{id}/holds',
      { id },
      { token: buyer.access, rawBody: 'seats=A1', headers: { 'content-type': 'text/plain' } },
    );
    expect(text.status).toBe(415);

    await call('put', '/api/admin/showtimes/{id}/room', { id }, { headers: adminHeaders, body: { powDifficulty: 8 } });
    const late = (await call('post', '/api/auth/demo', {}, { body: {} })).json.token as string;
    const challenged = await call('post', '/api/showtimes/{id}/queue', { id }, { token: late });
    expect(challenged.status).toBe(428);
    expect(challenged.json).toMatchObject({ challenge: expect.any(String), difficulty: 8 });
  });

  it('an operator change the state does not allow, a checkout in flight, a turn given back and a lapsed place answer as documented', async () => {
    const id = await createShowtime();
    await call(
      'put',
      '/api/admin/showtimes/{id}/room',
      { id },
      { headers: adminHeaders, body: { capacity: 5, admitPerMinute: 600, sessionTtlSeconds: 120, state: 'open' } },
    );
    // The sale has opened: it cannot be scheduled again (the operators' 409).
    const reschedule = await call(
      'put',
      '/api/admin/showtimes/{id}/room',
      { id },
      {
        headers: adminHeaders,
        body: { state: 'scheduled', opensAt: new Date(Date.now() + 3_600_000).toISOString() },
      },
    );
    expect(reschedule.status).toBe(409);
    expect(reschedule.json.error.code).toBe('ALREADY_OPENED');
    const room = await call('get', '/api/admin/showtimes/{id}/room', { id }, { headers: adminHeaders });
    expect(room.json.audit[0]).toMatchObject({ action: 'room.update', actor: expect.any(String) });

    // One key, eight checkouts released together: one session, the rest told it is in flight (or its replay).
    const buyer = await admittedBuyer(id);
    const hold = await call(
      'post',
      '/api/showtimes/{id}/holds',
      { id },
      { token: buyer.access, body: { seats: ['A3'] } },
    );
    expect(hold.status).toBe(201);
    const same = await Promise.all(
      Array.from({ length: 8 }, () =>
        call(
          'post',
          '/api/holds/{holdId}/checkout',
          { holdId: hold.json.holdId },
          { token: buyer.access, headers: { 'idempotency-key': 'contract-in-flight' } },
        ),
      ),
    );
    const inFlight = same.filter((answer) => answer.status === 409);
    expect(inFlight.length).toBeGreaterThan(0);
    expect(inFlight.every((answer) => answer.json.error.code === 'IDEMPOTENCY_KEY_IN_FLIGHT')).toBe(true);
    expect(new Set(same.filter((answer) => answer.status === 201).map((answer) => answer.json.paymentId)).size).toBe(1);

    // Support looks the buyer's queue id up (and a mistyped one).
    if (buyer.queueId) {
      const found = await call(
        'get',
        '/api/admin/showtimes/{id}/room/queue-ids/{queueId}',
        { id, queueId: buyer.queueId },
        { headers: adminHeaders },
      );
      expect(found.json.status).toBe('admitted');
    }
    const typo = await call(
      'get',
      '/api/admin/showtimes/{id}/room/queue-ids/{queueId}',
      { id, queueId: 'ZZZZ-ZZZZ' },
      { headers: adminHeaders },
    );
    expect(typo.status).toBe(404);

    // The buyer gives the turn back: the access token no longer starts a purchase (410 TURN_ENDED),
    // and the queue token's place is gone (410 TURN_EXPIRED).
    expect((await call('delete', '/api/showtimes/{id}/queue', { id }, { token: buyer.token })).status).toBe(200);
    const ended = await call(
      'post',
      '/api/showtimes/{id}/holds',
      { id },
      { token: buyer.access, body: { seats: ['A4'] } },
    );
    expect([ended.status, ended.json.error.code]).toEqual([410, 'TURN_ENDED']);
    const lapsed = await call(
      'get',
      '/api/showtimes/{id}/queue',
      { id },
      { headers: { 'x-queue-token': buyer.queueToken } },
    );
    expect([lapsed.status, lapsed.json.error.code]).toEqual([410, 'TURN_EXPIRED']);
  });

  it("fare classes, seat classes and the refund policy for operators, and a buyer's bookings with the customer token, answer as documented", async () => {
    const id = await createShowtime();
    await call('get', '/api/admin/showtimes/{id}/fares', { id }, { headers: adminHeaders });
    await call('get', '/api/admin/showtimes/{id}/fares', { id }, {});
    await call('get', '/api/admin/showtimes/{id}/fares', { id: 999_999_999 }, { headers: adminHeaders });
    const created = await call(
      'put',
      '/api/admin/showtimes/{id}/fares/{fareClass}',
      { id, fareClass: 'GA_FLOOR' },
      { headers: adminHeaders, body: { label: 'Floor', capacity: 20, overbookLimit: 2 } },
    );
    expect(created.status).toBe(201);
    expect(
      (
        await call(
          'put',
          '/api/admin/showtimes/{id}/fares/{fareClass}',
          { id, fareClass: 'GA_FLOOR' },
          { headers: adminHeaders, body: { priceCents: 1500 } },
        )
      ).status,
    ).toBe(200);
    await call(
      'put',
      '/api/admin/showtimes/{id}/fares/{fareClass}',
      { id, fareClass: 'STANDARD' },
      { headers: adminHeaders, body: { capacity: 3 } },
    );
    await call(
      'put',
      '/api/admin/showtimes/{id}/fares/{fareClass}',
      { id, fareClass: 'NEW_AREA' },
      { headers: adminHeaders, body: { label: 'No places' } },
    );
    await call(
      'put',
      '/api/admin/showtimes/{id}/fares/{fareClass}',
      { id, fareClass: 'GA_FLOOR' },
      { rawBody: '{nope', headers: { ...adminHeaders, 'content-type': 'application/json' } },
    );
    // Unsafe JSON (lib/json-guard.ts): the documented 422 naming the path, never a 500 or 503.
    const deepLabel = `{"label":${'['.repeat(5_000)}${']'.repeat(5_000)}}`;
    for (const [template, params] of [
      ['/api/admin/showtimes/{id}/fares/{fareClass}', { id, fareClass: 'GA_FLOOR' }],
      ['/api/admin/showtimes/{id}/seat-classes', { id }],
      ['/api/admin/showtimes/{id}/refund-policy', { id }],
    ] as const) {
      expect(
        (await call('put', template, params, { headers: adminHeaders, rawBody: deepLabel })).status,
        template,
      ).toBe(422);
    }
    const nulLabel = await call(
      'put',
      '/api/admin/showtimes/{id}/fares/{fareClass}',
      { id, fareClass: 'GA_FLOOR' },
      { headers: adminHeaders, body: { label: 'Floor\u0000' } },
    );
    expect([nulLabel.status, nulLabel.json.error.issues[0].path]).toEqual([422, 'label']);
    await call(
      'put',
      '/api/admin/showtimes/{id}/fares/{fareClass}',
      { id, fareClass: 'GA_FLOOR' },
      { body: { priceCents: 1 } },
    );
    await call(
      'put',
      '/api/admin/showtimes/{id}/fares/{fareClass}',
      { id: 999_999_999, fareClass: 'GA_FLOOR' },
      { headers: adminHeaders, body: { priceCents: 1 } },
    );

    const buyer = await admittedBuyer(id);
    await call(
      'put',
      '/api/admin/showtimes/{id}/room',
      { id },
      { headers: adminHeaders, body: { capacity: 5, admitPerMinute: 600, sessionTtlSeconds: 120, state: 'open' } },
    );
    const places = await call(
      'post',
      '/api/showtimes/{id}/holds',
      { id },
      { token: buyer.access, body: { fareClass: 'GA_FLOOR', quantity: 2 } },
    );
    expect(places.status).toBe(201);
    await call(
      'put',
      '/api/admin/showtimes/{id}/fares/{fareClass}',
      { id, fareClass: 'GA_FLOOR' },
      { headers: adminHeaders, body: { capacity: 1, overbookLimit: 0 } },
    );
    const held = await call(
      'post',
      '/api/showtimes/{id}/holds',
      { id },
      { token: buyer.access, body: { seats: ['B6'] } },
    );
    expect(held.status).toBe(201);
    expect(
      (
        await call(
          'put',
          '/api/admin/showtimes/{id}/seat-classes',
          { id },
          { headers: adminHeaders, body: { seats: ['A1', 'A2'], fareClass: 'FRONT' } },
        )
      ).status,
    ).toBe(200);
    await call(
      'put',
      '/api/admin/showtimes/{id}/seat-classes',
      { id },
      { headers: adminHeaders, body: { seats: ['B6'], fareClass: 'FRONT' } },
    );
    await call(
      'put',
      '/api/admin/showtimes/{id}/seat-classes',
      { id },
      { headers: adminHeaders, body: { seats: ['Z99'], fareClass: 'FRONT' } },
    );
    await call(
      'put',
      '/api/admin/showtimes/{id}/seat-classes',
      { id },
      { rawBody: '[', headers: { ...adminHeaders, 'content-type': 'application/json' } },
    );
    await call(
      'put',
      '/api/admin/showtimes/{id}/seat-classes',
      { id },
      { body: { seats: ['A3'], fareClass: 'FRONT' } },
    );
    await call(
      'put',
      '/api/admin/showtimes/{id}/seat-classes',
      { id: 999_999_999 },
      { headers: adminHeaders, body: { seats: ['A3'], fareClass: 'FRONT' } },
    );

    await call('get', '/api/admin/showtimes/{id}/refund-policy', { id }, { headers: adminHeaders });
    await call('get', '/api/admin/showtimes/{id}/refund-policy', { id }, {});
    await call('get', '/api/admin/showtimes/{id}/refund-policy', { id: 999_999_999 }, { headers: adminHeaders });
    const policy = await call(
      'put',
      '/api/admin/showtimes/{id}/refund-policy',
      { id },
      {
        headers: adminHeaders,
        body: {
          tiers: [
            { beforeStartMinutes: 60, percent: 20 },
            { beforeStartMinutes: 2880, percent: 90 },
          ],
        },
      },
    );
    expect(policy.json.tiers[0]).toEqual({ beforeStartMinutes: 2880, percent: 90 });
    await call(
      'put',
      '/api/admin/showtimes/{id}/refund-policy',
      { id },
      {
        headers: adminHeaders,
        body: {
          tiers: [
            { beforeStartMinutes: 60, percent: 90 },
            { beforeStartMinutes: 2880, percent: 20 },
          ],
        },
      },
    );
    await call(
      'put',
      '/api/admin/showtimes/{id}/refund-policy',
      { id },
      { rawBody: 'x', headers: { ...adminHeaders, 'content-type': 'application/json' } },
    );
    await call('put', '/api/admin/showtimes/{id}/refund-policy', { id }, { body: { tiers: [] } });
    await call(
      'put',
      '/api/admin/showtimes/{id}/refund-policy',
      { id: 999_999_999 },
      { headers: adminHeaders, body: { tiers: [] } },
    );

    // A console session's write without X-Console: 1 is refused on each write route.
    const form = new URLSearchParams({ token: ADMIN, operator: 'contract' });
    const login = await fetch(`${edge.url}/admin/login`, { method: 'POST', body: form, redirect: 'manual' });
    const session = { cookie: (login.headers.get('set-cookie') ?? '').split(';')[0]! };
    await call(
      'put',
      '/api/admin/showtimes/{id}/fares/{fareClass}',
      { id, fareClass: 'GA_FLOOR' },
      { headers: session, body: { priceCents: 1 } },
    );
    await call(
      'put',
      '/api/admin/showtimes/{id}/seat-classes',
      { id },
      { headers: session, body: { seats: ['A3'], fareClass: 'FRONT' } },
    );
    await call('put', '/api/admin/showtimes/{id}/refund-policy', { id }, { headers: session, body: { tiers: [] } });

    // The buyer's bookings with the customer token (none yet: the holds are not paid), and refusals.
    const mine = await call('get', '/api/bookings', {}, { token: buyer.token });
    expect(mine.json.bookings).toEqual([]);
    await call('get', '/api/bookings', {}, { token: buyer.access });
    await call('get', '/api/bookings', {}, {});
    await call(
      'get',
      '/api/bookings/{bookingId}',
      { bookingId: '00000000-0000-4000-8000-000000000000' },
      { token: buyer.token },
    );
  });

  it('rate limits answer 429 with Retry-After; a core outage answers 503 with Retry-After', async () => {
    const id = await createShowtime();
    await call(
      'put',
      '/api/admin/showtimes/{id}/room',
      { id },
      {
        headers: adminHeaders,
        body: {
          capacity: 5,
          admitPerMinute: 600,
          sessionTtlSeconds: 120,
          state: 'open',
          customerBucketCapacity: 1,
          customerRefillPerMinute: 1,
        },
      },
    );
    const buyer = await admittedBuyer(id);
    const first = await call(
      'post',
      '/api/showtimes/{id}/holds',
      { id },
      { token: buyer.access, body: { seats: ['A5'] } },
    );
    expect(first.status).toBe(201);
    const limited = await call(
      'post',
      '/api/showtimes/{id}/holds',
      { id },
      { token: buyer.access, body: { seats: ['A6'] } },
    );
    expect(limited.status).toBe(429);

    await core.close();
    const down = await call('get', '/api/holds/{holdId}', { holdId: first.json.holdId }, { token: buyer.access });
    expect(down.status).toBe(503);
    await call(
      'get',
      '/api/bookings/{bookingId}',
      { bookingId: '00000000-0000-4000-8000-000000000000' },
      { token: buyer.access },
    );
  });

  it('every operation in the document was called, and every /api route the edge serves is documented', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method} ${path}`),
    );
    const called = new Set([...contract.exercised].map((entry) => entry.split(' ').slice(0, 2).join(' ')));
    expect(operations.filter((operation) => !called.has(operation))).toEqual([]);
    const served = edge.app.routes
      .filter((route) => route.path.startsWith('/api/') && route.method !== 'ALL' && route.path !== '/api/docs')
      .map((route) => `${route.method.toLowerCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
    const undocumented = [...new Set(served)].filter((route) => !operations.includes(route));
    expect(
      undocumented,
      'describe these routes in edge/scripts/openapi/api-description.ts, then npm run build:openapi',
    ).toEqual([]);
  });
});
