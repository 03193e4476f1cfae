/**
 * One REDIS_KEY_PREFIX holds for every process. The real entry points run as child processes
 * with a prefix set: `npm start`'s (scripts/start.ts, with DATABASE_URL and REDIS_URL), and the
 * separate services as docker-compose runs them (`npm run migrate`, `npm run seed`, then the
 * core, the edge, the payment sandbox and the queue ticker, each with the environment the
 * compose file gives it), on free ports and a database of their own. A buyer goes through the
 * edge over HTTP in a room of capacity 1 (demo login, join, admitted, seat map, hold, checkout,
 * pay at the sandbox, its webhook to the core); the booking event must free the slot, so the
 * second buyer is admitted within a few seconds of the booking, not when the turn runs out.
 * On the separate services' private redis-server, no process may have written a key outside
 * the prefix.
 * Broken variant: the core started without the prefix (the old core/src/main.ts built its
 * stream sink that way) publishes where nobody reads, and the second buyer waits past the bound.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { answers200, REPO_ROOT, serviceProcess, type ServiceProcess } from '../../chaos/processes';
import { generateSigningJwk } from '../../lib/token-keys';
import { freePort, startPrivateRedis } from '../../queue/test/redis-servers';
import { isolatedDatabase, testRedisNamespace, testRedisUrl } from '../support/env';
import { callJson, eventually, fetchFrom, type JsonCallInit } from '../support/json-call';

const run = promisify(execFile);
const ADMIN = 'prefix-admin-token-0123456789';
const SERVICE = 'prefix-service-token-0123456789';
const WEBHOOK_SECRET = 'whsec_prefix_test_0123456789';
const API_KEY = 'sk_test_sandbox';
/** The booking event's way to the edge takes a relay pass and a consumer poll (200 ms each): seconds at most. */
const SECOND_BUYER_BOUND_MS = 5_000;
/** Long enough that a slot freed by the turn running out cannot pass for one freed by the booking. */
const TURN_SECONDS = 120;

