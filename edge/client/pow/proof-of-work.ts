/**
 * The join's proof of work on the page. When the edge answers a join 428 with a challenge,
 * the challenge is solved in a Web Worker (pow-worker.ts) while the page shows progress, and
 * the join is sent again with X-Pow-Challenge and X-Pow-Nonce. Without Workers the page
 * solves it itself in short slices, so it never freezes.
 */
import type { ApiResult } from '../core/api';
import { searchNonces } from './sha256';

export const POW_WORKER_URL = '/assets/pow-worker.js';

/** 0-99: how far along the expected 2^difficulty hashes the search is (it may finish early or late). */
export const progressShare = (hashes: number, difficulty: number) =>
  Math.min(99, Math.floor((hashes / 2 ** difficulty) * 100));

function solveOnPage(challenge: string, difficulty: number, onProgress: (hashes: number) => void): Promise<string> {
  return new Promise((resolve) => {
    let from = 0;
    const slice = () => {
      const nonce = searchNonces(challenge, difficulty, from, 2_000);
      if (nonce !== null) return resolve(nonce);
      from += 2_000;
      onProgress(from);
      setTimeout(slice, 0);
    };
    slice();
  });
}

/** The nonce that solves the challenge, from a Worker when the browser has them. */
export function solveChallenge(
  challenge: string,
  difficulty: number,
  onProgress: (hashes: number) => void,
  workerUrl = POW_WORKER_URL,
): Promise<string> {
  if (typeof Worker === 'undefined') return solveOnPage(challenge, difficulty, onProgress);
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(workerUrl);
    } catch {
      resolve(solveOnPage(challenge, difficulty, onProgress));
      return;
    }
    worker.onmessage = (event: MessageEvent<{ type: string; nonce?: string; hashes: number }>) => {
      if (event.data.type === 'progress') return onProgress(event.data.hashes);
      worker.terminate();
      resolve(event.data.nonce!);
    };
    worker.onerror = () => {
      worker.terminate();
      resolve(solveOnPage(challenge, difficulty, onProgress));
    };
    worker.postMessage({ challenge, difficulty });
  });
}

interface Challenge {
  challenge?: string;
  difficulty?: number;
}

/**
 * Sends the join; while the answer is 428 with a challenge (at most three rounds: a solution
 * can expire or the room raise its price meanwhile), solves it and sends the join again.
 * `onWork` hears the share done (0-99) while solving, and null when the work is over.
 */
export async function joinWithProofOfWork<T>(
  join: (headers: Record<string, string>) => Promise<ApiResult<T>>,
  onWork: (share: number | null) => void,
): Promise<ApiResult<T>> {
  let result = await join({});
  for (let round = 0; round < 3 && result.status === 428; round++) {
    const { challenge, difficulty } = (result.json ?? {}) as Challenge;
    if (typeof challenge !== 'string' || typeof difficulty !== 'number') break;
    onWork(0);
    const nonce = await solveChallenge(challenge, difficulty, (hashes) => onWork(progressShare(hashes, difficulty)));
    result = await join({ 'x-pow-challenge': challenge, 'x-pow-nonce': nonce });
  }
  onWork(null);
  return result;
}
