import type { MiddlewareHandler } from 'hono';
import type { EdgeMetrics } from '../metrics';

/** Counts every answer by route pattern (never the raw path: ids would explode the labels). */
export function requestMetrics(options: { metrics: EdgeMetrics }): MiddlewareHandler {
  return async function requestMetricsMiddleware(c, next) {
    await next();
    options.metrics.httpRequests.inc({
      route: c.req.routePath || 'unmatched',
      method: c.req.method,
      status: String(c.res.status),
    });
  };
}
