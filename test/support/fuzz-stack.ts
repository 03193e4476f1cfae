/**
 * The stack the contract fuzz runs against (test/e2e/contract-fuzz.test.ts): the edge on real
 * Redis, the core on a database of its own, the payment sandbox; and a world in it to reach past
 * lookups and credentials: a showtime on sale, an admitted buyer with a live hold and a booking.
 * Background jobs are kept quiet, so a refusal's "no row written" is the request's alone.
 */
import { createHmac } from 'node:crypto';
import { expect } from 'vitest';
import { callJson, eventually, fetchFrom, type JsonCallInit } from './json-call';
import type { FuzzCase, FuzzContext } from './contract-fuzz';
import { startInProcessStack } from './in-process-stack';
import type { connectDatabase } from '../../core/src/db/connect';
import type { RunningCore } from '../../core/src/node';
import type { RunningEdge } from '../../edge/src/node';
import { rectangularLayout } from '../../core/src/demo/seat-layout';

const ADMIN = 'fuzz-admin-token-0123456789abcdef';
const SECRET = 'whsec_fuzz_0123456789abcdef0123456789';
const API_KEY = 'sk_test_fuzz';
const HOUR = 3_600_000;
/** The edge's credential at the core, set as production requires: the core's description documents its 401. */
const SERVICE_TOKEN = 'fuzz-service-token-0123456789';

/** What the fuzz reaches past: a showtime on sale, an admitted buyer with a live hold and a booking. */
export interface World {
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
export interface FuzzStack {
  sql: ReturnType<typeof connectDatabase>;
  edge: RunningEdge;
  core: RunningCore;
  world: World;
  /** What the fuzz needs to know of the world (ids, credentials, valid bodies), per service. */
  contexts: { edge: FuzzContext; core: FuzzContext };
  /** Signs a webhook case over its exact bytes, so a spoiled body reaches validation. */
  signWebhook(fuzzCase: FuzzCase): FuzzCase;
  close(): Promise<void>;
}

export async function startFuzzStack(): Promise<FuzzStack> {
  const stack = await startInProcessStack({
    name: 'fuzz',
    adminToken: ADMIN,
    webhookSecret: SECRET,
    paymentApiKey: API_KEY,
    coreEnv: { CORE_SERVICE_TOKEN: SERVICE_TOKEN },
    edgeEnv: {
      CORE_SERVICE_TOKEN: SERVICE_TOKEN,
      DEMO_LOGIN_PER_MINUTE: '1000',
      CORE_TIMEOUT_MS: '5000',
      CUSTOMER_READS_PER_MINUTE: '100000',
      ADMIN_LOCKOUT_ATTEMPTS: '100000',
    },
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
  });
  const { sql, edge, core, sandbox } = stack;

  const admin = { authorization: `Bearer ${ADMIN}` };
  const edgeCall = (method: string, path: string, init?: JsonCallInit) =>
    callJson(fetchFrom(edge.url), method, path, init);
  const coreCall = (method: string, path: string, init?: JsonCallInit) =>
    callJson(fetchFrom(core.url), method, path, {
      ...init,
      headers: { ...init?.headers, 'x-service-token': SERVICE_TOKEN },
    });
  const world = await buildWorld({ admin, edgeCall, coreCall, sandboxUrl: sandbox.url });
  return {
    sql,
    edge,
    core,
    world,
    contexts: {
      edge: contextFor(world),
      core: { ...contextFor(world), commonHeaders: { 'x-service-token': SERVICE_TOKEN } },
    },
    signWebhook: signWebhooks,
    close: () => stack.close(),
  };
}

type Call = (method: string, path: string, init?: JsonCallInit) => ReturnType<typeof callJson>;

async function buildWorld({
  admin,
  edgeCall,
  coreCall,
  sandboxUrl,
}: {
  admin: Record<string, string>;
  edgeCall: Call;
  coreCall: Call;
  sandboxUrl: string;
}): Promise<World> {
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
  const approved = await callJson(fetchFrom(sandboxUrl), 'POST', `/v1/payments/${checkout.json.paymentId}/approve`, {
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
function validBodies(world: World): Record<string, unknown> {
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

function contextFor(world: World): FuzzContext {
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
    bodies: validBodies(world),
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
