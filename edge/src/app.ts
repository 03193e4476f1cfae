/**
 * The edge as one Hono app. Everything that differs between Node and Workers (Redis client,
 * flood limiter, client address, logger, fetch) arrives in `deps`; nothing here imports a
 * runtime. Routes are tested in process with `app.request()` and inside workerd.
 */
import { Hono, type Context } from 'hono';
import type { VerifyAccessToken } from '../../lib/access-token';
import { createErrorHandler, jsonBodyLimit, notFoundHandler } from '../../lib/http';
import type { TokenKeyMaterial } from '../../lib/token-keys';
import type { BucketDecision, Refused, RoomEngine } from '../../queue/src/index';
import type { CoreClient } from './core-client';
import type { EdgeEnv } from './http-context';
import type { FloodLimiter } from './limits/flood-limiter';
import { createPurchaseLimiter, type PurchaseRules } from './limits/purchase-limiter';
import type { EdgeMetrics } from './metrics';
import { accessGate } from './middleware/access-gate';
import { bookingGate } from './middleware/booking-gate';
import { purchaseBuckets } from './middleware/purchase-buckets';
import { requestId } from './middleware/request-id';
import { openApiRoutes } from './openapi/openapi-routes';
import { traceLogFields } from '../../lib/trace-context';
import { requestMetrics } from './middleware/request-metrics';
import { createRoomCatalog, type RoomCatalog } from './rooms/room-catalog';
import { createRoomGateway, type RoomGateway } from './rooms/room-gateway';
import { buyerRoutes } from './pages/buyer-routes';
import { pageNotFound } from './pages/html';
import { consoleRoutes } from './pages/console-routes';
import { createShowtimeActivity, type ShowtimeActivity } from './pages/showtime-activity';
import { adminRoutes } from './routes/admin-routes';
import { fareAdminRoutes } from './routes/fare-admin-routes';
import { fareConsoleRoutes } from './pages/fare-console';
import { authRoutes } from './routes/auth-routes';
import { opsRoutes } from './routes/ops-routes';
import { purchaseRoutes } from './routes/purchase-routes';
import { queueRoutes } from './routes/queue-routes';
import type { EdgeStore } from './state/edge-store';
import type { GuardStore } from './state/guard-store';
import { adminAuth } from './middleware/admin-auth';
import { floodLimit } from './middleware/flood-limit';
import { customerReadLimit } from './middleware/customer-read-limit';
import { createMemoryFloodLimiter } from './limits/flood-limiter';
import { createLoginLockout } from './limits/login-lockout';
import { createConsoleSessions } from './pages/admin-session';
import { limitKeyOf, normalizeAddress } from './net/client-address';
import { createPowChallenges } from './pow/pow-challenge';
import { createPowGovernor } from './pow/pow-governor';
import { createPowGate, type PowGate } from './pow/pow-gate';
import type { CustomerTokens } from './tokens/customer-token';
import type { QueueTokens } from './tokens/queue-token';

export interface EdgeLogger {
  error(object: object, message?: string): void;
  warn(object: object, message?: string): void;
}

import { createReceiptSigner, DEV_FAIRNESS_RECEIPT_JWK, type ReceiptSigner } from '../../lib/fairness-receipt';
import { fairnessRoutes } from './routes/fairness-routes';
import { createFairnessReader } from './rooms/fairness-reader';

export interface EdgeDeps {
  engine: RoomEngine;
  takePurchaseTokens: (
    showtimeId: string,
    customerId: string,
    rules?: PurchaseRules,
  ) => Promise<BucketDecision | Refused>;
  edgeStore: EdgeStore;
  guardStore: GuardStore;
  demoLoginPerMinute: number;
  pow: { showtimeJoinsPerSecond: number; addressJoinsPerMinute: number; challengeTtlMs: number; secret: string };
  /** Wrong admin tokens per address (console and API together) before a ten-minute lockout. */
  adminLockoutAttempts: number;
  core: CoreClient;
  tokenKeys: TokenKeyMaterial;
  customerTokens: CustomerTokens;
  queueTokens: QueueTokens;
  /** Signs join receipts; its public keys are served at /api/fairness/keys. Default: the development key. */
  receipts?: ReceiptSigner;
  verifyAccessToken: VerifyAccessToken;
  floodLimiter: FloodLimiter;
  metrics: EdgeMetrics;
  adminToken: string;
  /** The client's address (net/client-address.ts); per-address limits count it by limitKeyOf. */
  clientAddress: (c: Context) => string | null;
  /** IPv6 clients are limited per network of this many bits (default 64). */
  ipv6LimitPrefix?: number;
  logger: EdgeLogger;
  snapshotTtlMs: number;
  seatMapTtlMs: number;
  maxBodyBytes: number;
  /** Hold and booking reads and cancels one customer may make per minute (per process). */
  customerReadsPerMinute?: number;
  /** How long the operator's room view waits for the core before answering from what it last said. */
  operatorViewCoreBudgetMs?: number;
  statsIntervalMs?: number;
  /** How long the sale page's leave beacon waits for a reload before giving the place up. */
  leaveGraceMs?: number;
  /** Brotli for pages and assets, where the runtime has it (Node). */
  brotli?: (body: Uint8Array) => Uint8Array;
  now?: () => number;
  random?: () => number;
}

