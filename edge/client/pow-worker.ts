/**
 * The proof-of-work solver as a Web Worker (served as /assets/pow-worker.js): counts nonces
 * up in batches, reporting progress after each, until SHA-256 of `<challenge>:<nonce>` has the
 * leading zero bits asked for. The page stays responsive; it terminates the worker when done.
 */
import { searchNonces } from './pow/sha256';

const BATCH = 10_000;

interface Job {
  challenge: string;
  difficulty: number;
}

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<Job>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = (event) => {
  const { challenge, difficulty } = event.data;
  for (let from = 0; from < 2 ** 40; from += BATCH) {
    const nonce = searchNonces(challenge, difficulty, from, BATCH);
    if (nonce !== null) {
      scope.postMessage({ type: 'solved', nonce, hashes: parseInt(nonce, 36) + 1 });
      return;
    }
    scope.postMessage({ type: 'progress', hashes: from + BATCH });
  }
};
