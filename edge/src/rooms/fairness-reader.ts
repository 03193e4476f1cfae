/**
 * The published admission log, read from the core. An ended sale's log (large, and final but for
 * late leaves) goes through a one-second single-flight cache per showtime, so a crowd refreshing
 * after a sale (or the "Check my place" page) costs the core one read a second. A live answer
 * (the head: small) is never cached, so the moment a sale ends is seen at once.
 */
import type { CoreClient } from '../core-client';
import { createSingleFlightCache } from '../state/single-flight-cache';

export interface FairnessAnswer {
  status: number;
  body: unknown;
}

export function createFairnessReader(core: CoreClient, options: { ttlMs?: number } = {}) {
  const cache = createSingleFlightCache<FairnessAnswer>({ ttlMs: options.ttlMs ?? 1_000, maxEntries: 1_000 });
  return {
    /** The core's answer (status and JSON body); throws when the core cannot be reached. */
    async read(showtimeId: string): Promise<FairnessAnswer> {
      const kept = cache.peek(showtimeId);
      if (kept) return kept;
      const answer = await core.getJson(`/showtimes/${showtimeId}/fairness`);
      const ended = answer.status === 200 && (answer.body as { ended?: unknown } | null)?.ended === true;
      // Single flight from here: concurrent readers of an ended log share the next load.
      return ended ? (await cache.get(showtimeId, async () => answer)).value : answer;
    },
  };
}

export type FairnessReader = ReturnType<typeof createFairnessReader>;
