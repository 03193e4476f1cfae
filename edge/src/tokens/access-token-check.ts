/**
 * The access-token verifier the core uses (lib/access-token.ts: ES256 only, typ, issuer,
 * audience, cached claims), behind a header pre-check. A token whose header already names
 * another algorithm or type is refused without entering jose: no verify cost for junk, and
 * in workerd a jose "alg not allowed" rejection otherwise surfaces as unhandled.
 */
import { decodeProtectedHeader } from 'jose';
import { ACCESS_TOKEN_TYPE, createAccessTokenVerifier, type AccessClaims } from '../../../lib/access-token';
import { unauthorized } from '../../../lib/errors';
import { TOKEN_ALGORITHM, type TokenKeyMaterial } from '../../../lib/token-keys';

export function createEdgeAccessVerifier(
  keys: TokenKeyMaterial,
  options: { clockToleranceSeconds: number; now?: () => number },
) {
  const verify = createAccessTokenVerifier(keys, options);
  return async function verifyAccessToken(token: string): Promise<AccessClaims> {
    let header;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw unauthorized('INVALID_TOKEN', 'The access token is not valid');
    }
    if (header.alg !== TOKEN_ALGORITHM || header.typ !== ACCESS_TOKEN_TYPE || typeof header.kid !== 'string') {
      throw unauthorized('INVALID_TOKEN', 'The access token is not valid');
    }
    return verify(token);
  };
}
