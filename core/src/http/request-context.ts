import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import type { CoreMetrics } from '../metrics';

export interface RequestContextVariables {
  requestId: string;
  log: Logger;
}

const INCOMING_ID = /^[\w.:-]{1,128}$/;

/**
 * Gives every request an id (the caller's X-Request-Id when it looks sane, so one id follows a
 * buyer from the edge to the core), a child logger carrying it, and a latency observation.
 */
export function requestContext(options: { logger: Logger; metrics: CoreMetrics }): MiddlewareHandler<{ Variables: RequestContextVariables }> {
  return async function requestContextMiddleware(c, next) {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    const log = options.logger.child({ requestId });
    c.set('requestId', requestId);
    c.set('log', log);
    const startedAt = performance.now();
    await next();
    c.header('X-Request-Id', requestId);
    const seconds = (performance.now() - startedAt) / 1000;
    const route = c.req.routePath || 'unmatched';
    options.metrics.httpRequestDuration.observe({ method: c.req.method, route, status: String(c.res.status) }, seconds);
    if (log.isLevelEnabled('debug') || c.res.status >= 500) {
      log[c.res.status >= 500 ? 'error' : 'debug'](
        { method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(seconds * 1000) },
        'request',
      );
    }
  };
}
