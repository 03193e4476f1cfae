/**
 * Operator API for what a showtime sells and gives back: fare classes (prices, capacities,
 * overbooking, live counts), the seats' classes and the refund policy for buyer cancellations.
 * The core decides and audits (its admin API, with the service token and the admin token);
 * the edge checks who the operator is (admin token, or a console session whose writes carry
 * X-Console: 1) and passes the core's answer on as it is.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { notFound, unavailable, unprocessable } from '../../../lib/errors';
import { requireJsonContentType } from '../../../lib/http';
import { parseSafeJson } from '../../../lib/json-guard';
import type { CoreClient } from '../core-client';
import { CORE_RETRY_AFTER_SECONDS } from '../core-client';
import { SHOWTIME_ID, type EdgeEnv } from '../http-context';
import { operatorHeaders } from '../middleware/admin-auth';

export interface FareAdminRouteDeps {
  core: CoreClient;
  /** middleware/admin-auth.ts: sets `operator` for the audit log. */
  adminAuth: MiddlewareHandler<EdgeEnv>;
}

const FARE_CLASS = /^[A-Z][A-Z0-9_]{0,15}$/;

export function fareAdminRoutes(deps: FareAdminRouteDeps) {
  const app = new Hono<EdgeEnv>();
  app.use('/showtimes/:id/fares', deps.adminAuth);
  app.use('/showtimes/:id/fares/*', deps.adminAuth);
  app.use('/showtimes/:id/seat-classes', deps.adminAuth);
  app.use('/showtimes/:id/refund-policy', deps.adminAuth);

  const showtimeParam = (c: Context) => {
    const id = c.req.param('id') ?? '';
    if (!SHOWTIME_ID.test(id)) throw notFound('SHOWTIME_NOT_FOUND', 'Unknown showtime');
    return id;
  };

  /** The core's answer as it is; a core that is away or failing is 503 with Retry-After. */
  async function relay(c: Context<EdgeEnv>, method: string, path: string, withBody: boolean) {
    let body: unknown;
    if (withBody) {
      // The body's size is bounded app-wide (jsonBodyLimit) and its depth and text here, so
      // nothing unsafe is relayed; its meaning is the core's to judge.
      requireJsonContentType(c);
      body = parseSafeJson(await c.req.text());
    }
    const headers = operatorHeaders(c.get('operator'));
    const answer = await deps.core.adminJson<unknown>(method, path, { ...(withBody ? { body } : {}), headers });
    if (answer.status >= 500 || answer.body === null) {
      throw unavailable(
        'CORE_UNAVAILABLE',
        'The seat service is not answering; try again shortly',
        CORE_RETRY_AFTER_SECONDS,
      );
    }
    return c.json(answer.body as object, answer.status as 200);
  }

  app.get('/showtimes/:id/fares', (c) => relay(c, 'GET', `/admin/showtimes/${showtimeParam(c)}/fares`, false));
  app.put('/showtimes/:id/fares/:fareClass', (c) => {
    const fareClass = c.req.param('fareClass') ?? '';
    if (!FARE_CLASS.test(fareClass)) {
      throw unprocessable(
        'INVALID_FARE_CLASS',
        'A class code is 1-16 capital letters, digits or underscores, starting with a letter',
      );
    }
    return relay(c, 'PUT', `/admin/showtimes/${showtimeParam(c)}/fares/${fareClass}`, true);
  });
  app.put('/showtimes/:id/seat-classes', (c) =>
    relay(c, 'PUT', `/admin/showtimes/${showtimeParam(c)}/seat-classes`, true),
  );
  app.get('/showtimes/:id/refund-policy', (c) =>
    relay(c, 'GET', `/admin/showtimes/${showtimeParam(c)}/refund-policy`, false),
  );
  app.put('/showtimes/:id/refund-policy', (c) =>
    relay(c, 'PUT', `/admin/showtimes/${showtimeParam(c)}/refund-policy`, true),
  );

  return app;
}
