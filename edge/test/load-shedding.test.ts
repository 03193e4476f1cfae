/**
 * Load shedding at the edge (net/load-shedding.ts, the core client's bulkhead), over real
 * ports, on the run's Redis, with the stub core served over HTTP (what the core answers does
 * not matter here; what reaches it does):
 * - an event loop kept busy in this process (a real busy loop, the real lag monitor): joins,
 *   holds and demo logins are answered 503 BUSY with Retry-After, /healthz answers and says so,
 *   polls are answered, bad input still gets its 4xx; the edge serves again once the loop is free;
 * - clients that send a request and close the connection before the edge reads it cause no
 *   core call (holds) and take no place in line (joins, under pressure);
 * - the bulkhead: with the core hanging, the call above CORE_CALLS_IN_FLIGHT waits its turn and is
 *   answered 503 BUSY with Retry-After once it has waited CORE_QUEUE_WAIT_MS, while the others
 *   still wait; they complete once the core answers; a queued call is served when a slot frees
 *   in time (the refusal at once, from the measured latency, is unit-tested in core-bulkhead.test.ts).
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, eventually, fetchFrom } from '../../test/support/json-call';
import { testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { freePort } from '../../queue/test/redis-servers';
import { parseEdgeConfig } from '../src/config';
import { startEdge, type RunningEdge } from '../src/node';
import { EDGE_ADMIN_TOKEN, fastRoom, signCustomerToken, testTokenKeys } from './edge-harness';
import { serveRestartable, type RestartableHttp } from './private-servers';
import { createStubCore, type StubCore } from './stub-core';

const CORE_CALLS = 3;
const QUEUE_WAIT_MS = 600;
let core: StubCore;
let coreServer: RestartableHttp;
/** Holds that reached the core's door (counted before any hang). */
let holdArrivals = 0;
let hangHolds = false;
const hanging: (() => void)[] = [];

/** Shedding by the measured lag (SHED_LAG_MS 100), with the internal port (/healthz, /metrics). */
let lagging: RunningEdge;
let internalPort: number;
/** Shedding by a load state the test sets (pressure without a busy loop), and a small bulkhead. */
let steered: RunningEdge;
const load = { lagMs: 0, shedding: false, pressed: false };

const config = (extra: Record<string, string>) =>
  parseEdgeConfig({
    EDGE_PORT: '0',
    EDGE_HOST: '127.0.0.1',
    CORE_URL: coreServer.url,
    ADMIN_TOKEN: EDGE_ADMIN_TOKEN,
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: testRedisNamespace('shed'),
    DEMO_LOGIN_PER_MINUTE: '100000',
    FLOOD_POINTS: '100000',
    ROOM_SYNC_MS: '60000',
    LOG_LEVEL: 'silent',
    ...extra,
  });

beforeAll(async () => {
  const keys = await testTokenKeys();
  core = createStubCore(keys);
  coreServer = await serveRestartable(async (request) => {
    if (request.method === 'POST' && /^\/showtimes\/\d+\/holds$/.test(new URL(request.url).pathname)) {
      holdArrivals++;
      if (hangHolds) await new Promise<void>((resolve) => hanging.push(resolve));
    }
    return core.app.fetch(request);
  });
  internalPort = await freePort();
  lagging = await startEdge(config({ SHED_LAG_MS: '100', METRICS_PORT: String(internalPort) }), {
    tokenKeys: keys,
    consumeEvents: false,
  });
  steered = await startEdge(
    config({ CORE_CALLS_IN_FLIGHT: String(CORE_CALLS), CORE_QUEUE_WAIT_MS: String(QUEUE_WAIT_MS) }),
    { tokenKeys: keys, consumeEvents: false, load },
  );
});
afterAll(async () => {
  for (const release of hanging.splice(0)) release();
  await lagging?.close();
  await steered?.close();
  await coreServer?.stop();
});

