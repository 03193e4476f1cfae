import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { incomingRequestId } from '../../../lib/http';
import { continueTrace, traceLogFields, type TraceContext } from '../../../lib/trace-context';
import type { CoreMetrics } from '../metrics';

export interface RequestContextVariables {
  requestId: string;
  /** The caller's W3C trace continued under the core's own span (lib/trace-context.ts). */
  trace: TraceContext;
  /** The service logger; log with `{ requestId }` (a child per request costs more than the request). */
  log: Logger;
}

/**
 * Gives every request an id (the caller's X-Request-Id when it looks sane, so one id follows a
 * buyer from the edge to the core) and a latency observation. The response header is set
 * before the handler runs: changing headers after the response exists makes @hono/node-server
 * rebuild it as a full Response, which cost three quarters of a cheap request's throughput.
 * The caller's traceparent is continued under a span of the core's own, logged with the request
 * and passed on to the payment gateway (payments/gateway-client.ts).
 */
export function requestContext(options: {
  logger: Logger;
  metrics: CoreMetrics;
}): MiddlewareHandler<{ Variables: RequestContextVariables }> {
  const { logger, metrics } = options;
  return async function requestContextMiddleware(c, next) {
    const requestId = incomingRequestId(c.req.header('x-request-id')) ?? randomUUID();
    c.set('requestId', requestId);
    const trace = continueTrace(c.req.header('traceparent'));
    c.set('trace', trace);
    c.set('log', logger);
    c.header('X-Request-Id', requestId);
    const startedAt = performance.now();
    const ended = metrics.admissionHealth.begin(c.req.method, c.req.path);
    try {
      // The trace is handed on explicitly (c.get('trace'): checkout passes it to the gateway),
      // not through an AsyncLocalStorage: that puts promise hooks on every promise of every
      // request, which cost more than anything else the core runs of its own.
      await next();
    } finally {
      ended(c.res.status);
    }
    const seconds = (performance.now() - startedAt) / 1000;
    const status = c.res.status;
    metrics.httpRequestDuration.observe(
      { method: c.req.method, route: c.req.routePath || 'unmatched', status: String(status) },
      seconds,
    );
    if (status >= 500 || logger.isLevelEnabled('debug')) {
      logger[status >= 500 ? 'error' : 'debug'](
        {
          requestId,
          ...traceLogFields(trace),
          method: c.req.method,
          path: c.req.path,
          status,
          ms: Math.round(seconds * 1000),
        },
        'request',
      );
    }
  };
}