/** The Hono app with the parts its entry points drive or inspect (the room gateway, the catalog, the console's activity counters). */
export type EdgeApp = Hono<EdgeEnv> & {
  rooms: RoomGateway;
  catalog: RoomCatalog;
  activity: ShowtimeActivity;
  pow: PowGate;
  receipts: ReceiptSigner;
};

export function createApp(deps: EdgeDeps): EdgeApp {
  const app = new Hono<EdgeEnv>();
  // One address per client, whichever spelling the socket or proxy used: the full one for the
  // audit log and the core, its limit key (an IPv6 client's /64) for every per-address limit.
  const fullAddress = (c: Context) => {
    const address = deps.clientAddress(c);
    return address === null ? null : normalizeAddress(address);
  };
  const ipv6LimitPrefix = deps.ipv6LimitPrefix ?? 64;
  const limitAddress = (c: Context) => {
    const address = deps.clientAddress(c);
    return address === null ? null : limitKeyOf(normalizeAddress(address), ipv6LimitPrefix);
  };
  const receipts = deps.receipts ?? createReceiptSigner(DEV_FAIRNESS_RECEIPT_JWK);
  const fairnessLogs = createFairnessReader(deps.core);
  const catalog = createRoomCatalog({ core: deps.core, engine: deps.engine, logger: deps.logger });
  const rooms = createRoomGateway({
    engine: deps.engine,
    catalog,
    tokenKeys: deps.tokenKeys,
    metrics: deps.metrics,
    snapshotTtlMs: deps.snapshotTtlMs,
    now: deps.now,
    random: deps.random,
  });
  const limiter = createPurchaseLimiter({
    take: deps.takePurchaseTokens,
    onFallback: (error) => {
      deps.metrics.limiterFallbacks.inc();
      deps.metrics.redisErrors.inc({ operation: 'purchase_bucket' });
      deps.logger.warn({ err: error }, 'purchase bucket: Redis failed, local fallback limiter decided');
    },
  });

  const lockout = createLoginLockout({ store: deps.guardStore, attempts: deps.adminLockoutAttempts });
  const sessions = createConsoleSessions({ store: deps.guardStore, adminToken: deps.adminToken });
  const operatorAuth = adminAuth({
    adminToken: deps.adminToken,
    sessions,
    lockout,
    clientAddress: limitAddress,
    sourceAddress: fullAddress,
  });
  const powGovernor = createPowGovernor({
    showtimeJoinsPerSecond: deps.pow.showtimeJoinsPerSecond,
    addressJoinsPerMinute: deps.pow.addressJoinsPerMinute,
  });
  const pow = createPowGate({
    challenges: createPowChallenges({ secret: deps.pow.secret, ttlMs: deps.pow.challengeTtlMs }),
    governor: powGovernor,
    guard: deps.guardStore,
    settingsOf: (showtimeId) => rooms.powSettingsOf(showtimeId),
    settingsNow: (showtimeId) => rooms.powSettingsNow(showtimeId),
    onRefused: (code) => deps.metrics.limiterRejections.inc({ limiter: code.toLowerCase() }), // pow_required, pow_invalid, …
  });

  app.use('*', requestId());
  app.use('*', requestMetrics({ metrics: deps.metrics }));
  // Skips requests that carry no body itself (lib/http.ts), so polls never pay for it.
  app.use('*', jsonBodyLimit(deps.maxBodyBytes));
  // Hold conflicts and 429s per showtime, for the operator console (after the error handler ran).
  const activity = createShowtimeActivity();
  app.use('/api/*', activity.recorder());
  app.onError(
    createErrorHandler((error, c) =>
      deps.logger.error(
        { err: error, requestId: c.get('requestId'), ...(c.get('trace') ? traceLogFields(c.get('trace')) : {}) },
        'unhandled error',
      ),
    ),
  );
  // A person who mistypes a page address gets a page; API clients (and /api paths) get JSON.
  app.notFound((c) =>
    !c.req.path.startsWith('/api/') && (c.req.header('accept') ?? '').includes('text/html')
      ? pageNotFound(c)
      : notFoundHandler(c),
  );

  app.route('/', openApiRoutes());
  app.route('/', opsRoutes({ edgeStore: deps.edgeStore, core: deps.core, metrics: deps.metrics, operatorAuth }));
  app.route(
    '/',
    authRoutes({
      customerTokens: deps.customerTokens,
      tokenKeys: deps.tokenKeys,
      guardStore: deps.guardStore,
      clientAddress: limitAddress,
      demoLoginPerMinute: deps.demoLoginPerMinute,
    }),
  );
  app.route(
    '/api/admin',
    adminRoutes({
      engine: deps.engine,
      rooms,
      catalog,
      core: deps.core,
      adminAuth: operatorAuth,
      ...(deps.statsIntervalMs ? { statsIntervalMs: deps.statsIntervalMs } : {}),
      ...(deps.operatorViewCoreBudgetMs ? { coreViewBudgetMs: deps.operatorViewCoreBudgetMs } : {}),
    }),
  );
  app.route('/api/admin', fareAdminRoutes({ core: deps.core, adminAuth: operatorAuth }));
  app.route(
    '/api',
    queueRoutes({
      rooms,
      customerTokens: deps.customerTokens,
      queueTokens: deps.queueTokens,
      receipts,
      floodLimiter: deps.floodLimiter,
      clientAddress: limitAddress,
      metrics: deps.metrics,
      pow,
    }),
  );
  app.route('/api', fairnessRoutes({ logs: fairnessLogs, receipts }));
  const turnGate = accessGate({ verifyAccessToken: deps.verifyAccessToken, customerTokens: deps.customerTokens });
  app.route(
    '/api',
    purchaseRoutes({
      core: deps.core,
      accessGate: turnGate,
      bookingGate: bookingGate({
        accessGate: turnGate,
        customerTokens: deps.customerTokens,
        tokenKeys: deps.tokenKeys,
        floodLimit: floodLimit({
          limiter: deps.floodLimiter,
          clientAddress: limitAddress,
          metrics: deps.metrics,
          name: 'bookings',
        }),
      }),
      purchaseBuckets: purchaseBuckets({ limiter, metrics: deps.metrics, requireAdmission: true }),
      customerReads: customerReadLimit({
        limiter: createMemoryFloodLimiter({
          points: deps.customerReadsPerMinute ?? 120,
          windowMs: 60_000,
          ...(deps.now ? { now: deps.now } : {}),
        }),
        metrics: deps.metrics,
      }),
      clientAddress: fullAddress,
      metrics: deps.metrics,
      seatMapTtlMs: deps.seatMapTtlMs,
    }),
  );
  // Pages for people (buyers and operators); API clients never need them.
  app.route(
    '/',
    buyerRoutes({
      core: deps.core,
      rooms,
      customerTokens: deps.customerTokens,
      logger: deps.logger,
      leaveFloodLimit: floodLimit({
        limiter: deps.floodLimiter,
        clientAddress: limitAddress,
        metrics: deps.metrics,
        name: 'join',
      }),
      leaveGraceMs: deps.leaveGraceMs,
      brotli: deps.brotli,
      receipts,
      fairnessLogs,
    }),
  );
  app.route(
    '/',
    consoleRoutes({
      engine: deps.engine,
      core: deps.core,
      tokenKeys: deps.tokenKeys,
      adminToken: deps.adminToken,
      sessions,
      lockout,
      pow: { gate: pow, governor: powGovernor },
      activity,
      clientAddress: limitAddress,
      sourceAddress: fullAddress,
      ...(deps.statsIntervalMs ? { statsIntervalMs: deps.statsIntervalMs } : {}),
      ...(deps.operatorViewCoreBudgetMs ? { coreViewBudgetMs: deps.operatorViewCoreBudgetMs } : {}),
    }),
  );
  app.route('/', fareConsoleRoutes({ core: deps.core, sessions }));
  return Object.assign(app, { rooms, catalog, activity, pow, receipts });
}
