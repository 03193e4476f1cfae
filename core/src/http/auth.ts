import type { MiddlewareHandler } from 'hono';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AccessClaims, VerifyAccessToken } from '../../../lib/access-token';
import { forbidden, unauthorized } from '../../../lib/errors';
import { bearerToken } from '../../../lib/http';

export interface AccessVariables {
  access: AccessClaims;
}

/**
 * Buyers reach the core only with an access token signed by the edge; no plain header is
 * trusted. The claims are stored for handlers, which check the showtime they touch.
 */
export function requireAccessToken(verify: VerifyAccessToken): MiddlewareHandler<{ Variables: AccessVariables }> {
  return async function requireAccessTokenMiddleware(c, next) {
    const token = bearerToken(c);
    if (!token) throw unauthorized('MISSING_TOKEN', 'Send the access token as Authorization: Bearer <token>');
    c.set('access', await verify(token));
    await next();
  };
}

/** A token admits one buyer to one showtime; using it elsewhere is refused with 403. */
export function assertTokenForShowtime(access: AccessClaims, showtimeId: number): void {
  if (access.showtimeId !== showtimeId) {
    throw forbidden('WRONG_SHOWTIME', 'This access token was issued for another showtime');
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Operator routes: `Authorization: Bearer $ADMIN_TOKEN`, compared in constant time. */
export function requireAdminToken(adminToken: string): MiddlewareHandler {
  const expected = digest(adminToken);
  return async function requireAdminTokenMiddleware(c, next) {
    const token = bearerToken(c);
    if (!token) throw unauthorized('MISSING_TOKEN', 'Send the admin token as Authorization: Bearer <token>');
    if (!timingSafeEqual(digest(token), expected)) throw unauthorized('INVALID_TOKEN', 'The admin token is not valid');
    await next();
  };
}
