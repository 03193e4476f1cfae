/**
 * The core's JSON under /api. Seat maps, holds, checkout and bookings need an access token
 * (holds and checkout also pass the token buckets); the showtime list and the payment
 * callback do not. Seat maps are cached about a second with single-flight, and served
 * stale while the core is down.
 */
import { Hono, type Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { AppError, notFound, unprocessable, type CodeWithStatus } from '../../../lib/errors';
import { singleQueryValue } from '../../../lib/http';
import { traceparentOf } from '../../../lib/trace-context';
import type { CoreClient } from '../core-client';
import { bearerToken, cookieNames, SHOWTIME_ID, type EdgeEnv } from '../http-context';
import type { EdgeMetrics } from '../metrics';
import type { MiddlewareHandler } from 'hono';
import { createSingleFlightCache } from '../state/single-flight-cache';

export interface PurchaseRouteDeps {
  core: CoreClient;
  accessGate: MiddlewareHandler<EdgeEnv>;
  /** Bookings: the turn's access token, or the customer token after the turn (middleware/booking-gate.ts). */
  bookingGate?: MiddlewareHandler<EdgeEnv>;
  /** The token buckets plus a live turn (the token's own): holds and checkout need both. */
  purchaseBuckets: MiddlewareHandler<EdgeEnv>;
  /** Per-customer budget for hold and booking reads and cancels, which pass no bucket (customer-read-limit.ts). */
  customerReads?: MiddlewareHandler<EdgeEnv>;
  clientAddress: (c: Context) => string | null;
  metrics: EdgeMetrics;
  seatMapTtlMs: number;
  /** How long a seat map may be served after the core stopped answering. */
  seatMapStaleForMs?: number;
}

interface CachedSeatMap {
  status: number;
  body: string;
  contentType: string;
}

const HOLD_ID = /^[A-Za-z0-9_-]{1,100}$/;
const BOOKING_ID = /^[A-Za-z0-9_-]{1,100}$/;

function checkedParam(c: Context, name: string, pattern: RegExp, code: CodeWithStatus<404>): string {
  const value = c.req.param(name) ?? '';
  if (!pattern.test(value)) throw notFound(code, `Unknown ${name}`);
  return value;
}

export function purchaseRoutes(deps: PurchaseRouteDeps) {
  const app = new Hono<EdgeEnv>();
  const seatMaps = createSingleFlightCache<CachedSeatMap>({
    ttlMs: deps.seatMapTtlMs,
    staleForMs: deps.seatMapStaleForMs ?? 300_000,
  });

  /**
   * Forwards to the same path on the core, with the verified access token when there is one.
   * `ownCall`: the answer is this buyer's alone, so a client that has gone takes the call with
   * it (not sent, or abandoned); a load shared by every caller (single-flight) is not tied to one.
   */
  async function forward(
    c: Context<EdgeEnv>,
    corePath: string,
    withAccess: boolean,
    ownCall = true,
    withQuery = true,
  ): Promise<Response> {
    const showtimeId = c.req.param('id');
    const accessToken = withAccess
      ? (c.get('accessToken') ?? bearerToken(c) ?? (showtimeId ? getCookie(c, cookieNames.access(showtimeId)) : null))
      : null;
    const signal = ownCall ? c.req.raw.signal : undefined;
    // Only POST carries a body the core reads (holds, checkout, the webhook); a DELETE's body is
    // never read, so it is never buffered. A client that left while its body was read: no body,
    // and the core client drops the call (499).
    const body =
      c.req.method !== 'POST'
        ? null
        : await c.req.arrayBuffer().catch((error: unknown) => (signal?.aborted ? null : Promise.reject(error)));
    const query = withQuery ? new URL(c.req.url).search : '';
    return deps.core.forward({
      method: c.req.method,
      path: `${corePath}${query}`,
      headers: c.req.raw.headers,
      body,
      requestId: c.get('requestId'),
      ...(c.get('trace') ? { traceparent: traceparentOf(c.get('trace')) } : {}),
      clientAddress: deps.clientAddress(c),
      ...(withAccess ? { authorization: accessToken ? `Bearer ${accessToken}` : null } : {}),
      ...(signal ? { signal } : {}),
      // The per-customer bound of the core bulkhead: one buyer's own calls, not shared loads.
      caller: ownCall ? (c.get('customerId') ?? c.get('accessToken') ?? null) : null,
    });
  }

  // The public list is the landing page of a flash sale: one core query per TTL serves every
  // caller (single-flight), and a stale copy answers while the core is down, like seat maps.
  const showtimeLists = createSingleFlightCache<CachedSeatMap>({
    ttlMs: Math.max(deps.seatMapTtlMs, 1_000),
    staleForMs: deps.seatMapStaleForMs ?? 300_000,
  });
  app.get('/showtimes', async (c) => {
    const cached = await showtimeLists.get('all', async () => {
      const response = await forward(c, '/showtimes', false, false);
      if (response.status >= 500) {
        await response.body?.cancel();
        throw new AppError('CORE_UNAVAILABLE', 'The seat service is not answering; try again shortly', {
          retryAfterSeconds: 2,
        });
      }
      return {
        status: response.status,
        body: await response.text(),
        contentType: response.headers.get('content-type') ?? 'application/json',
      };
    });
    c.header('Content-Type', cached.value.contentType);
    c.header('Cache-Control', 'no-store');
    if (cached.source === 'stale') c.header('Warning', '110 - "Response is stale: the seat service is not answering"');
    return c.body(cached.value.body, cached.value.status as 200);
  });

  app.get('/showtimes/:id/seats', deps.accessGate, async (c) => {
    const showtimeId = checkedParam(c, 'id', SHOWTIME_ID, 'SHOWTIME_NOT_FOUND');
    // `view=available` (the compact view for load clients) is cached apart from the full map;
    // any other view is refused here, so junk queries cannot multiply the cache or core calls.
    const view = singleQueryValue(c, 'view');
    if (view !== undefined && view !== 'available')
      throw unprocessable('VALIDATION_FAILED', 'view must be "available" or absent', {
        issues: [{ path: 'view', message: 'Unknown view' }],
      });
    // One cached map serves every admitted buyer of the showtime: the core's answer does not
    // depend on who asks, and the gate has already checked this buyer's token.
    const cached = await seatMaps.get(view ? `${showtimeId}:${view}` : showtimeId, async () => {
      const response = await forward(
        c,
        `/showtimes/${showtimeId}/seats${view ? `?view=${view}` : ''}`,
        true,
        false,
        false,
      );
      if (response.status >= 500) {
        await response.body?.cancel();
        throw new AppError('CORE_UNAVAILABLE', 'The seat service is not answering; try again shortly', {
          retryAfterSeconds: 2,
        });
      }
      return {
        status: response.status,
        body: await response.text(),
        contentType: response.headers.get('content-type') ?? 'application/json',
      };
    });
    deps.metrics.seatMapReads.inc({
      source: cached.source === 'loaded' ? 'core' : cached.source === 'cached' ? 'cache' : 'stale',
    });
    c.header('Content-Type', cached.value.contentType);
    c.header('Cache-Control', 'no-store');
    if (cached.source === 'stale') c.header('Warning', '110 - "Response is stale: the seat service is not answering"');
    c.header('X-Seat-Map-Age-Ms', String(Math.max(0, Date.now() - cached.loadedAtMs)));
    return c.body(cached.value.body, cached.value.status as 200);
  });

  app.post('/showtimes/:id/holds', deps.accessGate, deps.purchaseBuckets, (c) => {
    const showtimeId = checkedParam(c, 'id', SHOWTIME_ID, 'SHOWTIME_NOT_FOUND');
    return forward(c, `/showtimes/${showtimeId}/holds`, true);
  });

  const reads = deps.customerReads ?? (async (_c, next) => next());
  app.get('/holds/:holdId', deps.accessGate, reads, (c) =>
    forward(c, `/holds/${checkedParam(c, 'holdId', HOLD_ID, 'HOLD_NOT_FOUND')}`, true),
  );
  app.delete('/holds/:holdId', deps.accessGate, reads, (c) =>
    forward(c, `/holds/${checkedParam(c, 'holdId', HOLD_ID, 'HOLD_NOT_FOUND')}`, true),
  );
  app.post('/holds/:holdId/checkout', deps.accessGate, deps.purchaseBuckets, (c) =>
    forward(c, `/holds/${checkedParam(c, 'holdId', HOLD_ID, 'HOLD_NOT_FOUND')}/checkout`, true),
  );
  // A buyer's bookings: with the turn's access token, or the customer token once the turn is over.
  const bookingGate = deps.bookingGate ?? deps.accessGate;
  app.get('/bookings', bookingGate, reads, (c) => forward(c, '/bookings', true));
  app.get('/bookings/:bookingId', bookingGate, reads, (c) =>
    forward(c, `/bookings/${checkedParam(c, 'bookingId', BOOKING_ID, 'BOOKING_NOT_FOUND')}`, true),
  );
  // The buyer's cancellation: what it would give back, then the cancel itself (the core applies the policy).
  app.get('/bookings/:bookingId/cancellation', bookingGate, reads, (c) =>
    forward(c, `/bookings/${checkedParam(c, 'bookingId', BOOKING_ID, 'BOOKING_NOT_FOUND')}/cancellation`, true),
  );
  app.delete('/bookings/:bookingId', bookingGate, reads, (c) =>
    forward(c, `/bookings/${checkedParam(c, 'bookingId', BOOKING_ID, 'BOOKING_NOT_FOUND')}`, true),
  );

  // The gateway's webhook: raw body byte for byte with its X-Signature; the core verifies it.
  app.post('/payments/callback', (c) => forward(c, '/payments/callback', false));

  return app;
}
