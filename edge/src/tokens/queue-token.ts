/**
 * Queue tokens: proof of a place in one room's line. Binds customer (`sub`), showtime
 * (`aud` = showtime:<id>) and ticket (`tkt`, 0 while in the pre-queue). Only edges read them,
 * so they are HS256 with a key derived from the signing key (lib/token-keys.ts, `kid` for
 * rotation). Verified locally, without Redis, and cached until expiry.
 */
import { SignJWT, decodeProtectedHeader, jwtVerify, errors as joseErrors, type JWTHeaderParameters } from 'jose';
import { TOKEN_ISSUER, showtimeAudience } from '../../../lib/access-token';
import { unauthorized } from '../../../lib/errors';
import { QUEUE_TOKEN_ALGORITHM, type TokenKeyMaterial } from '../../../lib/token-keys';
import { createClaimsCache } from './claims-cache';

export const QUEUE_TOKEN_TYPE = 'wr-queue+jwt';

export interface QueueClaims {
  customerId: string;
  showtimeId: string;
  ticket: number;
  expiresAtMs: number;
}

export interface QueueTokenOptions {
  ttlMs: number;
  clockToleranceMs: number;
  now?: () => number;
  /**
   * A synchronous HMAC-SHA-256 over the key (base64url out). Node passes node:crypto's
   * (tokens/queue-token-node.ts): WebCrypto's sign is a promise and a thread-pool job per
   * token, which at join rates cost more than the HMAC itself. Same bytes either way.
   */
  hmacSha256?: (key: Uint8Array, input: string) => string;
}

const base64urlJson = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

const AUDIENCE = /^showtime:(\d{1,15})$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const HEADER_KEYS = new Set(['alg', 'kid', 'typ']);
const PAYLOAD_KEYS = new Set(['tkt', 'iss', 'sub', 'aud', 'iat', 'exp']);

