/**
 * The edge app in process (`app.request()`), wired to the run's real Redis (its own key
 * namespace) or the in-process store, and to a core: the real core app in process against
 * the run's database (requests go through `fetch` → `coreApp.request`), or a stub.
 *
 * With `store: 'memory'` nothing here needs a server or the integration project's setup (no
 * Redis namespace is asked for), so route tests beside the code (under edge/src/, in
 * the unit project) use it too.
 */
import { randomBytes } from 'node:crypto';
import { callJson, type JsonCallInit, type JsonResult } from '../../test/support/json-call';
import { fastRoom as queueFastRoom } from '../../queue/test/helpers';
import { Redis } from 'ioredis';
import { testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { generateSigningJwk, loadTokenKeys, type TokenKeyMaterial } from '../../lib/token-keys';
import { createIoredisStore, type RoomSettingsPatch } from '../../queue/src/index';
import { createMemoryStore } from '../../queue/src/memory-store';
import { parseEdgeConfig } from '../src/config';
import { createMemoryFloodLimiter, type FloodLimiter } from '../src/limits/flood-limiter';
import { createEdgeMetrics } from '../src/metrics';
import { buildEdge } from '../src/services';
import { createCustomerTokens } from '../src/tokens/customer-token';
import { createRedisEdgeStore, type EdgeStore } from '../src/state/edge-store';
import { createMemoryEdgeStore } from '../src/state/memory-edge-store';
import { createMemoryGuardStore, createRedisGuardStore, type GuardStore } from '../src/state/guard-store';
import { createStubCore, type StubCore } from './stub-core';

let keysPromise: Promise<TokenKeyMaterial> | null = null;
/** One key pair per test process, shared by the edge and the stub core (as in production). */
export const testTokenKeys = () =>
  (keysPromise ??= generateSigningJwk('edge-test-1').then((jwk) => loadTokenKeys({ signingJwk: jwk })));

export const EDGE_ADMIN_TOKEN = 'edge-test-admin-token-0123456789';

/**
 * A customer token for a chosen id, signed with the test keys as the demo login would sign
 * it. Demo login picks ids itself, so a test that must know who is who signs its own.
 */
export async function signCustomerToken(customerId: string): Promise<string> {
  return createCustomerTokens({
    keys: await testTokenKeys(),
    demoLogin: true,
    idp: null,
    clockToleranceMs: 5_000,
  }).signDemo(customerId);
}
const CORE_BASE = 'http://core.test';

export interface EdgeHarnessOptions {
  store?: 'redis' | 'memory';
  /** Replaces the stub core's fetch (a failing core, a counting wrapper). */
  coreFetch?: (stub: StubCore) => typeof fetch;
  floodLimiter?: FloodLimiter;
  env?: Record<string, string>;
}

export type ApiResult = JsonResult;

export async function createEdgeHarness(options: EdgeHarnessOptions = {}) {
  const memory = options.store === 'memory';
  // The in-process stores share nothing: any prefix will do, and none is asked of the run.
  const keyPrefix = memory ? `memory:${randomBytes(4).toString('hex')}:` : testRedisNamespace('edge');
  const config = parseEdgeConfig({
    CORE_URL: CORE_BASE,
    ADMIN_TOKEN: EDGE_ADMIN_TOKEN,
    REDIS_KEY_PREFIX: keyPrefix,
    SNAPSHOT_TTL_MS: '1000',
    LOG_LEVEL: 'silent',
    // Tests mint many identities from one address; the limit itself has its own test.
    DEMO_LOGIN_PER_MINUTE: '1000000',
    ...options.env,
  });
  const tokenKeys = await testTokenKeys();
  const redis = memory ? null : new Redis(testRedisUrl());
  const core = createStubCore(tokenKeys);
  const coreFetch: typeof fetch = options.coreFetch ? options.coreFetch(core) : core.fetch;
  const edgeStore: EdgeStore = redis
    ? createRedisEdgeStore((args) => redis.call(args[0]!, ...args.slice(1)), keyPrefix)
    : createMemoryEdgeStore();
  const guardStore: GuardStore = redis
    ? createRedisGuardStore((args) => redis.call(args[0]!, ...args.slice(1)), keyPrefix)
    : createMemoryGuardStore();
  const metrics = createEdgeMetrics();
  const { app, deps, consumer } = buildEdge(
    config,
    {
      scriptStore: redis ? createIoredisStore(redis) : createMemoryStore(),
      edgeStore,
      guardStore,
      floodLimiter: options.floodLimiter ?? createMemoryFloodLimiter({ points: 1_000_000, windowMs: 1_000 }),
      tokenKeys,
      metrics,
      clientAddress: (c) => c.req.header('x-test-client') ?? '127.0.0.1',
      logger: { error: (o) => console.error('edge error', o), warn: () => {} },
      fetch: coreFetch,
    },
    { consumerName: 'test', statsIntervalMs: 50 },
  );

  const call = (method: string, path: string, init: JsonCallInit = {}): Promise<ApiResult> =>
    callJson((p, requestInit) => app.request(p, requestInit), method, path, init);

  /**
   * A customer token: for a chosen id minted directly (demo login picks ids itself, so a
   * test that needs to know who is who signs its own), else through POST /api/auth/demo.
   */
  async function login(customerId?: string): Promise<{ token: string; customerId: string }> {
    if (customerId) return { token: await deps.customerTokens.signDemo(customerId), customerId };
    const result = await call('POST', '/api/auth/demo', { body: {} });
    if (result.status !== 200) throw new Error(`demo login failed: ${result.status} ${result.text}`);
    return result.json;
  }

  async function configureRoom(showtimeId: number | string, patch: RoomSettingsPatch) {
    const result = await deps.engine.configure(String(showtimeId), patch);
    if (!result.ok) throw new Error(`configure failed: ${result.code}`);
    app.rooms.invalidate(String(showtimeId)); // as the operator API does
  }

  return {
    app,
    deps,
    config,
    core,
    redis,
    keyPrefix,
    edgeStore,
    metrics,
    consumer,
    call,
    login,
    configureRoom,
    join: (showtimeId: number | string, token: string) => call('POST', `/api/showtimes/${showtimeId}/queue`, { token }),
    poll: (showtimeId: number | string, queueToken: string, headers: Record<string, string> = {}) =>
      call('GET', `/api/showtimes/${showtimeId}/queue`, { headers: { 'x-queue-token': queueToken, ...headers } }),
    async close() {
      redis?.disconnect();
    },
  };
}

export type EdgeHarness = Awaited<ReturnType<typeof createEdgeHarness>>;

/** Room settings that move in milliseconds (the queue tests' own), with two slots. */
export const fastRoom: RoomSettingsPatch = { ...queueFastRoom, capacity: 2, placesPerAddress: 100_000 };
