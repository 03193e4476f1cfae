import type { MiddlewareHandler } from 'hono';
import { createHash, timingSafeEqual } from 'node:crypto';
import { unauthorized } from '../../../lib/errors';

/** Reached without the edge's credential: the gateway's webhook (signed itself) and probes. */
const OPEN_PATHS = new Set(['/healthz', '/readyz', '/metrics', '/payments/callback']);
const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Only the edge faces buyers: with CORE_SERVICE_TOKEN set (required in production) every other
 * route needs it in X-Service-Token, so a caller who finds the core's port gains nothing.
 * Registered after the health and metrics routes, which answer before it runs.
 */
export function requireServiceToken(serviceToken: string): MiddlewareHandler {
  const expected = digest(serviceToken);
  return async function requireServiceTokenMiddleware(c, next) {
    if (!OPEN_PATHS.has(c.req.path)) {
      const given = c.req.header('x-service-token');
      if (!given || !timingSafeEqual(digest(given), expected)) {
        throw unauthorized('SERVICE_TOKEN_REQUIRED', 'This service answers only the edge');
      }
    }
    await next();
  };
}
