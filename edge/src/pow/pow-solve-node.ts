/**
 * The client side of the join's proof of work, for Node callers (tests, the benchmark, the
 * journey harness): count nonces up from 0 until SHA-256 of `<challenge>:<nonce>` starts with
 * enough zero bits. Expected work is 2^difficulty hashes. The browser's solver is the waiting
 * page's Web Worker (edge/client).
 */
import { createHash } from 'node:crypto';
import { leadingZeroBits } from './pow-challenge';

export interface PowSolution {
  nonce: string;
  hashes: number;
}

export function solvePow(challenge: string, difficulty: number, maxHashes = 2 ** 32): PowSolution {
  const prefix = `${challenge}:`;
  for (let n = 0; n < maxHashes; n++) {
    const nonce = n.toString(36);
    if (
      leadingZeroBits(
        createHash('sha256')
          .update(prefix + nonce)
          .digest(),
      ) >= difficulty
    )
      return { nonce, hashes: n + 1 };
  }
  throw new Error(`no solution within ${maxHashes} hashes`);
}

/** The headers a solved join is sent again with. */
export const powHeaders = (challenge: string, nonce: string) => ({
  'x-pow-challenge': challenge,
  'x-pow-nonce': nonce,
});
