import type { MiddlewareHandler } from 'hono';
import type { VerifyAccessToken } from '../../../lib/access-token';
import { CUSTOMER_ACCESS_TOKEN_TYPE, tokenTypeOf, type VerifyCustomerAccess } from '../../../lib/customer-access-token';
import { unauthorized } from '../../../lib/errors';
import { bearerToken } from '../../../lib/http';

/** Who is asking about bookings: a customer, within one showtime's turn or (null) across all. */
export interface Buyer {
  customerId: string;
  /** The turn's showtime for an access token; null for a customer access token (any showtime). */
  showtimeId: number | null;
}

export interface BuyerVariables {
  buyer: Buyer;
}

/**
 * Booking routes answer either token the edge signs: the access token of a turn (that
 * showtime's bookings) or a customer access token (the customer's bookings of any showtime,
 * after the turn ended). The token's header type picks the verifier; each refuses the other's.
 */
export function requireBuyer(deps: {
  verifyAccessToken: VerifyAccessToken;
  verifyCustomerAccess: VerifyCustomerAccess | null;
}): MiddlewareHandler<{ Variables: BuyerVariables }> {
  return async function requireBuyerMiddleware(c, next) {
    const token = bearerToken(c);
    if (!token) throw unauthorized('MISSING_TOKEN', 'Send the access token as Authorization: Bearer <token>');
    if (tokenTypeOf(token) === CUSTOMER_ACCESS_TOKEN_TYPE) {
      if (!deps.verifyCustomerAccess) throw unauthorized('INVALID_TOKEN', 'The access token is not valid');
      c.set('buyer', { customerId: (await deps.verifyCustomerAccess(token)).customerId, showtimeId: null });
    } else {
      const access = await deps.verifyAccessToken(token);
      c.set('buyer', { customerId: access.customerId, showtimeId: access.showtimeId });
    }
    await next();
  };
}

/** A customer access token only: the list of one's own bookings. */
export function requireCustomerAccess(
  verify: VerifyCustomerAccess | null,
): MiddlewareHandler<{ Variables: BuyerVariables }> {
  return async function requireCustomerAccessMiddleware(c, next) {
    const token = bearerToken(c);
    if (!token) throw unauthorized('MISSING_TOKEN', 'Send the customer access token as Authorization: Bearer <token>');
    if (!verify) throw unauthorized('INVALID_TOKEN', 'The access token is not valid');
    c.set('buyer', { customerId: (await verify(token)).customerId, showtimeId: null });
    await next();
  };
}
