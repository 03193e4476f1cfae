/**
 * Assembles EdgeDeps from the config and the few runtime-specific pieces each entry point
 * provides (store adapters, flood limiter, client address, logger). Shared by node.ts,
 * worker.ts and the tests, so all three build the same app.
 */
import type { Context } from 'hono';
import type { TokenKeyMaterial } from '../../lib/token-keys';
import { createPurchaseBuckets, createRoomEngine, type ScriptStore } from '../../queue/src/index';
import type { EdgeDeps, EdgeLogger } from './app';
import type { EdgeConfig } from './config';
import { createCoreClient } from './core-client';
import type { FloodLimiter } from './limits/flood-limiter';
import { createEdgeMetrics, type EdgeMetrics } from './metrics';
import type { EdgeStore } from './state/edge-store';
import type { GuardStore } from './state/guard-store';
import { createCustomerTokens } from './tokens/customer-token';
import { createQueueTokens } from './tokens/queue-token';
import { createEdgeAccessVerifier } from './tokens/access-token-check';
import type { JWTVerifyGetKey } from 'jose';

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
}

export type EdgeServiceConfig = Pick<
  EdgeConfig,
  | 'coreUrl'
  | 'keyPrefix'
  | 'adminToken'
  | 'customerIdp'
  | 'demoLogin'
  | 'clockToleranceMs'
  | 'queueTokenTtlMs'
  | 'snapshotTtlMs'
  | 'seatMapTtlMs'
  | 'coreTimeoutMs'
  | 'maxBodyBytes'
  | 'demoLoginPerMinute'
  | 'pow'
  | 'adminLockoutAttempts'
> &
  Partial<Pick<EdgeConfig, 'coreServiceToken'>>;

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
      ...(runtime.fetch ? { fetch: runtime.fetch } : {}),
      onFailure: () => metrics.coreErrors.inc(),
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
      ...(runtime.idpKeys ? { idpKeys: runtime.idpKeys } : {}),
    }),
    queueTokens: createQueueTokens(runtime.tokenKeys, { ttlMs: config.queueTokenTtlMs, clockToleranceMs: config.clockToleranceMs, now }),
    verifyAccessToken: createEdgeAccessVerifier(runtime.tokenKeys, { clockToleranceSeconds: Math.round(config.clockToleranceMs / 1000), now }),
    floodLimiter: runtime.floodLimiter,
    metrics,
    adminToken: config.adminToken,
    clientAddress: runtime.clientAddress,
    logger: runtime.logger,
    snapshotTtlMs: config.snapshotTtlMs,
    seatMapTtlMs: config.seatMapTtlMs,
    maxBodyBytes: config.maxBodyBytes,
    now,
  };
}