const api = (edge: RunningEdge) => (method: string, path: string, init?: Parameters<typeof callJson>[3]) =>
  callJson(fetchFrom(edge.url), method, path, init);
const metricsText = async (edge: RunningEdge) =>
  (await fetch(`${edge.url}/metrics`, { headers: { authorization: `Bearer ${EDGE_ADMIN_TOKEN}` } })).text();
const metric = (text: string, pattern: string) => Number(new RegExp(`^${pattern} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);

/** A showtime whose room admits the first `capacity` joiners at once; the rest wait. */
async function room(edge: RunningEdge, capacity: number): Promise<number> {
  const showtimeId = core.addShowtime();
  expect((await edge.app.rooms.engine.configure(String(showtimeId), { ...fastRoom, capacity })).ok).toBe(true);
  return showtimeId;
}

/** Joins as a new customer: the answer (state, queue token, access token when admitted) and the customer token. */
async function joinAs(edge: RunningEdge, showtimeId: number, customerId: string) {
  const token = await signCustomerToken(customerId);
  const joined = await api(edge)('POST', `/api/showtimes/${showtimeId}/queue`, { token });
  expect(joined.status).toBe(200);
  return { token, answer: joined.json };
}

async function admitted(edge: RunningEdge, showtimeId: number, customerId: string): Promise<string> {
  const { answer } = await joinAs(edge, showtimeId, customerId);
  expect(answer.state).toBe('admitted');
  return answer.accessToken as string;
}

/** Keeps this process's event loop busy: 250 ms of spinning, again and again. */
function busyLoop() {
  const timer = setInterval(() => {
    const until = performance.now() + 250;
    while (performance.now() < until);
  }, 5);
  return () => clearInterval(timer);
}

function expectBusy(result: Awaited<ReturnType<ReturnType<typeof api>>>) {
  expect(result.status).toBe(503);
  expect(result.json.error.code).toBe('BUSY');
  const retryAfter = result.headers.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(10);
  expect(result.json.error.retryAfterSeconds).toBe(Number(retryAfter));
  expect(result.headers.get('x-request-id')).toBeTruthy();
}

describe('event-loop lag', () => {
  it('answers costly requests 503 BUSY with Retry-After while /healthz, polls and cheap refusals are answered; serves again once the loop is free', async () => {
    const call = api(lagging);
    const showtimeId = await room(lagging, 1);
    const access = await admitted(lagging, showtimeId, 'lag-admitted');
    const waiting = await joinAs(lagging, showtimeId, 'lag-waiting');
    expect(waiting.answer.state).toBe('waiting');
    const pollPath = `/api/showtimes/${showtimeId}/queue`;
    const healthy = await call('GET', '/healthz');
    expect(healthy.json).toMatchObject({ status: 'ok', shedding: false });

    const stop = busyLoop();
    try {
      await eventually(
        async () => lagging.load.shedding,
        (shedding) => shedding,
        20_000,
      );
      const health = await call('GET', '/healthz');
      expect(health.status).toBe(200);
      expect(health.json).toMatchObject({ status: 'ok', shedding: true });
      expect(health.json.eventLoopLagMs).toBeGreaterThanOrEqual(100);
      // The same answer on the internal port, for a load balancer's probe.
      const internal = await callJson(fetchFrom(`http://127.0.0.1:${internalPort}`), 'GET', '/healthz');
      expect(internal.status).toBe(200);
      expect(internal.json).toMatchObject({ status: 'ok', shedding: true });

      expectBusy(
        await call('POST', `/api/showtimes/${showtimeId}/queue`, { token: await signCustomerToken('lag-new') }),
      );
      expectBusy(await call('POST', `/api/showtimes/${showtimeId}/holds`, { token: access, body: { seats: ['A1'] } }));
      expectBusy(await call('POST', '/api/auth/demo', { body: {} }));
      const holdsBefore = holdArrivals;

      // The buyer already in line is still told where they stand.
      const polled = await call('GET', pollPath, { headers: { 'x-queue-token': waiting.answer.queueToken } });
      expect(polled.status).toBe(200);
      expect(polled.json.state).toBe('waiting');
      // Bad input still gets its own answer.
      expect((await call('POST', `/api/showtimes/${showtimeId}/queue`)).status).toBe(401);
      expect((await call('POST', `/api/showtimes/${showtimeId}/holds`, { body: { seats: ['A1'] } })).status).toBe(401);
      expect(
        (await call('POST', '/api/showtimes/not-a-showtime/queue', { token: await signCustomerToken('lag-bad') }))
          .status,
      ).toBe(404);
      expect(holdArrivals).toBe(holdsBefore);

      const text = await metricsText(lagging);
      expect(metric(text, 'edge_shed_requests_total\\{reason="event_loop_lag"\\}')).toBeGreaterThanOrEqual(3);
      expect(metric(text, 'edge_event_loop_lag_seconds')).toBeGreaterThanOrEqual(0.1);
    } finally {
      stop();
    }

    await eventually(
      async () => lagging.load.shedding,
      (shedding) => !shedding,
      20_000,
    );
    expect((await call('GET', '/healthz')).json.shedding).toBe(false);
    expect(
      (await call('POST', `/api/showtimes/${showtimeId}/queue`, { token: await signCustomerToken('lag-after') }))
        .status,
    ).toBe(200);
    expect(
      (await call('POST', `/api/showtimes/${showtimeId}/holds`, { token: access, body: { seats: ['A1'] } })).status,
    ).toBe(201);
  });
});

