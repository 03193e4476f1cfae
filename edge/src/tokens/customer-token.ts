/**
 * Customer identity. In development the edge issues its own customer tokens (demo login,
 * `typ: wr-customer+jwt`); in production they come from an identity provider and are
 * verified against its JWKS (fetched and cached by jose), issuer and audience. Either way,
 * an algorithm allow-list and a small clock tolerance apply, and claims are cached.
 */
import {
  SignJWT,
  createRemoteJWKSet,
  decodeProtectedHeader,
  jwtVerify,
  errors as joseErrors,
  type JWTVerifyGetKey,
} from 'jose';
import { TOKEN_ISSUER } from '../../../lib/access-token';
import { CUSTOMER_ID_PATTERN, isValidCustomerId } from '../../../lib/customer-id';
import { unauthorized } from '../../../lib/errors';
import { TOKEN_ALGORITHM, type TokenKeyMaterial } from '../../../lib/token-keys';
import { createClaimsCache } from './claims-cache';

export const CUSTOMER_TOKEN_TYPE = 'wr-customer+jwt';
export const DEMO_CUSTOMER_AUDIENCE = 'flash-sale-customer';
/** The waiting room's key alphabet: anything else cannot become a room member. */
export const CUSTOMER_ID = CUSTOMER_ID_PATTERN;

export interface CustomerIdentityProvider {
  jwksUrl: string;
  issuer: string | null;
  audience: string | null;
  algorithms: string[];
}

export interface CustomerTokenOptions {
  keys: TokenKeyMaterial;
  demoLogin: boolean;
  idp: CustomerIdentityProvider | null;
  clockToleranceMs: number;
  demoTtlMs?: number;
  now?: () => number;
  /** Tests inject a local key set instead of fetching the provider's JWKS. */
  idpKeys?: JWTVerifyGetKey;
}

export function createCustomerTokens(options: CustomerTokenOptions) {
  const now = options.now ?? Date.now;
  const cache = createClaimsCache<string>({ now, toleranceMs: options.clockToleranceMs });
  const idpKeys = options.idp ? (options.idpKeys ?? createRemoteJWKSet(new URL(options.idp.jwksUrl))) : null;
  const clockTolerance = Math.round(options.clockToleranceMs / 1000);
  const invalid = () => unauthorized('INVALID_TOKEN', 'The customer token is not valid');

  async function signDemo(customerId: string): Promise<string> {
    if (!options.demoLogin || !options.keys.signing) throw new Error('Demo login is disabled');
    return new SignJWT({})
      .setProtectedHeader({ alg: TOKEN_ALGORITHM, kid: options.keys.signing.kid, typ: CUSTOMER_TOKEN_TYPE })
      .setIssuer(TOKEN_ISSUER)
      .setAudience(DEMO_CUSTOMER_AUDIENCE)
      .setSubject(customerId)
      .setIssuedAt(Math.floor(now() / 1000))
      .setExpirationTime(Math.floor((now() + (options.demoTtlMs ?? 12 * 3_600_000)) / 1000))
      .sign(options.keys.signing.privateKey);
  }

  async function verifyUncached(token: string) {
    let header;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw invalid();
    }
    if (header.typ === CUSTOMER_TOKEN_TYPE) {
      if (!options.demoLogin || header.alg !== TOKEN_ALGORITHM) throw invalid();
      return jwtVerify(token, options.keys.resolveKey, {
        algorithms: [TOKEN_ALGORITHM],
        typ: CUSTOMER_TOKEN_TYPE,
        issuer: TOKEN_ISSUER,
        audience: DEMO_CUSTOMER_AUDIENCE,
        clockTolerance,
        currentDate: new Date(now()),
        requiredClaims: ['sub', 'exp'],
      });
    }
    // Our own token types are never customer identity, whatever the provider's settings.
    if (!idpKeys || !options.idp || (typeof header.typ === 'string' && header.typ.startsWith('wr-'))) throw invalid();
    if (typeof header.alg !== 'string' || !options.idp.algorithms.includes(header.alg)) throw invalid();
    return jwtVerify(token, idpKeys, {
      algorithms: options.idp.algorithms,
      ...(options.idp.issuer ? { issuer: options.idp.issuer } : {}),
      ...(options.idp.audience ? { audience: options.idp.audience } : {}),
      clockTolerance,
      currentDate: new Date(now()),
      requiredClaims: ['sub', 'exp'],
    });
  }

  /** The customer id of a valid token; 401 otherwise. */
  async function verify(token: string): Promise<string> {
    const cached = cache.get(token);
    if (cached) return cached;
    let payload;
    try {
      ({ payload } = await verifyUncached(token));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw unauthorized('TOKEN_EXPIRED', 'The customer token has expired');
      throw invalid();
    }
    if (!isValidCustomerId(payload.sub) || typeof payload.exp !== 'number') throw invalid();
    cache.set(token, payload.sub, payload.exp * 1000);
    return payload.sub;
  }

  return { signDemo, verify, demoLogin: options.demoLogin };
}

export type CustomerTokens = ReturnType<typeof createCustomerTokens>;
