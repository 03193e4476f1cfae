import { Hono } from 'hono';
import type { Sql } from 'postgres';
import type { Logger } from 'pino';
import type { VerifyAccessToken } from '../../lib/access-token';
import type { VerifyCustomerAccess } from '../../lib/customer-access-token';
import { createErrorHandler, jsonBodyLimit, notFoundHandler } from '../../lib/http';
import { adminCatalogRoutes, publicCatalogRoutes } from './catalog/catalog-routes';
import { requestContext, type RequestContextVariables } from './http/request-context';
import type { CoreMetrics } from './metrics';
import { createHoldService } from './seats/hold-service';
import { seatRoutes } from './seats/seat-routes';
import { adminBookingRoutes, bookingRoutes } from './bookings/booking-routes';
import { checkoutRoutes } from './checkout/checkout-routes';
import { createCheckoutService } from './checkout/checkout-service';
import type { PaymentGateway } from './payments/gateway-client';
import { paymentCallbackRoutes } from './payments/callback-routes';
import type { AdmissionCheck } from './http/admission';
import { requireServiceToken } from './http/service-token';
import { createSaleControlService } from './sale/sale-control';
import { saleControlRoutes } from './sale/sale-routes';
import { toHttpError } from './db/sql-errors';
import { createFareService } from './fares/fare-service';
import { fareAdminRoutes } from './fares/fare-routes';
import { admissionHealthRoutes } from './admission/admission-health-routes';
import { createSeatClassService } from './fares/seat-classes';
import { coreOpenApiJson } from './openapi/core-api-description';
import type { SeatGate } from './gate/seat-gate';
import type { FairnessJournal } from '../../queue/src/fairness-journal';
import { createFairnessService } from './fairness/fairness-service';
import { fairnessRoutes } from './fairness/fairness-routes';

const READY_TIMEOUT_MS = 2_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface CoreDeps {
  sql: Sql;
  logger: Logger;
  metrics: CoreMetrics;
  verifyAccessToken: VerifyAccessToken;
  /** Customer access tokens the edge signs for a buyer's own bookings outside a turn (lib/customer-access-token.ts); none: those routes answer 401. */
  verifyCustomerAccess?: VerifyCustomerAccess | null;
  adminToken: string;
  gateway: PaymentGateway;
  /** HMAC secrets accepted on payment webhooks (several during a rotation). */
  webhookSecrets: string[];
  /** Base URL of the buyer-facing site (the edge): where the pay page sends buyers back. */
  publicBaseUrl: string;
  /** The waiting room's own check of each purchase (turn live, token buckets); none when embedded without a store. */
  admission?: AdmissionCheck | null;
  /** When set, every route but health, metrics and the payment callback needs it in X-Service-Token (the edge sends it). */
  serviceToken?: string | null;
  /** The Redis seat gate ahead of hold_seats (gate/seat-gate.ts); none: the database alone. */
  seatGate?: SeatGate | null;
  /** This process's instance number on the checkout claims it takes (checkout/claim-owner.ts); none: claims wait out their lease. */
  claimOwner?: number | null;
  /** Largest accepted request body; holds are tiny, hall layouts are the biggest bodies. */
  maxBodyBytes?: number;
  /** The rooms' fairness journals, copied into the admission log before it is published; none: the log as copied. */
  fairnessJournal?: FairnessJournal | null;
}

/** The core seat service as a Hono app; runtime pieces (database, keys, logger) come in. */
export function createCoreApp(deps: CoreDeps) {
  const app = new Hono<{ Variables: RequestContextVariables }>();
  const holds = createHoldService({ sql: deps.sql, metrics: deps.metrics, gate: deps.seatGate ?? null });
  const sale = createSaleControlService({ sql: deps.sql });
  const checkout = createCheckoutService({
    sql: deps.sql,
    holds,
    gateway: deps.gateway,
    config: { publicBaseUrl: deps.publicBaseUrl },
    claimOwner: deps.claimOwner ?? null,
  });

  app.use('*', requestContext({ logger: deps.logger, metrics: deps.metrics }));
  app.use('*', jsonBodyLimit(deps.maxBodyBytes ?? 256 * 1024));
  // One place for every route: a database outage, lock timeout or serialization failure
  // becomes 503 with Retry-After here (toHttpError), never a 500.
  app.onError(
    createErrorHandler(
      (error, c) => c.get('log').error({ err: error, requestId: c.get('requestId') }, 'unhandled error'),
      toHttpError,
    ),
  );
  app.notFound(notFoundHandler);

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    try {
      // Bounded: while the server restarts a connect can hang, and a probe must answer.
      await withTimeout(deps.sql`SELECT 1`.execute(), READY_TIMEOUT_MS);
      return c.json({ status: 'ready', database: 'ok' });
    } catch {
      c.header('Retry-After', '5');
      return c.json({ status: 'not_ready', database: 'unreachable' }, 503);
    }
  });
  app.get('/metrics', async (c) => {
    c.header('Content-Type', deps.metrics.registry.contentType);
    return c.body(await deps.metrics.registry.metrics());
  });

  app.get('/openapi.json', (c) => c.body(coreOpenApiJson(), 200, { 'Content-Type': 'application/json' }));

  if (deps.serviceToken) app.use('*', requireServiceToken(deps.serviceToken));
  app.route('/', publicCatalogRoutes({ sql: deps.sql }));
  app.route(
    '/',
    fairnessRoutes({ fairness: createFairnessService({ sql: deps.sql, journal: deps.fairnessJournal ?? null }) }),
  );
  app.route(
    '/',
    seatRoutes({ sql: deps.sql, holds, verifyAccessToken: deps.verifyAccessToken, admission: deps.admission ?? null }),
  );
  app.route(
    '/',
    checkoutRoutes({
      sql: deps.sql,
      checkout,
      verifyAccessToken: deps.verifyAccessToken,
      admission: deps.admission ?? null,
      claimOwner: deps.claimOwner ?? null,
    }),
  );
  app.route(
    '/',
    bookingRoutes({
      sql: deps.sql,
      verifyAccessToken: deps.verifyAccessToken,
      verifyCustomerAccess: deps.verifyCustomerAccess ?? null,
    }),
  );
  app.route('/', paymentCallbackRoutes({ sql: deps.sql, webhookSecrets: deps.webhookSecrets }));
  app.route('/admin', adminCatalogRoutes({ sql: deps.sql, adminToken: deps.adminToken, sale }));
  app.route('/admin', saleControlRoutes({ sale, adminToken: deps.adminToken }));
  app.route(
    '/admin',
    admissionHealthRoutes({
      sql: deps.sql,
      adminToken: deps.adminToken,
      window: deps.metrics.admissionHealth,
      poolSize: deps.sql.options.max,
    }),
  );
  app.route('/admin', adminBookingRoutes({ sql: deps.sql, adminToken: deps.adminToken }));
  app.route(
    '/admin',
    fareAdminRoutes({
      fares: createFareService({ sql: deps.sql }),
      seatClasses: createSeatClassService({ sql: deps.sql }),
      adminToken: deps.adminToken,
    }),
  );
  return app;
}

export type CoreApp = ReturnType<typeof createCoreApp>;
