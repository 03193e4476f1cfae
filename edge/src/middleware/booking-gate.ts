import type { MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { ACCESS_TOKEN_TYPE } from '../../../lib/access-token';
import { signCustomerAccessToken, tokenTypeOf } from '../../../lib/customer-access-token';
import { AppError, unauthorized } from '../../../lib/errors';
import type { TokenKeyMaterial } from '../../../lib/token-keys';
import { bearerToken, cookieNames, SHOWTIME_ID, type EdgeEnv } from '../http-context';
import type { CustomerTokens } from '../tokens/customer-token';

export interface BookingGateOptions {
  /** The turn's access-token check (access-gate.ts), used when the caller shows an access token. */
  accessGate: MiddlewareHandler<EdgeEnv>;
  customerTokens: CustomerTokens;
  tokenKeys: TokenKeyMaterial;
  /** Per client address, on the customer path only (a turn's token is already bounded by the turn). */
  floodLimit?: MiddlewareHandler<EdgeEnv>;
}

/**
 * A buyer's bookings are theirs beyond the turn: an access token of a turn passes through the
 * access gate as before; otherwise the customer token (Bearer, X-Customer-Token or the customer
 * cookie) is verified here and the core gets a customer access token the edge signs for it
 * (lib/customer-access-token.ts), bound to that customer and to no showtime. A browser whose
 * turn cookie has expired falls back to its customer cookie.
 */
export function bookingGate(options: BookingGateOptions): MiddlewareHandler<EdgeEnv> {
  return async function bookingGateMiddleware(c, next) {
    const bearer = bearerToken(c);
    const hint = c.req.header('x-showtime-id');
    const turnCookie = !bearer && hint && SHOWTIME_ID.test(hint) ? getCookie(c, cookieNames.access(hint)) : undefined;
    const customerToken =
      (bearer && tokenTypeOf(bearer) !== ACCESS_TOKEN_TYPE ? bearer : null) ??
      c.req.header('x-customer-token') ??
      getCookie(c, cookieNames.customer) ??
      null;
    if ((bearer && tokenTypeOf(bearer) === ACCESS_TOKEN_TYPE) || (turnCookie && !customerToken)) {
      return options.accessGate(c, next);
    }
    if (turnCookie) {
      // Both: the turn's token while it lasts (it also proves the pairing), the customer's after.
      let passed = false;
      try {
        await options.accessGate(c, async () => {
          passed = true;
        });
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 401) throw error;
      }
      if (passed) return next();
    }
    if (!customerToken)
      throw unauthorized(
        'MISSING_TOKEN',
        'Send your customer token (or the access token of your turn) as Authorization: Bearer <token>',
      );
    const vouch = async () => {
      const customerId = await options.customerTokens.verify(customerToken);
      if (!options.tokenKeys.signing) throw unauthorized('INVALID_TOKEN', 'This edge cannot vouch for customers');
      c.set('accessToken', await signCustomerAccessToken(options.tokenKeys, customerId));
      c.set('customerId', customerId);
      await next();
    };
    // Before any signature work: a flood of made-up tokens costs a counter, not a verification.
    if (options.floodLimit) return options.floodLimit(c, vouch);
    await vouch();
  };
}
