import { loadOrCreateDevSigningJwk } from './dev-keys';
import { loadTokenKeys, parseJwkJson, type TokenKeyMaterial } from './token-keys';

/**
 * Key material from configuration: TOKEN_SIGNING_KEY (a private JWK: the edge signs with it)
 * and/or TOKEN_PUBLIC_JWKS (keys accepted when verifying, e.g. the previous key during a
 * rotation). With neither, development keys are generated once into .data/ and shared.
 */
export async function resolveTokenKeys(config: {
  tokenSigningKey: string | null;
  tokenPublicJwks: string | null;
}): Promise<TokenKeyMaterial> {
  const publicJwks = config.tokenPublicJwks ? parseJwkJson(config.tokenPublicJwks) : [];
  if (config.tokenSigningKey) {
    const [signingJwk] = parseJwkJson(config.tokenSigningKey);
    return loadTokenKeys({ signingJwk: signingJwk ?? null, publicJwks });
  }
  if (publicJwks.length > 0) return loadTokenKeys({ publicJwks });
  return loadTokenKeys({ signingJwk: await loadOrCreateDevSigningJwk() });
}
