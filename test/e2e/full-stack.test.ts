/**
 * The whole stack with real parts on loopback ports: the edge (real Redis, under this run's
 * namespace), the core (this run's PostgreSQL database, background jobs publishing the outbox
 * to the Redis stream), and the payment sandbox (webhooks delivered to the edge, which
 * forwards them to the core). A buyer goes from the waiting room to a booking; the booking
 * event frees the admission slot for the next buyer; the core going down and coming back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { isolatedDatabase, testRedisNamespace, testRedisUrl } from '../support/env';
import { callJson, eventually, fetchFrom, type JsonCallInit } from '../support/json-call';
import { connectDatabase } from '../../core/src/db/connect';
import { parseCoreConfig, type CoreConfig } from '../../core/src/config';
import { startCore, type RunningCore } from '../../core/src/node';
import { redisStreamSink } from '../../core/src/events/event-sink';
import { parseEdgeConfig } from '../../edge/src/config';
import { startEdge, type RunningEdge } from '../../edge/src/node';
import { startPaymentSandbox, type RunningPaymentSandbox } from '../../payment-sandbox/src/start';
import { generateSigningJwk, loadTokenKeys, type TokenKeyMaterial } from '../../lib/token-keys';
import { rectangularLayout } from '../../core/src/demo/seat-layout';

const ADMIN = 'e2e-admin-token-0123456789';
const SECRET = 'whsec_e2e';
const API_KEY = 'sk_test_e2e';

let sql: ReturnType<typeof connectDatabase>;
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let redis: Redis;
let keys: TokenKeyMaterial;
let sandbox: RunningPaymentSandbox;
let coreConfig: CoreConfig;
let core: RunningCore;
let edge: RunningEdge;
let namespace: string;

async function startTheCore(port: number) {
  coreConfig = parseCoreConfig({
    CORE_PORT: String(port),
    CORE_HOST: '127.0.0.1',
    ADMIN_TOKEN: ADMIN,
    PAYMENT_URL: sandbox.url,
    PAYMENT_API_KEY: API_KEY,
    PAYMENT_WEBHOOK_SECRET: SECRET,
    PUBLIC_URL: 'http://127.0.0.1:1',
    LOG_LEVEL: 'silent',
  });
  return startCore(coreConfig, {
    sql,
    tokenKeys: keys,
    eventSink: redisStreamSink(redis, { keyPrefix: namespace }),
    jobSettings: { relayEveryMs: 50, sweepEveryMs: 200 },
  });
}

beforeAll(async () => {
  database = await isolatedDatabase('e2e');
  sql = connectDatabase(database.url, { max: 8, applicationName: 'test-e2e' });
  redis = new Redis(testRedisUrl());
  namespace = testRedisNamespace('e2e');
  keys = await loadTokenKeys({ signingJwk: await generateSigningJwk('e2e-1') });
  let edgeUrl = '';
  sandbox = await startPaymentSandbox({
    port: 0,
    config: {
      apiKey: API_KEY,
      webhookSecrets: [SECRET],
      webhook: { baseDelayMs: 20, maxDelayMs: 200, maxAttempts: 50 },
    },
    // Webhooks go to the edge's public callback route, which forwards them raw to the core.
    fetch: (_url, init) => fetch(`${edgeUrl}/api/payments/callback`, init as RequestInit),
  });
  core = await startTheCore(0);
  edge = await startEdge(
    parseEdgeConfig({
      EDGE_PORT: '0',
      EDGE_HOST: '127.0.0.1',
      CORE_URL: core.url,
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: namespace,
      ADMIN_TOKEN: ADMIN,
      DEMO_LOGIN: '1',
      SNAPSHOT_TTL_MS: '50',
      SEAT_MAP_TTL_MS: '100',
      EVENTS_POLL_MS: '50',
      CORE_TIMEOUT_MS: '2000',
      FLOOD_POINTS: '100000',
      LOG_LEVEL: 'silent',
    }),
    { tokenKeys: keys },
  );
  edgeUrl = edge.url;
});
afterAll(async () => {
  await edge?.close();
  await core?.close();
  await sandbox?.close();
  await sql?.end();
  await database?.drop();
  redis?.disconnect();
});

const call = (base: string, method: string, path: string, init?: JsonCallInit) =>
  callJson(fetchFrom(base), method, path, init);
const api = (method: string, path: string, init?: JsonCallInit) => call(edge.url, method, path, init);
const admin = { authorization: `Bearer ${ADMIN}` };

async function createShowtime() {
  const venue = await call(core.url, 'POST', '/admin/venues', {
    headers: admin,
    body: { name: `E2E ${Date.now()}-${Math.random()}` },
  });
  const seats = rectangularLayout({ rows: 2, columns: 6 }).map(({ code, rowLabel, row, column, type }) => ({
    code,
    rowLabel,
    row,
    column,
    type,
  }));
  const hall = await call(core.url, 'POST', `/admin/venues/${venue.json.id}/halls`, {
    headers: admin,
    body: { name: 'Hall', seats },
  });
  const showtime = await call(core.url, 'POST', '/admin/showtimes', {
    headers: admin,
    body: {
      hallId: hall.json.id,
      title: 'E2E premiere',
      startsAt: new Date(Date.now() + 86_400_000).toISOString(),
      priceCents: 900,
    },
  });
  expect(showtime.status).toBe(201);
  return showtime.json.id as number;
}

describe('the whole stack', () => {
  it('queue → admission → seat map → hold → checkout → pay → booking; the booking frees the slot for the next buyer', async () => {
    const showtimeId = await createShowtime();
    const room = await api('PUT', `/api/admin/showtimes/${showtimeId}/room`, {
      headers: admin,
      body: { capacity: 1, admitPerMinute: 600, sessionTtlSeconds: 120, state: 'open' },
    });
    expect(room.status).toBe(200);

    const alice = (await api('POST', '/api/auth/demo', { body: { customerId: 'e2e-alice' } })).json.token;
    const bob = (await api('POST', '/api/auth/demo', { body: { customerId: 'e2e-bob' } })).json.token;
    const aliceJoin = await eventually(
      () => api('POST', `/api/showtimes/${showtimeId}/queue`, { token: alice }),
      (r) => r.json?.state === 'admitted',
    );
    expect(aliceJoin.json.state).toBe('admitted');
    const bobJoin = await api('POST', `/api/showtimes/${showtimeId}/queue`, { token: bob });
    expect(bobJoin.json.state).toBe('waiting');
    const access = aliceJoin.json.accessToken as string;

    const map = await api('GET', `/api/showtimes/${showtimeId}/seats`, { token: access });
    expect(map.status).toBe(200);
    expect(map.json.counts).toMatchObject({ total: 12, available: 12 });
    const hold = await api('POST', `/api/showtimes/${showtimeId}/holds`, {
      token: access,
      body: { seats: ['A3', 'A4'] },
    });
    expect(hold.status).toBe(201);
    const checkout = await api('POST', `/api/holds/${hold.json.holdId}/checkout`, {
      token: access,
      headers: { 'idempotency-key': 'e2e-1' },
    });
    expect(checkout.status).toBe(201);
    expect(checkout.json.amountCents).toBe(1800);
    const approved = await call(sandbox.url, 'POST', `/v1/payments/${checkout.json.paymentId}/approve`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(approved.status).toBe(200);

    const confirmed = await eventually(
      () => api('GET', `/api/holds/${hold.json.holdId}`, { token: access }),
      (r) => r.json?.status === 'CONFIRMED',
    );
    expect(confirmed.json.status).toBe('CONFIRMED');
    const booking = await api('GET', `/api/bookings/${confirmed.json.bookingId}`, { token: access });
    expect(booking.json).toMatchObject({ status: 'CONFIRMED', seats: ['A3', 'A4'], amountCents: 1800 });

    // BookingConfirmed travels outbox → relay → Redis stream → edge consumer → slot released → Bob admitted.
    const bobAdmitted = await eventually(
      () => api('GET', `/api/showtimes/${showtimeId}/queue`, { headers: { 'x-queue-token': bobJoin.json.queueToken } }),
      (r) => r.json?.state === 'admitted',
    );
    expect(bobAdmitted.json.state).toBe('admitted');
    const bobAccess = bobAdmitted.json.accessToken as string;
    expect((await api('GET', `/api/bookings/${confirmed.json.bookingId}`, { token: bobAccess })).status).toBe(403);
    const taken = await api('POST', `/api/showtimes/${showtimeId}/holds`, {
      token: bobAccess,
      body: { seats: ['A4', 'A5'] },
    });
    expect(taken.status).toBe(409);
    expect(taken.json.error.seats).toEqual(['A4']);

    // The jobs' backlog is visible to Prometheus: nothing owed, the events all published.
    const metrics = (await call(core.url, 'GET', '/metrics')).text;
    expect(metrics).toMatch(/^core_refunds_failing 0$/m);
    expect(metrics).toMatch(/^core_payments_pending \d+$/m);
    const outbox = await eventually(
      async () => (await call(core.url, 'GET', '/metrics')).text,
      (text) => /^core_outbox_unpublished 0$/m.test(text),
    );
    expect(outbox).toMatch(/^core_outbox_unpublished 0$/m);
  });

  it('the core goes down: purchases answer 503 with Retry-After, the seat map comes from cache, the queue keeps working; then it recovers', async () => {
    const showtimeId = await createShowtime();
    await api('PUT', `/api/admin/showtimes/${showtimeId}/room`, {
      headers: admin,
      body: { capacity: 5, admitPerMinute: 600, sessionTtlSeconds: 120, state: 'open' },
    });
    const carol = (await api('POST', '/api/auth/demo', { body: { customerId: 'e2e-carol' } })).json.token;
    const joined = await eventually(
      () => api('POST', `/api/showtimes/${showtimeId}/queue`, { token: carol }),
      (r) => r.json?.state === 'admitted',
    );
    const access = joined.json.accessToken as string;
    expect((await api('GET', `/api/showtimes/${showtimeId}/seats`, { token: access })).status).toBe(200);

    // A crowd on the showtime list costs the core one query per second, not one per buyer.
    const listCount = async () =>
      Number(
        /core_http_request_duration_seconds_count\{method="GET",route="\/showtimes",status="200"\} (\d+)/.exec(
          (await call(core.url, 'GET', '/metrics')).text,
        )?.[1] ?? 0,
      );
    const listsBefore = await listCount();
    const lists = await Promise.all(Array.from({ length: 200 }, () => api('GET', '/api/showtimes')));
    expect(lists.every((l) => l.status === 200 && Array.isArray(l.json))).toBe(true);
    const listsAfter = await listCount();
    expect(listsAfter).toBeGreaterThan(0); // the metric is read at all
    expect(listsAfter - listsBefore).toBeLessThanOrEqual(2);

    const port = core.port;
    await core.close();
    const refused = await api('POST', `/api/showtimes/${showtimeId}/holds`, { token: access, body: { seats: ['B1'] } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    const cached = await api('GET', `/api/showtimes/${showtimeId}/seats`, { token: access });
    expect(cached.status).toBe(200);
    expect(cached.json.counts.total).toBe(12);
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // past the list's one-second TTL
    const staleList = await api('GET', '/api/showtimes');
    expect(staleList.status).toBe(200);
    expect(staleList.headers.get('warning')).toContain('stale');
    const dave = (await api('POST', '/api/auth/demo', { body: { customerId: 'e2e-dave' } })).json.token;
    expect((await api('POST', `/api/showtimes/${showtimeId}/queue`, { token: dave })).status).toBe(200);

    core = await startTheCore(port);
    const recovered = await eventually(
      () => api('POST', `/api/showtimes/${showtimeId}/holds`, { token: access, body: { seats: ['B1'] } }),
      (r) => r.status !== 503,
    );
    expect(recovered.status).toBe(201);
    // Nothing the outage refused was written: B1 is held once, by Carol.
    const [row] = await sql`SELECT count(*)::int AS n FROM seat_hold WHERE showtime_id = ${showtimeId}`;
    expect(row!.n).toBe(1);
  });
});
