import type { MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { forbidden, unauthorized } from '../../../lib/errors';
import { bearerToken } from '../http-context';
import { ADMIN_COOKIE, adminSessionValue, CONSOLE_HEADER, sameSecret } from '../pages/admin-session';

/**
 * Operator routes: `Authorization: Bearer $ADMIN_TOKEN` (WebCrypto, so it runs on Workers),
 * or the operator console's session cookie (pages/admin-session.ts), whose writes must also
 * carry `X-Console: 1`.
 */
export function adminAuth(options: { adminToken: string }): MiddlewareHandler {
  const session = adminSessionValue(options.adminToken);
  return async function adminAuthMiddleware(c, next) {
    const token = bearerToken(c);
    if (token) {
      if (!(await sameSecret(token, options.adminToken))) throw unauthorized('INVALID_TOKEN', 'The admin token is not valid');
      return next();
    }
    const cookie = getCookie(c, ADMIN_COOKIE);
    if (!cookie) throw unauthorized('MISSING_TOKEN', 'Send the admin token as Authorization: Bearer <token>');
    if (!(await sameSecret(cookie, await session))) throw unauthorized('INVALID_TOKEN', 'The console session is not valid; sign in again');
    const reads = c.req.method === 'GET' || c.req.method === 'HEAD';
    if (!reads && c.req.header(CONSOLE_HEADER) !== '1') throw forbidden('CONSOLE_HEADER_REQUIRED', 'Console writes must send X-Console: 1');
    return next();
  };
}
