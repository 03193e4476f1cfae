import type { MiddlewareHandler } from 'hono';
import type { EdgeEnv } from '../http-context';

const INCOMING_ID = /^[\w.:-]{1,128}$/;

/**
 * One id per request: the caller's X-Request-Id when it looks sane (a load balancer's),
 * else a fresh one. It is passed to the core and echoed back, so one id follows a buyer.
 */
export function requestId(options: { generate?: () => string } = {}): MiddlewareHandler<EdgeEnv> {
  const generate = options.generate ?? (() => crypto.randomUUID());
  return async function requestIdMiddleware(c, next) {
    const incoming = c.req.header('x-request-id');
    const id = incoming && INCOMING_ID.test(incoming) ? incoming : generate();
    c.set('requestId', id);
    // Set before the handler builds its response: changing headers afterwards makes Hono
    // rebuild the Response, which on Node costs a full Request/Response round of objects.
    c.header('X-Request-Id', id);
    // Responses passed through from the core carry it too (core-client sets it).
    await next();
  };
}
