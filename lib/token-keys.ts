import {
  base64url,
  exportJWK,
  generateKeyPair,
  importJWK,
  createLocalJWKSet,
  type CryptoKey,
  type JWK,
  type JSONWebKeySet,
} from 'jose';

/** ES256 only: small signatures, native in WebCrypto on Node and Workers. */
export const TOKEN_ALGORITHM = 'ES256';
/**
 * Queue tokens are read only by the edge that issued them (or its siblings sharing the
 * signing key), so they are signed with HMAC: ~40x cheaper than ES256 on the join path.
 */
export const QUEUE_TOKEN_ALGORITHM = 'HS256';

/** Symmetric queue-token keys by `kid`, derived from the private signing JWKs the edge holds. */
export interface QueueTokenKeys {
  signing: { kid: string; key: Uint8Array } | null;
  byKid: ReadonlyMap<string, Uint8Array>;
}

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
}

export interface TokenKeyMaterial {
  /** Signs new tokens (absent on services that only verify, such as the core). */
  signing: SigningKey | null;
  /** Public keys accepted for verification, current and previous (rotation by `kid`). */
  publicJwks: JSONWebKeySet;
  resolveKey: ReturnType<typeof createLocalJWKSet>;
  queueKeys: QueueTokenKeys;
}

/**
 * HKDF-SHA256 of the private scalar, bound to the kid: every edge process holding the same
 * signing key derives the same queue key, and no new secret needs distributing. WebCrypto,
 * so the same on Node and Workers.
 */
async function deriveQueueKey(jwk: JWK & { kid: string; d: string }): Promise<Uint8Array> {
  const encode = (text: string) => new TextEncoder().encode(text);
  const secret = Uint8Array.from(base64url.decode(jwk.d));
  const material = await crypto.subtle.importKey('raw', secret, 'HKDF', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    { name: 'HKDF', hash: 'SHA-256', salt: encode('wr-queue-token/v1'), info: encode(jwk.kid) },
    material,
    256,
  );
  return new Uint8Array(bits);
}

const hasPrivatePart = (jwk: JWK): jwk is JWK & { kid: string; d: string } =>
  typeof jwk.d === 'string' && typeof jwk.kid === 'string';

function publicPart(jwk: JWK): JWK {
  const { d: _private, ...rest } = jwk;
  return { ...rest, alg: TOKEN_ALGORITHM, use: 'sig' };
}

/**
 * Builds key material from JWK JSON. `signingJwk` is the private key (with a `kid`) of a
 * service that issues tokens; `extraPublicJwks` are older keys still accepted during rotation.
 * Keys are imported once, at start, never per request.
 */
export async function loadTokenKeys(options: {
  signingJwk?: JWK | null;
  publicJwks?: JWK[];
}): Promise<TokenKeyMaterial> {
  const publicKeys: JWK[] = [...(options.publicJwks ?? [])].map(publicPart);
  let signing: SigningKey | null = null;
  if (options.signingJwk) {
    const kid = options.signingJwk.kid;
    if (!kid) throw new Error('The token signing key needs a "kid"');
    const privateKey = (await importJWK({ ...options.signingJwk, alg: TOKEN_ALGORITHM }, TOKEN_ALGORITHM)) as CryptoKey;
    signing = { kid, privateKey };
    if (!publicKeys.some((key) => key.kid === kid)) publicKeys.unshift(publicPart(options.signingJwk));
  }
  if (publicKeys.length === 0) throw new Error('No public key to verify tokens with');
  const publicJwks: JSONWebKeySet = { keys: publicKeys };
  // Queue keys: the signing key's, and those of previous private keys listed for rotation
  // (only their public part is ever published).
  const byKid = new Map<string, Uint8Array>();
  for (const jwk of [options.signingJwk, ...(options.publicJwks ?? [])]) {
    if (jwk && hasPrivatePart(jwk) && !byKid.has(jwk.kid)) byKid.set(jwk.kid, await deriveQueueKey(jwk));
  }
  const queueSigning = signing ? { kid: signing.kid, key: byKid.get(signing.kid)! } : null;
  return {
    signing,
    publicJwks,
    resolveKey: createLocalJWKSet(publicJwks),
    queueKeys: { signing: queueSigning, byKid },
  };
}

/** A fresh key pair as JWKs, for development and tests. */
export async function generateSigningJwk(kid = `dev-${Date.now().toString(36)}`): Promise<JWK> {
  const { privateKey } = await generateKeyPair(TOKEN_ALGORITHM, { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: TOKEN_ALGORITHM };
}

/** Parses `TOKEN_SIGNING_KEY` (one private JWK) or `TOKEN_PUBLIC_JWKS` (a JWKS or a JWK list). */
export function parseJwkJson(text: string): JWK[] {
  const parsed = JSON.parse(text) as JWK | JWK[] | JSONWebKeySet;
  if (Array.isArray(parsed)) return parsed;
  if ('keys' in parsed && Array.isArray(parsed.keys)) return parsed.keys as JWK[];
  return [parsed as JWK];
}
