import { exportJWK, generateKeyPair, importJWK, createLocalJWKSet, type JWK, type JSONWebKeySet } from 'jose';

/** ES256 only: small signatures, native in WebCrypto on Node and Workers. */
export const TOKEN_ALGORITHM = 'ES256';

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
}

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
  return { signing, publicJwks, resolveKey: createLocalJWKSet(publicJwks) };
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
