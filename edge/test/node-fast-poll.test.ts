/**
 * The Node entry answers snapshot polls on node:http without the Hono app (node-fast-poll.ts).
 * Over a real port: the answer is the one the app gives for the same token, headers included;
 * anything the fast path is not sure about reaches the app and gets its full answer; the flood
 * limit counts every poll once, whichever path served it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseEdgeConfig } from '../src/config';
import { startEdge, type RunningEdge } from '../src/node';
import { callJson, fetchFrom } from '../../test/support/json-call';
import { EDGE_ADMIN_TOKEN, fastRoom, testTokenKeys } from './edge-harness';
import { serveRestartable, type RestartableHttp } from './private-servers';
import { createStubCore, type StubCore } from './stub-core';
import { createQueueTokens } from '../src/tokens/queue-token';
import { nodeHmacSha256 } from '../src/tokens/queue-token-node';
import { generateSigningJwk, loadTokenKeys } from '../../lib/token-keys';

let core: StubCore;
let coreServer: RestartableHttp;
let edge: RunningEdge;
const POLLS_ALLOWED = 40;

beforeAll(async () => {
  const keys = await testTokenKeys();
  core = createStubCore(keys);
  coreServer = await serveRestartable((request) => core.app.fetch(request));
  edge = await startEdge(
    parseEdgeConfig({
      EDGE_PORT: '0',
      EDGE_HOST: '127.0.0.1',
      CORE_URL: coreServer.url,
      ADMIN_TOKEN: EDGE_ADMIN_TOKEN,
      DEMO_LOGIN_PER_MINUTE: '100000',
      SNAPSHOT_TTL_MS: '10000',
      FLOOD_POINTS: String(POLLS_ALLOWED),
      FLOOD_WINDOW_MS: '60000',
      LOG_LEVEL: 'silent',
    }),
    { tokenKeys: keys, consumeEvents: false },
  );
});
afterAll(async () => {
  await edge?.close();
  await coreServer?.stop();
});

const api = (method: string, path: string, init?: Parameters<typeof callJson>[3]) =>
  callJson(fetchFrom(edge.url), method, path, init);
const metricsText = async () =>
  (await fetch(`${edge.url}/metrics`, { headers: { authorization: `Bearer ${EDGE_ADMIN_TOKEN}` } })).text();
const fastCount = async () => Number(/edge_queue_polls_fast_total (\d+)/.exec(await metricsText())?.[1] ?? 0);

it('answers far-back polls like the app does, and hands everything else to the app', async () => {
  const showtimeId = core.addShowtime();
  expect((await edge.app.rooms.engine.configure(String(showtimeId), { ...fastRoom, capacity: 1 })).ok).toBe(true);
  const tokens: string[] = [];
  for (let i = 0; i < 30; i++) {
    const login = await api('POST', '/api/auth/demo', { body: { customerId: `fast-${i}` } });
    const joined = await api('POST', `/api/showtimes/${showtimeId}/queue`, { token: login.json.token });
    if (joined.json.queueToken) tokens.push(joined.json.queueToken);
  }
  const last = tokens.at(-1)!;
  const path = `/api/showtimes/${showtimeId}/queue`;
  edge.app.rooms.invalidate(String(showtimeId)); // the joins kept a snapshot from before the line formed
  const viaApp = await callJson((p, init) => edge.app.request(p, init), 'GET', path, {
    headers: { 'x-queue-token': last },
  });
  expect(viaApp.json.state).toBe('waiting');

  const before = await fastCount();
  const viaPort = await api('GET', path, { headers: { 'x-queue-token': last, 'x-request-id': 'fast-test-1' } });
  expect(await fastCount()).toBe(before + 1);
  expect(viaPort.status).toBe(200);
  expect(Object.keys(viaPort.json)).toEqual(Object.keys(viaApp.json));
  expect(viaPort.json).toMatchObject({ state: 'waiting', position: viaApp.json.position });
  expect(viaPort.headers.get('content-type')).toMatch(/^application\/json/);
  expect(viaPort.headers.get('cache-control')).toBe('no-store');
  expect(viaPort.headers.get('x-request-id')).toBe('fast-test-1');

  // Not for the fast path: the app answers each in full.
  expect((await api('GET', path)).status).toBe(401);
  expect(
    (await api('GET', `/api/showtimes/${showtimeId + 1}/queue`, { headers: { 'x-queue-token': last } })).status,
  ).toBe(403);
  expect((await api('GET', path, { headers: { cookie: `wr_q_${showtimeId}=${last}` } })).status).toBeLessThan(500);
  const unverified = `${last.slice(0, -4)}AAAA`;
  expect((await api('GET', path, { headers: { 'x-queue-token': unverified } })).status).toBe(401);
  const metrics = await metricsText();
  expect(metrics).toMatch(
    /edge_http_requests_total\{method="GET",route="\/api\/showtimes\/:id\/queue",status="200"\} \d+/,
  );
});

it('answers the first poll of a token another edge process signed on the fast path too, and a forged one in the app', async () => {
  const showtimeId = core.addShowtime();
  await edge.app.rooms.engine.configure(String(showtimeId), { ...fastRoom, capacity: 1 });
  let last = '';
  for (let i = 0; i < 3; i++) {
    const login = await api('POST', '/api/auth/demo', { body: { customerId: `elsewhere-${i}` } });
    last = (await api('POST', `/api/showtimes/${showtimeId}/queue`, { token: login.json.token })).json.queueToken;
  }
  const path = `/api/showtimes/${showtimeId}/queue`;
  edge.app.rooms.invalidate(String(showtimeId)); // the joins kept a snapshot from before the line formed
  expect((await api('GET', path, { headers: { 'x-queue-token': last } })).status).toBe(200); // the snapshot is loaded
  // The same claims signed a second later by another process with the same keys: a token this one never saw.
  const claims = JSON.parse(Buffer.from(last.split('.')[1]!, 'base64url').toString());
  const otherProcess = createQueueTokens(await testTokenKeys(), {
    ttlMs: 3_600_000,
    clockToleranceMs: 5_000,
    hmacSha256: nodeHmacSha256(),
    now: () => Date.now() + 1_000,
  });
  const elsewhere = await otherProcess.sign({
    customerId: claims.sub,
    showtimeId: String(showtimeId),
    ticket: claims.tkt,
  });
  expect(elsewhere).not.toBe(last);
  const before = await fastCount();
  const first = await api('GET', path, { headers: { 'x-queue-token': elsewhere } });
  expect(first.status).toBe(200);
  expect(first.json.state).toBe('waiting');
  expect(await fastCount()).toBe(before + 1);
  const forged = createQueueTokens(
    await loadTokenKeys({ signingJwk: await generateSigningJwk('edge-test-1') }) /* same kid, another key */,
    { ttlMs: 3_600_000, clockToleranceMs: 5_000, hmacSha256: nodeHmacSha256() },
  );
  const refused = await api('GET', path, {
    headers: {
      'x-queue-token': await forged.sign({
        customerId: claims.sub,
        showtimeId: String(showtimeId),
        ticket: claims.tkt,
      }),
    },
  });
  expect(refused.status).toBe(401);
  expect(await fastCount()).toBe(before + 1);
});

