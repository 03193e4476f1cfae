/**
 * Node's synchronous HMAC-SHA-256 for queue tokens (queue-token.ts `hmacSha256`): node:crypto
 * over the same derived key bytes, turned into a key object once per key.
 */
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

export function nodeHmacSha256(): (key: Uint8Array, input: string) => string {
  const keyObjects = new WeakMap<Uint8Array, KeyObject>();
  return (key, input) => {
    let keyObject = keyObjects.get(key);
    if (!keyObject) {
      keyObject = createSecretKey(key);
      keyObjects.set(key, keyObject);
    }
    return createHmac('sha256', keyObject).update(input).digest('base64url');
  };
}