function parseJsonObject(segment: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

const hasOnlyKeys = (value: Record<string, unknown>, allowed: Set<string>) =>
  Object.keys(value).every((key) => allowed.has(key));

/** Compares two signatures without stopping at the first difference (no timing hint for a forger). */
function constantTimeEquals(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

export function createQueueTokens(keys: TokenKeyMaterial, options: QueueTokenOptions) {
  const now = options.now ?? Date.now;
  const cache = createClaimsCache<QueueClaims>({ now, toleranceMs: options.clockToleranceMs });

  /** The encoded header is the same for every token of a key: made once per kid. */
  const headers = new Map<string, string>();
  const headerOf = (kid: string) => {
    let header = headers.get(kid);
    if (header === undefined)
      headers.set(kid, (header = base64urlJson({ alg: QUEUE_TOKEN_ALGORITHM, kid, typ: QUEUE_TOKEN_TYPE })));
    return header;
  };

  async function sign(claims: { customerId: string; showtimeId: string; ticket: number }): Promise<string> {
    const signing = keys.queueKeys.signing;
    if (!signing) throw new Error('The edge needs a signing key');
    const expiresAtMs = now() + options.ttlMs;
    if (options.hmacSha256) {
      // The compact JWS jose would build, member for member (queue-token.test.ts compares them).
      const header = headerOf(signing.kid);
      const payload = base64urlJson({
        tkt: claims.ticket,
        iss: TOKEN_ISSUER,
        sub: claims.customerId,
        aud: showtimeAudience(claims.showtimeId),
        iat: Math.floor(now() / 1000),
        exp: Math.floor(expiresAtMs / 1000),
      });
      const input = `${header}.${payload}`;
      return `${input}.${options.hmacSha256(signing.key, input)}`;
    }
    return new SignJWT({ tkt: claims.ticket })
      .setProtectedHeader({ alg: QUEUE_TOKEN_ALGORITHM, kid: signing.kid, typ: QUEUE_TOKEN_TYPE })
      .setIssuer(TOKEN_ISSUER)
      .setSubject(claims.customerId)
      .setAudience(showtimeAudience(claims.showtimeId))
      .setIssuedAt(Math.floor(now() / 1000))
      .setExpirationTime(Math.floor(expiresAtMs / 1000))
      .sign(signing.key);
  }

  async function verify(token: string): Promise<QueueClaims> {
    const known = verifyNow(token);
    if (known) return known;
    let header;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      header = null;
    }
    // Header pre-check: junk and other token types never reach a signature check.
    if (
      !header ||
      header.alg !== QUEUE_TOKEN_ALGORITHM ||
      header.typ !== QUEUE_TOKEN_TYPE ||
      !keys.queueKeys.byKid.has(String(header.kid))
    ) {
      throw unauthorized('INVALID_TOKEN', 'The queue token is not valid');
    }
    let payload;
    try {
      ({ payload } = await jwtVerify(
        token,
        (protectedHeader: JWTHeaderParameters) => keys.queueKeys.byKid.get(String(protectedHeader.kid))!,
        {
          algorithms: [QUEUE_TOKEN_ALGORITHM],
          typ: QUEUE_TOKEN_TYPE,
          issuer: TOKEN_ISSUER,
          clockTolerance: Math.round(options.clockToleranceMs / 1000),
          currentDate: new Date(now()),
          requiredClaims: ['sub', 'aud', 'exp'],
        },
      ));
    } catch (error) {
      const expired = error instanceof joseErrors.JWTExpired;
      throw unauthorized(
        expired ? 'TOKEN_EXPIRED' : 'INVALID_TOKEN',
        expired ? 'The queue token has expired' : 'The queue token is not valid',
      );
    }
    const audience = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
    const match = AUDIENCE.exec(audience ?? '');
    const ticket = payload.tkt;
    if (
      !match ||
      typeof payload.sub !== 'string' ||
      typeof ticket !== 'number' ||
      !Number.isSafeInteger(ticket) ||
      ticket < 0
    ) {
      throw unauthorized('INVALID_TOKEN', 'The queue token is not valid');
    }
    const claims: QueueClaims = {
      customerId: payload.sub,
      showtimeId: match[1]!,
      ticket,
      expiresAtMs: payload.exp! * 1000,
    };
    cache.set(token, claims, claims.expiresAtMs);
    return claims;
  }

  /**
   * Synchronous verify (the poll fast path, and `verify`'s first step): the claims of a token
   * verified before, or, where `hmacSha256` is synchronous (Node), of a token in the exact form
   * `sign` makes whose signature checks out and which has not expired; undefined for anything
   * else, which `verify` then judges with its full refusal matrix. So it accepts a strict
   * subset of what `verify` accepts.
   */
  function verifyNow(token: string): QueueClaims | undefined {
    const cached = cache.get(token);
    if (cached) return cached;
    const hmac = options.hmacSha256;
    if (!hmac) return undefined;
    const parts = token.split('.');
    if (parts.length !== 3 || !parts.every((part) => BASE64URL.test(part))) return undefined;
    const header = parseJsonObject(parts[0]!);
    const payload = parseJsonObject(parts[1]!);
    if (!header || !payload || !hasOnlyKeys(header, HEADER_KEYS) || !hasOnlyKeys(payload, PAYLOAD_KEYS))
      return undefined;
    if (header.alg !== QUEUE_TOKEN_ALGORITHM || header.typ !== QUEUE_TOKEN_TYPE) return undefined;
    const key = keys.queueKeys.byKid.get(String(header.kid));
    if (!key || !constantTimeEquals(hmac(key, `${parts[0]}.${parts[1]}`), parts[2]!)) return undefined;
    const { sub, aud, exp, iat, iss, tkt } = payload;
    const match = typeof aud === 'string' ? AUDIENCE.exec(aud) : null;
    const nowMs = now();
    if (
      iss !== TOKEN_ISSUER ||
      typeof sub !== 'string' ||
      !match ||
      typeof tkt !== 'number' ||
      !Number.isSafeInteger(tkt) ||
      tkt < 0
    )
      return undefined;
    if (typeof exp !== 'number' || !Number.isSafeInteger(exp) || exp * 1000 <= nowMs) return undefined;
    if (typeof iat !== 'number' || iat * 1000 > nowMs + options.clockToleranceMs) return undefined;
    const claims: QueueClaims = { customerId: sub, showtimeId: match[1]!, ticket: tkt, expiresAtMs: exp * 1000 };
    cache.set(token, claims, claims.expiresAtMs);
    return claims;
  }

  /** Claims of a token verified before and not yet expired; undefined means "verify it". */
  const peekVerified = (token: string): QueueClaims | undefined => cache.get(token);

  return { sign, verify, verifyNow, peekVerified, ttlMs: options.ttlMs };
}

export type QueueTokens = ReturnType<typeof createQueueTokens>;
