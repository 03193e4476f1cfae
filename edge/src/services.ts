/**
 * Assembles the edge from the config and the few runtime-specific pieces each entry point
 * provides (store adapters, flood limiter, client address, logger). `buildEdge` is shared by
 * node.ts, worker.ts and the tests, so all three build the same app and event consumer.
 */
import type { Context } from 'hono';
import type { TokenKeyMaterial } from '../../lib/token-keys';
import { createPurchaseBuckets, createRoomEngine, type ScriptStore } from '../../queue/src/index';
import { createApp, type EdgeApp, type EdgeDeps, type EdgeLogger } from './app';
import type { EdgeConfig } from './config';
import { createCoreClient } from './core-client';
import type { FloodLimiter } from './limits/flood-limiter';
import { createEdgeMetrics, type EdgeMetrics } from './metrics';
import { createBookingEventsConsumer, type ConsumerLogger } from './rooms/booking-events-consumer';
import type { EdgeStore } from './state/edge-store';
import type { GuardStore } from './state/guard-store';
import { createCustomerTokens } from './tokens/customer-token';
import { createQueueTokens } from './tokens/queue-token';
import { createEdgeAccessVerifier } from './tokens/access-token-check';
import type { JWTVerifyGetKey } from 'jose';
import { createReceiptSigner, DEV_FAIRNESS_RECEIPT_JWK } from '../../lib/fairness-receipt';

export interface EdgeRuntime {
  scriptStore: ScriptStore;
  edgeStore: EdgeStore;
  /** Counters, one-time marks and console sessions shared by every edge process. */
  guardStore: GuardStore;
  floodLimiter: FloodLimiter;
  tokenKeys: TokenKeyMaterial;
  clientAddress: (c: Context) => string | null;
  logger: EdgeLogger;
  fetch?: typeof fetch;
  metrics?: EdgeMetrics;
  /** Tests: a local key set standing in for the identity provider's JWKS. */
  idpKeys?: JWTVerifyGetKey;
  now?: () => number;
  /** Node: queue tokens signed with node:crypto's synchronous HMAC (tokens/queue-token-node.ts). */
  queueTokenHmac?: (key: Uint8Array, input: string) => string;
  /** Brotli for pages and assets (Node's zlib); absent: gzip only. */
  brotli?: (body: Uint8Array) => Uint8Array;
}

export type EdgeServiceConfig = Pick<
  EdgeConfig,
  | 'coreUrl'
  | 'ipv6LimitPrefix'
  | 'keyPrefix'
  | 'adminToken'
  | 'customerIdp'
  | 'demoLogin'
  | 'clockToleranceMs'
  | 'queueTokenTtlMs'
  | 'snapshotTtlMs'
  | 'seatMapTtlMs'
  | 'coreTimeoutMs'
  | 'coreCallsInFlight'
  | 'coreQueueWaitMs'
  | 'coreCallsPerCustomer'
  | 'customerReadsPerMinute'
  | 'operatorViewCoreBudgetMs'
  | 'maxBodyBytes'
  | 'demoLoginPerMinute'
  | 'pow'
  | 'adminLockoutAttempts'
> &
  Partial<Pick<EdgeConfig, 'coreServiceToken' | 'fairnessReceiptJwk'>>;

