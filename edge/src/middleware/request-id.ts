import type { MiddlewareHandler } from 'hono';
import { incomingRequestId } from '../../../lib/http';
import { continueTrace } from '../../../lib/trace-context';
import type { EdgeEnv } from '../http-context';

/**
 * One id per request: the caller's X-Request-Id when it looks sane (a load balancer's),
 * else a fresh one. It is passed to the core and echoed back, so one id follows a buyer.
 * The W3C trace is continued the same way (the caller's traceparent, else a new trace), under
 * a span of the edge's own that becomes the parent of the call to the core.
 */
export function requestId(options: { generate?: () => string } = {}): MiddlewareHandler<EdgeEnv> {
  const generate = options.generate ?? (() => crypto.randomUUID());
  return async function requestIdMiddleware(c, next) {
    const id = incomingRequestId(c.req.header('x-request-id')) ?? generate();
    c.set('requestId', id);
    c.set('trace', continueTrace(c.req.header('traceparent')));
    // Set before the handler builds its response: changing headers afterwards makes Hono
    // rebuild the Response, which on Node costs a full Request/Response round of objects.
    c.header('X-Request-Id', id);
    // Responses passed through from the core carry it too (core-client sets it).
    await next();
  };
}
