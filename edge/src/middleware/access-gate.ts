import type { MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import type { VerifyAccessToken } from '../../../lib/access-token';
import { forbidden, unauthorized } from '../../../lib/errors';
import { bearerToken, cookieNames, type EdgeEnv } from '../http-context';
import type { CustomerTokens } from '../tokens/customer-token';

export interface AccessGateOptions {
  verifyAccessToken: VerifyAccessToken;
  customerTokens: CustomerTokens;
}

/**
 * The admission check on purchase routes: a valid access token (Bearer, or the showtime's
 * cookie), issued for the showtime in the path when there is one. When the caller also
 * shows who they are (X-Customer-Token or the customer cookie), it must be the token's
 * customer: a token lent to someone else is refused. Verification is local (no Redis) and
 * cached, so this keeps working while Redis is down.
 */
export function accessGate(options: AccessGateOptions): MiddlewareHandler<EdgeEnv> {
  return async function accessGateMiddleware(c, next) {
    const showtimeId = c.req.param('id');
    const token = bearerToken(c) ?? (showtimeId ? getCookie(c, cookieNames.access(showtimeId)) : undefined);
    if (!token) throw unauthorized('MISSING_TOKEN', 'Send the access token as Authorization: Bearer <token>');
    const access = await options.verifyAccessToken(token);
    if (showtimeId !== undefined && String(access.showtimeId) !== showtimeId) {
      throw forbidden('WRONG_SHOWTIME', 'This access token was issued for another showtime');
    }
    const customerToken = c.req.header('x-customer-token') ?? getCookie(c, cookieNames.customer);
    if (customerToken) {
      const customerId = await options.customerTokens.verify(customerToken);
      if (customerId !== access.customerId) throw forbidden('NOT_YOUR_TOKEN', 'This access token belongs to another customer');
    }
    c.set('access', access);
    await next();
  };
}