interface Stack {
  edgeUrl: string;
  paymentsUrl: string;
  /** Separate services only (a private redis-server): every key any process wrote that lacks the prefix. */
  unprefixedKeys?: () => Promise<string[]>;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

function logDirectory() {
  const dir = mkdtempSync(join(tmpdir(), 'wr-prefix-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function startServices(services: ServiceProcess[]) {
  for (const service of services) {
    cleanups.push(() => service.stop());
    await service.start();
  }
}

const baseEnv = async () => ({
  NODE_ENV: 'development',
  LOG_LEVEL: 'warn',
  ADMIN_TOKEN: ADMIN,
  PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
  TOKEN_SIGNING_KEY: JSON.stringify(await generateSigningJwk('prefix-1')),
  DEMO_LOGIN: '1',
});

/**
 * `npm start`'s entry on a database of its own and the run's Redis under a fresh prefix; or,
 * `inProcess`, with neither (embedded PGlite, the in-process room store and event stream).
 */
async function startEmbedded(options: { inProcess?: boolean } = {}): Promise<Stack> {
  let servers = {};
  if (!options.inProcess) {
    const database = await isolatedDatabase('prefix_start');
    cleanups.push(() => database.drop());
    servers = { DATABASE_URL: database.url, REDIS_URL: testRedisUrl(), REDIS_KEY_PREFIX: testRedisNamespace('start') };
  }
  const [edgePort, corePort, paymentPort] = [await freePort(), await freePort(), await freePort()];
  const edgeUrl = `http://127.0.0.1:${edgePort}`;
  const stack = serviceProcess({
    name: 'start',
    entry: 'scripts/start.ts',
    logDir: logDirectory(),
    env: {
      ...(await baseEnv()),
      ...servers,
      EDGE_PORT: String(edgePort),
      CORE_PORT: String(corePort),
      PAYMENT_PORT: String(paymentPort),
    },
    ready: () => answers200(`${edgeUrl}/healthz`),
    startTimeoutMs: 90_000,
  });
  await startServices([stack]);
  return { edgeUrl, paymentsUrl: `http://127.0.0.1:${paymentPort}` };
}

/**
 * The separate services with docker-compose's environment, on a private redis-server (the
 * broken variant writes unprefixed keys, which must not land in the shared Redis).
 */
async function startSeparate(options: { coreWithoutPrefix?: boolean } = {}): Promise<Stack> {
  const database = await isolatedDatabase('prefix_compose');
  cleanups.push(() => database.drop());
  const redis = await startPrivateRedis();
  cleanups.push(() => redis.stop());
  const [edgePort, corePort, paymentPort] = [await freePort(), await freePort(), await freePort()];
  const [edgeUrl, coreUrl, paymentsUrl] = [edgePort, corePort, paymentPort].map(
    (port) => `http://127.0.0.1:${port}`,
  ) as [string, string, string];
  const prefix = 'flash:';
  const nodeEnv = {
    ...(await baseEnv()),
    DATABASE_URL: database.url,
    REDIS_URL: `redis://127.0.0.1:${redis.ports[0]}`,
    REDIS_KEY_PREFIX: prefix,
    CORE_URL: coreUrl,
    PAYMENT_URL: paymentsUrl,
    CORE_SERVICE_TOKEN: SERVICE,
    HOST: '127.0.0.1',
    PAYMENT_HOST: '127.0.0.1',
  };
  const cli = { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...nodeEnv } };
  await run(process.execPath, ['--import', 'tsx', 'core/src/db/migrate-cli.ts'], cli);
  await run(process.execPath, ['--import', 'tsx', 'core/src/demo/seed-cli.ts'], cli);
  const { REDIS_KEY_PREFIX: _dropped, ...coreEnvWithoutPrefix } = nodeEnv;
  const logDir = logDirectory();
  const core = serviceProcess({
    name: 'core',
    entry: 'core/src/main.ts',
    logDir,
    env: {
      ...(options.coreWithoutPrefix ? coreEnvWithoutPrefix : nodeEnv),
      CORE_PORT: String(corePort),
      PUBLIC_URL: edgeUrl,
    },
    ready: () => answers200(`${coreUrl}/readyz`),
  });
  const payment = serviceProcess({
    name: 'payment',
    entry: 'payment-sandbox/src/node.ts',
    logDir,
    env: { ...nodeEnv, PAYMENT_PORT: String(paymentPort), PAYMENT_PUBLIC_URL: paymentsUrl },
    ready: () => answers200(`${paymentsUrl}/healthz`),
  });
  const edge = serviceProcess({
    name: 'edge',
    entry: 'edge/src/main.ts',
    logDir,
    env: { ...nodeEnv, EDGE_PORT: String(edgePort) },
    ready: () => answers200(`${edgeUrl}/healthz`),
  });
  let tickerStarted = false;
  const ticker = serviceProcess({
    name: 'ticker',
    entry: 'queue/src/ticker.ts',
    logDir,
    env: nodeEnv,
    // No port: alive a moment after spawning is all there is to wait for.
    ready: async () =>
      tickerStarted || ((tickerStarted = true), await new Promise((resolve) => setTimeout(resolve, 500)), true),
  });
  await startServices([core, payment, edge, ticker]);
  const unprefixedKeys = async () => {
    const client = new Redis(`redis://127.0.0.1:${redis.ports[0]}`, { maxRetriesPerRequest: 1 });
    try {
      return (await client.keys('*')).filter((key) => !key.startsWith(prefix));
    } finally {
      client.disconnect();
    }
  };
  return { edgeUrl, paymentsUrl, unprefixedKeys };
}

/**
 * The journey; returns how long after the first buyer's booking was confirmed the second was
 * admitted, or null when that did not happen within the bound.
 */
async function twoBuyers(stack: Stack): Promise<number | null> {
  const api = (method: string, path: string, init?: JsonCallInit) =>
    callJson(fetchFrom(stack.edgeUrl), method, path, init);
  const showtimes = await api('GET', '/api/showtimes');
  expect(showtimes.status).toBe(200);
  const showtimeId = showtimes.json[0].id as number;
  const room = await api('PUT', `/api/admin/showtimes/${showtimeId}/room`, {
    headers: { authorization: `Bearer ${ADMIN}` },
    body: { capacity: 1, admitPerMinute: 600, sessionTtlSeconds: TURN_SECONDS, state: 'open' },
  });
  expect(room.status, room.text).toBe(200);

  const first = (await api('POST', '/api/auth/demo', { body: { customerId: 'prefix-first' } })).json.token as string;
  const second = (await api('POST', '/api/auth/demo', { body: { customerId: 'prefix-second' } })).json.token as string;
  const admitted = await eventually(
    () => api('POST', `/api/showtimes/${showtimeId}/queue`, { token: first }),
    (r) => r.json?.state === 'admitted',
  );
  expect(admitted.json?.state, admitted.text).toBe('admitted');
  const waiting = await api('POST', `/api/showtimes/${showtimeId}/queue`, { token: second });
  expect(waiting.json.state).toBe('waiting');
  const access = admitted.json.accessToken as string;

  const map = await api('GET', `/api/showtimes/${showtimeId}/seats`, { token: access });
  expect(map.status).toBe(200);
  const seat = (map.json.seats as { code: string; status: string }[]).find((s) => s.status === 'AVAILABLE')!.code;
  const hold = await api('POST', `/api/showtimes/${showtimeId}/holds`, { token: access, body: { seats: [seat] } });
  expect(hold.status, hold.text).toBe(201);
  const checkout = await api('POST', `/api/holds/${hold.json.holdId}/checkout`, {
    token: access,
    headers: { 'idempotency-key': 'prefix-1' },
  });
  expect(checkout.status, checkout.text).toBe(201);
  const paid = await callJson(fetchFrom(stack.paymentsUrl), 'POST', `/v1/payments/${checkout.json.paymentId}/approve`, {
    headers: { authorization: `Bearer ${API_KEY}` },
  });
  expect(paid.status, paid.text).toBe(200);
  // The sandbox's webhook reaches the core, which books the seat.
  const confirmed = await eventually(
    () => api('GET', `/api/holds/${hold.json.holdId}`, { token: access }),
    (r) => r.json?.status === 'CONFIRMED',
  );
  expect(confirmed.json.status).toBe('CONFIRMED');
  const bookedAt = Date.now();

  const next = await eventually(
    () => api('GET', `/api/showtimes/${showtimeId}/queue`, { headers: { 'x-queue-token': waiting.json.queueToken } }),
    (r) => r.json?.state === 'admitted',
    SECOND_BUYER_BOUND_MS,
  );
  return next.json?.state === 'admitted' ? Date.now() - bookedAt : null;
}

/** Starting processes (tsx, PGlite when embedded) on a shared 2-core machine takes its time. */
const START_AND_JOURNEY_MS = 150_000;

describe('one REDIS_KEY_PREFIX for every process', () => {
  it(
    'npm start (scripts/start.ts) with DATABASE_URL, REDIS_URL and a prefix: the booking admits the next buyer at once',
    async () => {
      const waitedMs = await twoBuyers(await startEmbedded());
      expect(waitedMs).not.toBeNull();
      expect(waitedMs!).toBeLessThanOrEqual(SECOND_BUYER_BOUND_MS);
    },
    START_AND_JOURNEY_MS,
  );

  it(
    'npm start with nothing set (in-process store and events): the booking admits the next buyer at once',
    async () => {
      const waitedMs = await twoBuyers(await startEmbedded({ inProcess: true }));
      expect(waitedMs).not.toBeNull();
      expect(waitedMs!).toBeLessThanOrEqual(SECOND_BUYER_BOUND_MS);
    },
    START_AND_JOURNEY_MS,
  );

  it(
    'the separate services as docker-compose runs them, with a prefix: the booking admits the next buyer at once',
    async () => {
      const stack = await startSeparate();
      const waitedMs = await twoBuyers(stack);
      expect(waitedMs).not.toBeNull();
      expect(waitedMs!).toBeLessThanOrEqual(SECOND_BUYER_BOUND_MS);
      expect(await stack.unprefixedKeys!()).toEqual([]); // no process wrote outside the namespace
    },
    START_AND_JOURNEY_MS,
  );

  it(
    'broken variant: the core without the prefix publishes where nobody reads; the next buyer waits past the bound',
    async () => {
      const stack = await startSeparate({ coreWithoutPrefix: true });
      expect(await twoBuyers(stack)).toBeNull();
      expect(await stack.unprefixedKeys!()).toContain('booking-events');
    },
    START_AND_JOURNEY_MS,
  );
});
