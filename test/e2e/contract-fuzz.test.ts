/**
 * Contract fuzz of both API descriptions against a real stack (edge on real Redis, core on its
 * own PostgreSQL database, the payment sandbox): every operation of the edge's
 * /api/openapi.json and of the core's /openapi.json gets generated bad inputs (test/support/
 * contract-fuzz.ts: wrong types, missing fields, depth, NUL, lone surrogates, a 1 MB body on
 * every method, wrong content types, malformed and duplicated query values, unknown and
 * malformed ids, missing credentials). Every answer: never a 5xx, its status documented for
 * that operation, its JSON body valid against the documented schema, its error code listed;
 * and a refusal (4xx) wrote no row (every table fingerprinted before and after).
 *
 * CONTRACT_FUZZ_RUNS (default 2) scales the randomly chosen inputs; CONTRACT_FUZZ_SEED replays
 * a run; CONTRACT_FUZZ_REPORT=<file> writes the statuses each operation answered and the problems found there. The last test shows the checks failing on a route that answers what it does not document.
 */
import { createHmac } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { isolatedDatabase, testRedisNamespace, testRedisUrl } from '../support/env';
import { callJson, eventually, fetchFrom, type JsonCallInit } from '../support/json-call';
import {
  answerChecker,
  casesFor,
  changedTables,
  seededRandom,
  send,
  tableFingerprint,
  type FuzzCase,
  type FuzzContext,
  type FuzzDocument,
} from '../support/contract-fuzz';
import { connectDatabase } from '../../core/src/db/connect';
import { parseCoreConfig } from '../../core/src/config';
import { startCore, type RunningCore } from '../../core/src/node';
import { redisStreamSink } from '../../core/src/events/event-sink';
import { parseEdgeConfig } from '../../edge/src/config';
import { startEdge, type RunningEdge } from '../../edge/src/node';
import { startPaymentSandbox, type RunningPaymentSandbox } from '../../payment-sandbox/src/start';
import { generateSigningJwk, loadTokenKeys } from '../../lib/token-keys';
import { rectangularLayout } from '../../core/src/demo/seat-layout';

const ADMIN = 'fuzz-admin-token-0123456789abcdef';
const SECRET = 'whsec_fuzz_0123456789abcdef0123456789';
const API_KEY = 'sk_test_fuzz';
const RUNS = Number(process.env.CONTRACT_FUZZ_RUNS ?? 2);
const SEED = Number(process.env.CONTRACT_FUZZ_SEED ?? 20261203);
const HOUR = 3_600_000;

let sql: ReturnType<typeof connectDatabase>;
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let redis: Redis;
let sandbox: RunningPaymentSandbox;
let core: RunningCore;
let edge: RunningEdge;

const admin = { authorization: `Bearer ${ADMIN}` };
const edgeCall = (method: string, path: string, init?: JsonCallInit) =>
  callJson(fetchFrom(edge.url), method, path, init);
const coreCall = (method: string, path: string, init?: JsonCallInit) =>
  callJson(fetchFrom(core.url), method, path, init);

/** What the fuzz reaches past: a showtime on sale, an admitted buyer with a live hold and a booking. */
interface World {
  showtimeId: number;
  venueId: number;
  hallId: number;
  customer: string;
  access: string;
  queueToken: string;
  queueId: string;
  liveHoldId: string;
  bookingId: string;
  paymentId: string;
  bookedHoldId: string;
}
let world: World;

