// @ts-check
/** `k6/crypto` for the shim: the one function the scripts use, on node:crypto. */
import { createHash } from 'node:crypto';

/** @param {string} input @param {'hex'|'base64'} encoding */
export function sha256(input, encoding) {
  return createHash('sha256').update(input).digest(encoding);
}

export default { sha256 };
