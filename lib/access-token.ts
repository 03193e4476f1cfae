import { SignJWT, decodeProtectedHeader, jwtVerify, errors as joseErrors } from 'jose';
import { isValidCustomerId } from './customer-id';
import { unauthorized } from './errors';
import { TOKEN_ALGORITHM, type TokenKeyMaterial } from './token-keys';

/** The edge issues these when a buyer is admitted; the core verifies them itself. */
export const ACCESS_TOKEN_TYPE = 'wr-access+jwt';
export const TOKEN_ISSUER = 'flash-sale-edge';

export interface AccessClaims {
  customerId: string;
  showtimeId: number;
  /** The admission session this token belongs to (lets the queue release the slot). */
  sessionId: string;
  expiresAtMs: number;
}

export const showtimeAudience = (showtimeId: number | string) => `showtime:${showtimeId}`;

export async function signAccessToken(keys: TokenKeyMaterial, claims: AccessClaims): Promise<string> {
  if (!keys.signing) throw new Error('This service has no signing key');
  return new SignJWT({ sid: claims.sessionId })
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, kid: keys.signing.kid, typ: ACCESS_TOKEN_TYPE })
    .setIssuer(TOKEN_ISSUER)
    .setSubject(claims.customerId)
    .setAudience(showtimeAudience(claims.showtimeId))
    .setIssuedAt()
    .setExpirationTime(Math.floor(claims.expiresAtMs / 1000))
    .sign(keys.signing.privateKey);
}

export interface AccessTokenVerifierOptions {
  clockToleranceSeconds?: number;
  /** Verified tokens remembered until they expire, so a hot buyer costs one signature check. */
  cacheSize?: number;
  now?: () => number;
}

/**
 * Verifies access tokens: ES256 only, exactly our `typ` and a `kid` in the header (checked
 * before any signature work, so junk costs nothing), issuer, a `showtime:<id>` audience, a
 * valid customer id, an `iat` not in the future. The core and the edge use this one
 * verifier, so a token one refuses the other refuses too. Results are cached by token
 * string until expiry; a cache hit costs a Map lookup.
 */
export function createAccessTokenVerifier(keys: TokenKeyMaterial, options: AccessTokenVerifierOptions = {}) {
  const clockToleranceSeconds = options.clockToleranceSeconds ?? 5;
  const cacheSize = options.cacheSize ?? 50_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, AccessClaims>();

  return async function verifyAccessToken(token: string): Promise<AccessClaims> {
    const cached = cache.get(token);
    if (cached) {
      if (cached.expiresAtMs + clockToleranceSeconds * 1000 > now()) return cached;
      cache.delete(token);
    }
    const invalid = () => unauthorized('INVALID_TOKEN', 'The access token is not valid');
    let header;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw invalid();
    }
    if (header.alg !== TOKEN_ALGORITHM || header.typ !== ACCESS_TOKEN_TYPE || typeof header.kid !== 'string')
      throw invalid();
    let payload;
    try {
      ({ payload } = await jwtVerify(token, keys.resolveKey, {
        algorithms: [TOKEN_ALGORITHM],
        typ: ACCESS_TOKEN_TYPE,
        issuer: TOKEN_ISSUER,
        clockTolerance: clockToleranceSeconds,
        currentDate: new Date(now()),
        requiredClaims: ['sub', 'aud', 'exp', 'iat'],
      }));
    } catch (error) {
      const expired = error instanceof joseErrors.JWTExpired;
      throw unauthorized(
        expired ? 'TOKEN_EXPIRED' : 'INVALID_TOKEN',
        expired ? 'The access token has expired' : 'The access token is not valid',
      );
    }
    const audience = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
    const match = /^showtime:(\d{1,15})$/.exec(audience ?? '');
    if (!match || !isValidCustomerId(payload.sub) || typeof payload.exp !== 'number') throw invalid();
    // Issued in the future: not by a clock we trust.
    if (typeof payload.iat !== 'number' || payload.iat * 1000 > now() + clockToleranceSeconds * 1000) throw invalid();
    const claims: AccessClaims = {
      customerId: payload.sub,
      showtimeId: Number(match[1]),
      sessionId: typeof payload.sid === 'string' ? payload.sid : '',
      expiresAtMs: payload.exp * 1000,
    };
    if (cache.size >= cacheSize) cache.delete(cache.keys().next().value as string);
    cache.set(token, claims);
    return claims;
  };
}

export type VerifyAccessToken = ReturnType<typeof createAccessTokenVerifier>;