/** Sends raw HTTP requests and closes each connection as soon as its bytes are written. */
async function sendAndLeave(edge: RunningEdge, requests: string[]): Promise<void> {
  const sockets = await Promise.all(
    requests.map(
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect(edge.port, '127.0.0.1', () => resolve(socket));
          socket.on('error', reject);
        }),
    ),
  );
  // Everything is written and closed before the edge's next turn reads any of it.
  await Promise.all(
    sockets.map(
      (socket, i) => new Promise<void>((resolve) => socket.write(requests[i]!, () => (socket.destroy(), resolve()))),
    ),
  );
}

const rawRequest = (method: string, path: string, token: string, body = '') =>
  `${method} ${path} HTTP/1.1\r\nHost: edge.test\r\nAuthorization: Bearer ${token}\r\n` +
  (body ? `Content-Type: application/json\r\n` : '') +
  `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

describe('clients that have gone', () => {
  it('under pressure, holds whose client left are dropped before any work and never reach the core', async () => {
    const call = api(steered);
    const showtimeId = await room(steered, 2);
    const access = await admitted(steered, showtimeId, 'gone-holder');
    const other = await admitted(steered, showtimeId, 'gone-control');
    const before = holdArrivals;
    const goneBefore = metric(await metricsText(steered), 'edge_shed_requests_total\\{reason="client_gone"\\}');
    const body = JSON.stringify({ seats: ['A1'] });

    Object.assign(load, { lagMs: 200, pressed: true });
    try {
      await sendAndLeave(
        steered,
        Array.from({ length: 10 }, () => rawRequest('POST', `/api/showtimes/${showtimeId}/holds`, access, body)),
      );
      const dropped = await eventually(
        async () =>
          metric(await metricsText(steered), 'edge_shed_requests_total\\{reason="client_gone"\\}') - goneBefore,
        (count) => count >= 10,
      );
      expect(dropped).toBe(10);
      expect(holdArrivals).toBe(before);

      // The control: a client that stays gets its hold, under pressure too.
      const kept = await call('POST', `/api/showtimes/${showtimeId}/holds`, { token: other, body: { seats: ['A2'] } });
      expect(kept.status).toBe(201);
      expect(holdArrivals).toBe(before + 1);
    } finally {
      Object.assign(load, { lagMs: 0, pressed: false });
    }
    // None of the dropped holds took a purchase token: the buyer still has the whole budget (10).
    expect(
      (await call('POST', `/api/showtimes/${showtimeId}/holds`, { token: access, body: { seats: ['A3'] } })).status,
    ).toBe(201);
  });

  it('a hold whose client leaves while the core is slow is abandoned: its core call ends, uncounted as a core failure', async () => {
    const call = api(steered);
    const showtimeId = await room(steered, 1);
    const access = await admitted(steered, showtimeId, 'slow-leaver');
    const before = await metricsText(steered);
    hangHolds = true;
    const arrivals = holdArrivals;
    const socket = await new Promise<Socket>((resolve) => {
      const s = connect(steered.port, '127.0.0.1', () => resolve(s));
    });
    try {
      socket.write(rawRequest('POST', `/api/showtimes/${showtimeId}/holds`, access, JSON.stringify({ seats: ['A1'] })));
      await eventually(
        async () => holdArrivals - arrivals,
        (n) => n === 1,
      );
      expect((await call('GET', '/healthz')).json.coreCallsInFlight).toBe(1);
      socket.destroy();
      // The core still has not answered; the edge no longer waits for it.
      const inFlight = await eventually(
        async () => (await call('GET', '/healthz')).json.coreCallsInFlight,
        (n) => n === 0,
      );
      expect(inFlight).toBe(0);
      expect(hanging.length).toBe(1);
      const after = await metricsText(steered);
      const gone = 'edge_shed_requests_total\\{reason="client_gone"\\}';
      expect(metric(after, gone) - metric(before, gone)).toBe(1);
      expect(metric(after, 'edge_core_errors_total')).toBe(metric(before, 'edge_core_errors_total'));
      expect(
        metric(after, 'edge_http_requests_total\\{method="POST",route="/api/showtimes/:id/holds",status="499"\\}'),
      ).toBe(1);
    } finally {
      hangHolds = false;
      for (const release of hanging.splice(0)) release();
      socket.destroy();
    }
  });

  it('joins whose client left under pressure take no place in line', async () => {
    const call = api(steered);
    const showtimeId = await room(steered, 1);
    await admitted(steered, showtimeId, 'line-first');
    const tokens = await Promise.all(Array.from({ length: 8 }, (_, i) => signCustomerToken(`line-gone-${i}`)));
    // Tokens verified once, as a buyer's would be by an earlier request (a leave, when not in line).
    for (const token of tokens)
      expect((await call('DELETE', `/api/showtimes/${showtimeId}/queue`, { token })).status).toBe(200);

    const gone = 'edge_shed_requests_total\\{reason="client_gone"\\}';
    const goneBefore = metric(await metricsText(steered), gone);
    Object.assign(load, { lagMs: 200, pressed: true });
    try {
      await sendAndLeave(
        steered,
        tokens.map((token) => rawRequest('POST', `/api/showtimes/${showtimeId}/queue`, token)),
      );
      const dropped = await eventually(
        async () => metric(await metricsText(steered), gone) - goneBefore,
        (count) => count >= tokens.length,
      );
      expect(dropped).toBe(tokens.length);
      const stayed = await joinAs(steered, showtimeId, 'line-stayed');
      expect(stayed.answer).toMatchObject({ state: 'waiting', position: 1, lineLength: 1 });
    } finally {
      Object.assign(load, { lagMs: 0, pressed: false });
    }
    // Each of them can still join, at the back.
    const late = await joinAs(steered, showtimeId, 'line-gone-0');
    expect(late.answer).toMatchObject({ state: 'waiting', position: 2 });
  });
});

describe('bulkhead on calls to the core', () => {
  it(`queues the call above ${CORE_CALLS} in flight, answers it 503 BUSY once it has waited ${QUEUE_WAIT_MS} ms for a core that hangs, and the others complete`, async () => {
    const call = api(steered);
    const showtimeId = await room(steered, CORE_CALLS + 1);
    const tokens: string[] = [];
    for (let i = 0; i <= CORE_CALLS; i++) tokens.push(await admitted(steered, showtimeId, `bulkhead-${i}`));
    const shedBefore = metric(await metricsText(steered), 'edge_shed_requests_total\\{reason="core_queue_timeout"\\}');

    hangHolds = true;
    const arrivals = holdArrivals;
    const pending = tokens
      .slice(0, CORE_CALLS)
      .map((token, i) => call('POST', `/api/showtimes/${showtimeId}/holds`, { token, body: { seats: [`B${i}`] } }));
    try {
      await eventually(
        async () => holdArrivals - arrivals,
        (n) => n === CORE_CALLS,
      );
      const health = await call('GET', '/healthz');
      expect(health.json.coreCallsInFlight).toBe(CORE_CALLS);

      const queued = call('POST', `/api/showtimes/${showtimeId}/holds`, {
        token: tokens[CORE_CALLS]!,
        body: { seats: ['C1'] },
      });
      // It waits for a slot rather than being refused on the spot.
      expect(
        await Promise.race([
          queued.then(() => 'answered'),
          new Promise((resolve) => setTimeout(() => resolve('waiting'), QUEUE_WAIT_MS / 2)),
        ]),
      ).toBe('waiting');
      const refused = await queued;
      expectBusy(refused);
      expect(refused.headers.get('retry-after')).toBe('2');
      expect(holdArrivals - arrivals).toBe(CORE_CALLS);
      // Answered while the others still wait at the core.
      expect(hanging.length).toBe(CORE_CALLS);
      // Any core call: a hold read of the same buyer too.
      const read = await call('GET', '/api/holds/hold-0', { token: tokens[CORE_CALLS]! });
      expectBusy(read);
      const text = await metricsText(steered);
      expect(metric(text, 'edge_shed_requests_total\\{reason="core_queue_timeout"\\}') - shedBefore).toBe(2);
      expect(metric(text, 'edge_core_errors_total')).toBe(0);
    } finally {
      hangHolds = false;
      for (const release of hanging.splice(0)) release();
    }
    expect((await Promise.all(pending)).map((result) => result.status)).toEqual(Array(CORE_CALLS).fill(201));
    expect((await call('GET', '/healthz')).json.coreCallsInFlight).toBe(0);
    const after = await call('POST', `/api/showtimes/${showtimeId}/holds`, {
      token: tokens[CORE_CALLS]!,
      body: { seats: ['C1'] },
    });
    expect(after.status).toBe(201);
  });

  it('serves the queued call once a slot frees in time', async () => {
    const call = api(steered);
    const showtimeId = await room(steered, CORE_CALLS + 1);
    const tokens: string[] = [];
    for (let i = 0; i <= CORE_CALLS; i++) tokens.push(await admitted(steered, showtimeId, `queued-${i}`));
    hangHolds = true;
    const arrivals = holdArrivals;
    const pending = tokens
      .slice(0, CORE_CALLS)
      .map((token, i) => call('POST', `/api/showtimes/${showtimeId}/holds`, { token, body: { seats: [`D${i}`] } }));
    let queued: ReturnType<typeof call> | undefined;
    try {
      await eventually(
        async () => holdArrivals - arrivals,
        (n) => n === CORE_CALLS,
      );
      queued = call('POST', `/api/showtimes/${showtimeId}/holds`, {
        token: tokens[CORE_CALLS]!,
        body: { seats: ['E1'] },
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      hangHolds = false;
      hanging.shift()?.();
    } finally {
      hangHolds = false;
      for (const release of hanging.splice(0)) release();
    }
    expect((await queued!).status).toBe(201);
    expect((await Promise.all(pending)).map((result) => result.status)).toEqual(Array(CORE_CALLS).fill(201));
  });
});
