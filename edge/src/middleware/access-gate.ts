import type { MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import type { VerifyAccessToken } from '../../../lib/access-token';
import { forbidden, unauthorized } from '../../../lib/errors';
import { bearerToken, cookieNames, SHOWTIME_ID, type EdgeEnv } from '../http-context';
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
    // Browsers hold access tokens only as HttpOnly cookies, one per showtime: on paths that
    // name no showtime (holds, bookings) the page says which cookie to use. The hint picks a
    // cookie, nothing more: the token's own claims and the core's ownership checks decide.
    const hint = c.req.header('x-showtime-id');
    const cookieShowtime = showtimeId ?? (hint && SHOWTIME_ID.test(hint) ? hint : undefined);
    const token = bearerToken(c) ?? (cookieShowtime ? getCookie(c, cookieNames.access(cookieShowtime)) : undefined);
    if (!token) throw unauthorized('MISSING_TOKEN', 'Send the access token as Authorization: Bearer <token>');
    const access = await options.verifyAccessToken(token);
    if (showtimeId !== undefined && String(access.showtimeId) !== showtimeId) {
      throw forbidden('WRONG_SHOWTIME', 'This access token was issued for another showtime');
    }
    const customerToken = c.req.header('x-customer-token') ?? getCookie(c, cookieNames.customer);
    if (customerToken) {
      const customerId = await options.customerTokens.verify(customerToken);
      if (customerId !== access.customerId)
        throw forbidden('NOT_YOUR_TOKEN', 'This access token belongs to another customer');
    }
    c.set('access', access);
    c.set('accessToken', token);
    c.set('customerId', String(access.customerId));
    await next();
  };
}
