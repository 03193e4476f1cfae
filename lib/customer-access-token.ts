import { SignJWT, decodeProtectedHeader, jwtVerify, errors as joseErrors } from 'jose';
import { TOKEN_ISSUER } from './access-token';
import { isValidCustomerId } from './customer-id';
import { unauthorized } from './errors';
import { TOKEN_ALGORITHM, type TokenKeyMaterial } from './token-keys';

/**
 * A buyer's own bookings outside a turn ("My bookings", cancelling after the turn ended). The
 * edge verifies the customer token (demo login or the identity provider's JWKS, which the
 * core never sees), then signs one of these for the core: short-lived, bound to the customer
 * and to no showtime. The core verifies it itself, so reaching the core directly gains nothing.
 */
export const CUSTOMER_ACCESS_TOKEN_TYPE = 'wr-customer-access+jwt';
export const CUSTOMER_ACCESS_AUDIENCE = 'customer-bookings';
export const CUSTOMER_ACCESS_TTL_MS = 60_000;

export async function signCustomerAccessToken(
  keys: TokenKeyMaterial,
  customerId: string,
  now = Date.now(),
): Promise<string> {
  if (!keys.signing) throw new Error('This service has no signing key');
  return new SignJWT({})
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, kid: keys.signing.kid, typ: CUSTOMER_ACCESS_TOKEN_TYPE })
    .setIssuer(TOKEN_ISSUER)
    .setAudience(CUSTOMER_ACCESS_AUDIENCE)
    .setSubject(customerId)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor((now + CUSTOMER_ACCESS_TTL_MS) / 1000))
    .sign(keys.signing.privateKey);
}

/** The token's type from its header, without verifying anything (null: not a JWT). */
export function tokenTypeOf(token: string): string | null {
  try {
    const typ = decodeProtectedHeader(token).typ;
    return typeof typ === 'string' ? typ : null;
  } catch {
    return null;
  }
}

/** Verifies customer access tokens: ES256, our type, issuer and audience; the customer id. */
export function createCustomerAccessVerifier(
  keys: TokenKeyMaterial,
  options: { clockToleranceSeconds?: number; now?: () => number } = {},
) {
  const clockTolerance = options.clockToleranceSeconds ?? 5;
  const now = options.now ?? Date.now;
  return async function verifyCustomerAccess(token: string): Promise<{ customerId: string }> {
    const invalid = () => unauthorized('INVALID_TOKEN', 'The access token is not valid');
    if (tokenTypeOf(token) !== CUSTOMER_ACCESS_TOKEN_TYPE) throw invalid();
    let payload;
    try {
      ({ payload } = await jwtVerify(token, keys.resolveKey, {
        algorithms: [TOKEN_ALGORITHM],
        typ: CUSTOMER_ACCESS_TOKEN_TYPE,
        issuer: TOKEN_ISSUER,
        audience: CUSTOMER_ACCESS_AUDIENCE,
        clockTolerance,
        currentDate: new Date(now()),
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw unauthorized('TOKEN_EXPIRED', 'The access token has expired');
      throw invalid();
    }
    if (!isValidCustomerId(payload.sub)) throw invalid();
    return { customerId: payload.sub };
  };
}

export type VerifyCustomerAccess = ReturnType<typeof createCustomerAccessVerifier>;