export function buildEdgeDeps(config: EdgeServiceConfig, runtime: EdgeRuntime): EdgeDeps {
  const metrics = runtime.metrics ?? createEdgeMetrics();
  const engine = createRoomEngine({ store: runtime.scriptStore, keyPrefix: config.keyPrefix });
  const buckets = createPurchaseBuckets({ store: runtime.scriptStore, keyPrefix: config.keyPrefix });
  const now = runtime.now ?? Date.now;
  return {
    engine,
    takePurchaseTokens: (showtimeId, customerId, rules) => buckets.takePurchaseTokens(showtimeId, customerId, 1, rules),
    edgeStore: runtime.edgeStore,
    guardStore: runtime.guardStore,
    demoLoginPerMinute: config.demoLoginPerMinute,
    pow: config.pow,
    adminLockoutAttempts: config.adminLockoutAttempts,
    core: createCoreClient({
      baseUrl: config.coreUrl,
      timeoutMs: config.coreTimeoutMs,
      fetch: runtime.fetch,
      onFailure: () => metrics.coreErrors.inc(),
      maxInFlight: config.coreCallsInFlight,
      maxWaitMs: config.coreQueueWaitMs,
      perCallerInFlight: config.coreCallsPerCustomer,
      onShed: (reason) => metrics.shedRequests.inc({ reason }),
      serviceToken: config.coreServiceToken ?? null,
      adminToken: config.adminToken,
    }),
    tokenKeys: runtime.tokenKeys,
    customerTokens: createCustomerTokens({
      keys: runtime.tokenKeys,
      demoLogin: config.demoLogin,
      idp: config.customerIdp,
      clockToleranceMs: config.clockToleranceMs,
      now,
      idpKeys: runtime.idpKeys,
    }),
    queueTokens: createQueueTokens(runtime.tokenKeys, {
      ttlMs: config.queueTokenTtlMs,
      clockToleranceMs: config.clockToleranceMs,
      now,
      ...(runtime.queueTokenHmac ? { hmacSha256: runtime.queueTokenHmac } : {}),
    }),
    verifyAccessToken: createEdgeAccessVerifier(runtime.tokenKeys, {
      clockToleranceSeconds: Math.round(config.clockToleranceMs / 1000),
      now,
    }),
    receipts: createReceiptSigner(config.fairnessReceiptJwk ?? DEV_FAIRNESS_RECEIPT_JWK),
    floodLimiter: runtime.floodLimiter,
    metrics,
    adminToken: config.adminToken,
    clientAddress: runtime.clientAddress,
    ...(config.ipv6LimitPrefix ? { ipv6LimitPrefix: config.ipv6LimitPrefix } : {}),
    logger: runtime.logger,
    snapshotTtlMs: config.snapshotTtlMs,
    seatMapTtlMs: config.seatMapTtlMs,
    maxBodyBytes: config.maxBodyBytes,
    customerReadsPerMinute: config.customerReadsPerMinute,
    operatorViewCoreBudgetMs: config.operatorViewCoreBudgetMs,
    ...(runtime.brotli ? { brotli: runtime.brotli } : {}),
    now,
  };
}

export interface BuildEdgeOptions {
  /** Consumers with the same name share a cursor (booking-events-consumer.ts). */
  consumerName?: string;
  /** Where the consumer reports failed reads; none: the entry point reports them itself. */
  consumerLogger?: ConsumerLogger;
  statsIntervalMs?: number;
}

/**
 * The whole edge for one entry point: the app (with its room gateway and catalog), the deps
 * it was built from, and the booking-events consumer that keeps the rooms in step with the
 * core. Starting and stopping the consumer is the entry point's business (a timer on Node,
 * a pump per request on Workers).
 */
export function buildEdge(config: EdgeServiceConfig, runtime: EdgeRuntime, options: BuildEdgeOptions = {}) {
  const deps = buildEdgeDeps(config, runtime);
  const app: EdgeApp = createApp(
    options.statsIntervalMs ? { ...deps, statsIntervalMs: options.statsIntervalMs } : deps,
  );
  const consumer = createBookingEventsConsumer({
    edgeStore: runtime.edgeStore,
    engine: deps.engine,
    metrics: deps.metrics,
    onRoomChanged: (showtimeId) => app.rooms.invalidate(showtimeId),
    consumerName: options.consumerName,
    logger: options.consumerLogger,
  });
  return {
    app,
    deps,
    consumer,
    rooms: app.rooms,
    catalog: app.catalog,
    queueTokens: deps.queueTokens,
    metrics: deps.metrics,
  };
}
