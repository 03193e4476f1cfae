import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { forbidden, unauthorized } from '../../../lib/errors';
import { bearerToken, type EdgeEnv } from '../http-context';
import type { LoginLockout } from '../limits/login-lockout';
import {
  ADMIN_COOKIE,
  CONSOLE_HEADER,
  cleanOperatorName,
  sameSecret,
  type ConsoleSessions,
  type Operator,
} from '../pages/admin-session';

export interface AdminAuthOptions {
  adminToken: string;
  sessions: ConsoleSessions;
  lockout: LoginLockout;
  /** What the lockout counts by (the address's limit key). */
  clientAddress: (c: Context) => string | null;
  /** The full address, for the audit log (default: clientAddress). */
  sourceAddress?: (c: Context) => string | null;
}

/**
 * Who is acting, for the core's audit log: the signed-in operator's name, how they signed in,
 * and their address. Every operator write the edge sends the core carries these.
 */
export function operatorHeaders(operator: Operator | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!operator) return headers;
  if (operator.name) headers['x-operator'] = operator.name;
  headers['x-operator-via'] = operator.via;
  if (operator.address && operator.address !== 'unknown') headers['x-operator-source'] = operator.address;
  return headers;
}

/**
 * Operator routes: `Authorization: Bearer $ADMIN_TOKEN` (WebCrypto, so it runs on Workers),
 * or a console session cookie (pages/admin-session.ts), whose writes must also carry
 * `X-Console: 1`. Wrong Bearer tokens count towards the same per-address lockout as wrong
 * console sign-ins. Sets `operator` ({name, address, via}) on the context for the audit log.
 */
export function adminAuth(options: AdminAuthOptions): MiddlewareHandler<EdgeEnv> {
  return async function adminAuthMiddleware(c, next) {
    const address = options.clientAddress(c) ?? 'unknown';
    const source = (options.sourceAddress ?? options.clientAddress)(c) ?? 'unknown';
    const token = bearerToken(c);
    if (token || c.req.header('authorization')) {
      if (await options.lockout.isLocked(address)) throw options.lockout.lockedOut();
      if (!token || !(await sameSecret(token, options.adminToken))) {
        await options.lockout.recordFailure(address); // throws LOCKED_OUT past the allowance
        throw unauthorized('INVALID_TOKEN', 'The admin token is not valid');
      }
      // The token says nothing about who holds it: an X-Operator name is kept only as a label
      // next to "admin token", never as the identity itself.
      const label = cleanOperatorName(c.req.header('x-operator'));
      c.set('operator', {
        name: label ? `${label.slice(0, 40)} via admin-token` : 'admin-token',
        address: source,
        via: 'token',
      } satisfies Operator);
      return next();
    }
    const cookie = getCookie(c, ADMIN_COOKIE);
    if (!cookie) throw unauthorized('MISSING_TOKEN', 'Send the admin token as Authorization: Bearer <token>');
    const session = await options.sessions.find(cookie);
    if (!session) throw unauthorized('INVALID_TOKEN', 'The console session is not valid; sign in again');
    const reads = c.req.method === 'GET' || c.req.method === 'HEAD';
    if (!reads && c.req.header(CONSOLE_HEADER) !== '1')
      throw forbidden('CONSOLE_HEADER_REQUIRED', 'Console writes must send X-Console: 1');
    c.set('operator', { name: session.operator, address: source, via: 'console' } satisfies Operator);
    return next();
  };
}