beforeAll(async () => {
  database = await isolatedDatabase('fuzz');
  sql = connectDatabase(database.url, { max: 8, applicationName: 'test-contract-fuzz' });
  redis = new Redis(testRedisUrl());
  const namespace = testRedisNamespace('fuzz');
  const keys = await loadTokenKeys({ signingJwk: await generateSigningJwk('fuzz-1') });
  let edgeUrl = '';
  sandbox = await startPaymentSandbox({
    port: 0,
    config: {
      apiKey: API_KEY,
      webhookSecrets: [SECRET],
      webhook: { baseDelayMs: 20, maxDelayMs: 200, maxAttempts: 50 },
    },
    fetch: (_url, init) => fetch(`${edgeUrl}/api/payments/callback`, init as RequestInit),
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
    {
      sql,
      tokenKeys: keys,
      eventSink: redisStreamSink(redis, { keyPrefix: namespace }),
      // Background jobs write rows on their own clock: kept quiet so a refusal's "no row
      // written" is the request's alone.
      jobSettings: {
        sweepEveryMs: HOUR,
        relayEveryMs: HOUR, // a booking's event would end the buyer's turn at the edge
        reconcileEveryMs: HOUR,
        refundEveryMs: HOUR,
        compensateEveryMs: HOUR,
        retentionEveryMs: HOUR,
      },
    },
  );
  edge = await startEdge(
    parseEdgeConfig({
      EDGE_PORT: '0',
      EDGE_HOST: '127.0.0.1',
      CORE_URL: core.url,
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: namespace,
      ADMIN_TOKEN: ADMIN,
      DEMO_LOGIN: '1',
      DEMO_LOGIN_PER_MINUTE: '1000',
      SNAPSHOT_TTL_MS: '50',
      SEAT_MAP_TTL_MS: '100',
      EVENTS_POLL_MS: '50',
      CORE_TIMEOUT_MS: '5000',
      FLOOD_POINTS: '100000',
      CUSTOMER_READS_PER_MINUTE: '100000',
      ADMIN_LOCKOUT_ATTEMPTS: '100000',
      LOG_LEVEL: 'silent',
    }),
    { tokenKeys: keys },
  );
  edgeUrl = edge.url;
  world = await buildWorld();
}, 120_000);

afterAll(async () => {
  await edge?.close();
  await core?.close();
  await sandbox?.close();
  await sql?.end();
  await database?.drop();
  redis?.disconnect();
});

async function buildWorld(): Promise<World> {
  const venue = await coreCall('POST', '/admin/venues', { headers: admin, body: { name: 'Fuzz venue', city: 'Fuzz' } });
  const seats = rectangularLayout({ rows: 4, columns: 8 }).map(({ code, rowLabel, row, column, type }) => ({
    code,
    rowLabel,
    row,
    column,
    type,
  }));
  const hall = await coreCall('POST', `/admin/venues/${venue.json.id}/halls`, {
    headers: admin,
    body: { name: 'Fuzz hall', seats },
  });
  const showtime = await coreCall('POST', '/admin/showtimes', {
    headers: admin,
    body: {
      hallId: hall.json.id,
      title: 'Fuzz premiere',
      startsAt: new Date(Date.now() + 86_400_000).toISOString(),
      priceCents: 900,
      maxSeatsPerCustomer: 20,
    },
  });
  expect(showtime.status, showtime.text).toBe(201);
  const showtimeId = showtime.json.id as number;
  const room = await edgeCall('PUT', `/api/admin/showtimes/${showtimeId}/room`, {
    headers: admin,
    body: {
      capacity: 50,
      admitPerMinute: 6000,
      sessionTtlSeconds: 3600,
      state: 'open',
      customerBucketCapacity: 1000,
      customerRefillPerMinute: 60000,
    },
  });
  expect(room.status, room.text).toBe(200);
  const customer = (await edgeCall('POST', '/api/auth/demo', { body: {} })).json.token as string;
  const joined = await eventually(
    () => edgeCall('POST', `/api/showtimes/${showtimeId}/queue`, { token: customer }),
    (r) => r.json?.state === 'admitted',
  );
  expect(joined.json.state, joined.text).toBe('admitted');
  const access = joined.json.accessToken as string;
  const booked = await edgeCall('POST', `/api/showtimes/${showtimeId}/holds`, {
    token: access,
    body: { seats: ['A1'] },
  });
  expect(booked.status, booked.text).toBe(201);
  const checkout = await edgeCall('POST', `/api/holds/${booked.json.holdId}/checkout`, {
    token: access,
    headers: { 'idempotency-key': 'fuzz-booking' },
  });
  expect(checkout.status, checkout.text).toBe(201);
  const approved = await callJson(fetchFrom(sandbox.url), 'POST', `/v1/payments/${checkout.json.paymentId}/approve`, {
    headers: { authorization: `Bearer ${API_KEY}` },
  });
  expect(approved.status).toBe(200);
  const confirmed = await eventually(
    () => edgeCall('GET', `/api/holds/${booked.json.holdId}`, { token: access }),
    (r) => r.json?.status === 'CONFIRMED',
  );
  expect(confirmed.json.status).toBe('CONFIRMED');
  const live = await edgeCall('POST', `/api/showtimes/${showtimeId}/holds`, { token: access, body: { seats: ['A2'] } });
  expect(live.status, live.text).toBe(201);
  return {
    showtimeId,
    venueId: venue.json.id,
    hallId: hall.json.id,
    customer,
    access,
    queueToken: joined.json.queueToken,
    queueId: joined.json.queueId,
    liveHoldId: live.json.holdId,
    bookingId: confirmed.json.bookingId,
    paymentId: checkout.json.paymentId,
    bookedHoldId: booked.json.holdId,
  };
}

/** Valid bodies, one per request schema of either description: the fuzz spoils them one way at a time. */
function validBodies(): Record<string, unknown> {
  const refundPolicy = { tiers: [{ beforeStartMinutes: 120, percent: 50 }] };
  const seatClass = { seats: ['D8'], fareClass: 'STANDARD' };
  return {
    HoldRequest: { seats: ['B1'] },
    CheckoutRequest: { returnUrl: `http://127.0.0.1:1/showtimes/${world.showtimeId}` },
    RoomUpdate: { capacity: 50, state: 'open' },
    PaymentWebhook: {
      id: 'evt_fuzz_duplicate',
      type: 'payment.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: { paymentId: world.paymentId, amount: 900, currency: 'EUR', reference: world.bookedHoldId },
    },
    FareClassChange: { label: 'Standard' },
    SeatClassChange: seatClass,
    SeatClassChangeRequest: seatClass,
    RefundPolicy: refundPolicy,
    RefundPolicyRequest: refundPolicy,
    VenueRequest: { name: 'Fuzz venue two', city: 'Fuzz' },
    HallRequest: { name: 'Fuzz hall two', seats: [{ code: 'A1', row: 1, rowLabel: 'A', column: 1, type: 'standard' }] },
    ShowtimeRequest: {
      hallId: world.hallId,
      title: 'Fuzz sequel',
      startsAt: new Date(Date.now() + 2 * 86_400_000).toISOString(),
      priceCents: 900,
    },
    ShowtimeChanges: { title: 'Fuzz premiere' },
    TurnRequest: { customerId: 'fuzz-turn-customer', ticket: 1, expiresAtMs: Date.now() + HOUR },
    EndTurnRequest: { customerId: 'fuzz-turn-customer' },
  };
}

function contextFor(): FuzzContext {
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const key = { 'idempotency-key': 'fuzz-checkout' };
  return {
    params: {
      id: String(world.showtimeId),
      showtimeId: String(world.showtimeId),
      venueId: String(world.venueId),
      holdId: world.liveHoldId,
      bookingId: world.bookingId,
      fareClass: 'STANDARD',
      queueId: world.queueId,
    },
    unknownParams: {
      id: '987654321',
      showtimeId: '987654321',
      venueId: '987654321',
      holdId: '00000000-0000-4000-8000-00000000f022',
      bookingId: '00000000-0000-4000-8000-00000000f022',
      fareClass: 'NOPE',
      queueId: 'ZZZZZZZZZZ',
    },
    credentials: {
      customer: bearer(world.customer),
      access: bearer(world.access),
      queue: { 'x-queue-token': world.queueToken },
      admin: bearer(ADMIN),
    },
    bodies: validBodies(),
    extraHeaders: { 'POST /api/holds/{holdId}/checkout': key, 'POST /holds/{holdId}/checkout': key },
    // The Node edge answers the load balancer's probe from its own accept queue, before the app.
    bodyNeverRead: ['GET /healthz'],
  };
}

/** The webhook is signed over its exact bytes: each spoiled body gets a valid signature, so it reaches validation. */
function signWebhooks(fuzzCase: FuzzCase): FuzzCase {
  if (!fuzzCase.template.endsWith('/payments/callback') || fuzzCase.body === undefined) return fuzzCase;
  if (fuzzCase.headers['x-signature'] !== undefined || fuzzCase.label.startsWith('header X-Signature')) return fuzzCase;
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', SECRET).update(`${t}.${fuzzCase.body.toString()}`).digest('hex');
  return { ...fuzzCase, headers: { ...fuzzCase.headers, 'x-signature': `t=${t},v1=${v1}` } };
}

let keyCounter = 0;
/** A fresh Idempotency-Key per checkout case, so one case's stored answer never decides the next one's. */
function freshKeys(fuzzCase: FuzzCase): FuzzCase {
  if (!fuzzCase.template.endsWith('/checkout') || fuzzCase.label.startsWith('header Idempotency-Key')) return fuzzCase;
  return { ...fuzzCase, headers: { ...fuzzCase.headers, 'idempotency-key': `fuzz-${++keyCounter}` } };
}

/**
 * 503s the document promises for a reason of their own, not a failure: a webhook for a payment
 * the core does not know yet asks the gateway to deliver again.
 */
const INTENDED_503 = new Set(['PAYMENT_UNKNOWN_YET']);

async function fuzzDocument(baseUrl: string, docPath: string): Promise<{ calls: number; problems: string[] }> {
  const served = await callJson(fetchFrom(baseUrl), 'GET', docPath);
  expect(served.status).toBe(200);
  const doc = served.json as FuzzDocument;
  const problemsOf = answerChecker(doc);
  const random = seededRandom(SEED);
  const context = contextFor();
  const problems: string[] = [];
  const tally: string[] = [];
  let calls = 0;
  for (const [template, methods] of Object.entries(doc.paths))
    for (const [method, operation] of Object.entries(methods)) {
      const statuses: Record<number, number> = {};
      for (const generated of casesFor(method, template, operation, context, random, RUNS)) {
        const fuzzCase = freshKeys(signWebhooks(generated));
        const before = await tableFingerprint(sql);
        const answer = await send(baseUrl, fuzzCase);
        calls++;
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        const found = problemsOf(method, template, answer).filter(
          (problem) =>
            !(
              answer.status === 503 &&
              problem === 'answered 503' &&
              INTENDED_503.has((answer.json as { error?: { code?: string } })?.error?.code ?? '')
            ),
        );
        if (fuzzCase.expectStatus && !fuzzCase.expectStatus.includes(answer.status))
          found.push(`expected ${fuzzCase.expectStatus.join(' or ')}`);
        if (answer.status >= 400 && answer.status < 500) {
          const changed = changedTables(before, await tableFingerprint(sql));
          if (changed.length > 0) found.push(`a ${answer.status} wrote rows in ${changed.join(', ')}`);
        }
        for (const problem of found)
          problems.push(
            `${fuzzCase.method} ${template} [${fuzzCase.label}] → ${answer.status}: ${problem} ${answer.text.slice(0, 160)}`,
          );
      }
      tally.push(`${method.toUpperCase()} ${template}: ${JSON.stringify(statuses)}`);
    }
  // CONTRACT_FUZZ_REPORT=<file>: every problem on a line of its own, easier to read than a diff.
  if (process.env.CONTRACT_FUZZ_REPORT)
    appendFileSync(process.env.CONTRACT_FUZZ_REPORT, [...tally, ...problems].map((p) => `${p}\n`).join(''));
  return { calls, problems };
}

describe('contract fuzz', () => {
  it("the edge's description holds under bad input", async () => {
    const { calls, problems } = await fuzzDocument(edge.url, '/api/openapi.json');
    expect(calls).toBeGreaterThan(300);
    expect(problems).toEqual([]);
  });

  it("the core's description holds under bad input", async () => {
    const { calls, problems } = await fuzzDocument(core.url, '/openapi.json');
    expect(calls).toBeGreaterThan(300);
    expect(problems).toEqual([]);
  });

  it('catches a route that answers what it does not document: the broken variant', async () => {
    // One operation documented 200 and 404; the route answers 418 to a wrong type, 500 to a
    // deep body, a body off its schema to a missing field, and writes nothing anyway.
    const doc: FuzzDocument = {
      paths: {
        '/things/{thingId}': {
          put: {
            parameters: [{ name: 'thingId', in: 'path', required: true }],
            requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
            responses: {
              200: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
              404: {
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
                'x-error-codes': ['THING_NOT_FOUND'],
              },
            },
          },
        },
      },
      components: {
        schemas: {
          Thing: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          Error: { type: 'object', properties: { error: { type: 'object' } }, required: ['error'] },
        },
      },
    };
    const app = new Hono();
    app.put('/things/:thingId', async (c) => {
      if (c.req.param('thingId') !== '1') return c.json({ error: { code: 'THING_NOT_FOUND' } }, 404);
      const text = await c.req.text();
      if (text.startsWith('[[[')) return c.json({ error: { code: 'INTERNAL' } }, 500);
      const body = JSON.parse(text || '{}') as { name?: unknown };
      if (typeof body.name !== 'string' && body.name !== undefined) return c.json({ error: { code: 'TEAPOT' } }, 418);
      return c.json({ named: body.name ?? null }, 200);
    });
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const problemsOf = answerChecker(doc);
      const context: FuzzContext = {
        params: { thingId: '1' },
        unknownParams: { thingId: '2' },
        credentials: {},
        bodies: { Thing: { name: 'a thing' } },
      };
      const found = new Set<string>();
      for (const fuzzCase of casesFor(
        'put',
        '/things/{thingId}',
        doc.paths['/things/{thingId}']!.put!,
        context,
        seededRandom(1),
        2,
      )) {
        const answer = await send(baseUrl, fuzzCase);
        for (const problem of problemsOf('put', '/things/{thingId}', answer)) found.add(problem.replace(/:.*/s, ''));
      }
      expect([...found]).toEqual(
        expect.arrayContaining([
          'status 418 is not documented',
          'answered 500',
          'status 500 is not documented',
          'body',
        ]),
      );
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('sees a row written by a refusal: the fingerprint changes', async () => {
    const before = await tableFingerprint(sql);
    await sql`UPDATE venue SET city = city || '' , name = name || ' ' WHERE id = ${world.venueId}`;
    expect(changedTables(before, await tableFingerprint(sql))).toEqual(['venue']);
  });
});
