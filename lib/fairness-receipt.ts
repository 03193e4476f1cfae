/**
 * Join receipts: what the edge hands a buyer at the join, signed (ES256) with a key whose
 * public half it publishes as a JWKS (`GET /api/fairness/keys`), so anyone can check a
 * receipt later against the admission log without trusting the page that shows it.
 */
import { type CryptoKey, type JWK, SignJWT, importJWK, jwtVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';

/**
 * The public development key (like the development admin token: written here, so anyone can
 * sign with it). The edge refuses it in production or when reachable from other machines
 * (lib/secrets-policy.ts); set FAIRNESS_RECEIPT_KEY to a private EC P-256 JWK instead.
 */
export const DEV_FAIRNESS_RECEIPT_JWK: JWK = {
  kty: 'EC',
  crv: 'P-256',
  x: '5TCIzoSHmudCqSBDVQRZznW_tjc8ZXJjx8cTYzJrT54',
  y: 'Ps1ifovPBc3lq34ncRw4nVRocAzrF_6pKh-M5OO4WMc',
  d: 'sZRP2jxMgVvoonZdYSs3zM6zV87WRhZsoxQ5YsDY-Cs',
  kid: 'fairness-dev-1',
};

/** What a receipt says. */
export interface ReceiptClaims {
  showtimeId: string;
  /** The id the buyer queues under; the log holds it only salted and hashed. */
  customerId: string;
  /** Ticket issued at the join; 0 for the pre-queue, where the opening draw gives the rank. */
  rank: number;
  /** 'line' (rank is the join order) or 'prequeue' (the draw decides). */
  stage: 'line' | 'prequeue';
  joinedAtMs: number;
  kid: string;
}

const TYP = 'fairness-receipt+jwt';

export interface ReceiptSigner {
  readonly kid: string;
  sign(claims: Omit<ReceiptClaims, 'kid' | 'joinedAtMs'> & { joinedAtMs?: number }): Promise<string>;
  /** The public keys, as served at /api/fairness/keys. */
  jwks(): JSONWebKeySet;
}

/** Reads FAIRNESS_RECEIPT_KEY (a private EC P-256 JWK as JSON); throws with what is wrong. */
export function parseReceiptJwk(text: string): JWK {
  let jwk: JWK;
  try {
    jwk = JSON.parse(text) as JWK;
  } catch {
    throw new Error('FAIRNESS_RECEIPT_KEY must be a JWK in JSON');
  }
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.d || !jwk.x || !jwk.y) {
    throw new Error('FAIRNESS_RECEIPT_KEY must be a private EC P-256 JWK (kty EC, crv P-256, with x, y and d)');
  }
  return jwk;
}

/** The key is imported on first use (Web Crypto is asynchronous), so the edge builds synchronously. */
export function createReceiptSigner(jwk: JWK): ReceiptSigner {
  const kid = jwk.kid ?? 'fairness-1';
  let key: Promise<CryptoKey> | null = null;
  const publicJwk: JWK = { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, kid, alg: 'ES256', use: 'sig' };
  return {
    kid,
    async sign(claims) {
      key ??= importJWK({ ...jwk, alg: 'ES256' }, 'ES256') as Promise<CryptoKey>;
      const body = { ...claims, joinedAtMs: claims.joinedAtMs ?? Date.now() };
      return new SignJWT({ ...body })
        .setProtectedHeader({ alg: 'ES256', kid, typ: TYP })
        .setIssuedAt(Math.floor(body.joinedAtMs / 1000))
        .sign(await key);
    },
    jwks: () => ({ keys: [publicJwk] }),
  };
}

export type ReceiptCheck = { ok: true; claims: ReceiptClaims } | { ok: false; reason: string };

/** Checks a receipt's signature against a JWKS and reads its claims. */
export async function verifyReceipt(receipt: string, jwks: JSONWebKeySet): Promise<ReceiptCheck> {
  try {
    const { payload, protectedHeader } = await jwtVerify(receipt.trim(), createLocalJWKSet(jwks), {
      algorithms: ['ES256'],
      typ: TYP,
    });
    const p = payload as Record<string, unknown>;
    if (
      typeof p.showtimeId !== 'string' ||
      typeof p.customerId !== 'string' ||
      typeof p.rank !== 'number' ||
      (p.stage !== 'line' && p.stage !== 'prequeue') ||
      typeof p.joinedAtMs !== 'number'
    ) {
      return { ok: false, reason: 'the receipt is signed but does not carry the fields of a receipt' };
    }
    return {
      ok: true,
      claims: {
        showtimeId: p.showtimeId,
        customerId: p.customerId,
        rank: p.rank,
        stage: p.stage,
        joinedAtMs: p.joinedAtMs,
        kid: String(protectedHeader.kid ?? ''),
      },
    };
  } catch (error) {
    return { ok: false, reason: `the receipt's signature does not check out (${(error as Error).message})` };
  }
}
