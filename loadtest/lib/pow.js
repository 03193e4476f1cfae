// @ts-check
/**
 * The join's proof of work, for every load generator (k6 scripts, the Node harness): the edge
 * answers a join 428 with `challenge` and `difficulty`; the buyer counts nonces up until
 * SHA-256 of `<challenge>:<nonce>` starts with that many zero bits, then joins again with
 * X-Pow-Challenge and X-Pow-Nonce. The hash comes from the runtime (k6/crypto, node:crypto).
 */

/** Leading zero bits of a hex digest. @param {string} hex */
export function zeroBitsOfHex(hex) {
  let bits = 0;
  for (let i = 0; i < hex.length; i++) {
    const nibble = parseInt(hex.charAt(i), 16);
    if (nibble === 0) {
      bits += 4;
      continue;
    }
    return bits + (nibble < 2 ? 3 : nibble < 4 ? 2 : nibble < 8 ? 1 : 0);
  }
  return bits;
}

/**
 * @param {string} challenge @param {number} difficulty @param {(text: string) => string} sha256Hex
 * @returns {{ nonce: string, hashes: number }}
 */
export function solvePow(challenge, difficulty, sha256Hex) {
  for (let n = 0; ; n++) {
    const nonce = n.toString(36);
    if (zeroBitsOfHex(sha256Hex(`${challenge}:${nonce}`)) >= difficulty) return { nonce, hashes: n + 1 };
  }
}