it('counts every poll once against the flood limit, whichever path answered it', async () => {
  const showtimeId = core.addShowtime();
  await edge.app.rooms.engine.configure(String(showtimeId), { ...fastRoom, capacity: 1 });
  await api('POST', `/api/showtimes/${showtimeId}/queue`, {
    token: (await api('POST', '/api/auth/demo', { body: { customerId: 'flood-a' } })).json.token,
  });
  const waiting = await api('POST', `/api/showtimes/${showtimeId}/queue`, {
    token: (await api('POST', '/api/auth/demo', { body: { customerId: 'flood-b' } })).json.token,
  });
  const headers = { 'x-queue-token': waiting.json.queueToken as string };
  // Earlier tests in this file polled from the same address: count what is left.
  const statuses: number[] = [];
  for (let i = 0; i < POLLS_ALLOWED + 5; i++)
    statuses.push((await api('GET', `/api/showtimes/${showtimeId}/queue`, { headers })).status);
  const allowed = statuses.filter((s) => s === 200).length;
  expect(allowed).toBeLessThanOrEqual(POLLS_ALLOWED);
  expect(statuses.slice(allowed).every((s) => s === 429)).toBe(true);
  const refused = await api('GET', `/api/showtimes/${showtimeId}/queue`, { headers });
  expect(refused.status).toBe(429);
  expect(refused.json.error.code).toBe('RATE_LIMITED');
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
});
