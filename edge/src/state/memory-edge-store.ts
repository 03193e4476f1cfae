/**
 * The edge's keys in process memory, for the embedded `npm start` (no Redis). The booking
 * event stream is an array here: an in-process relay appends with `publishEvent`.
 */
import type { EdgeStore, StreamEntry } from './edge-store';

export interface MemoryEdgeStore extends EdgeStore {
  /** XADD for the in-process stream; returns the entry id. */
  publishEvent(fields: string[]): string;
}

export function createMemoryEdgeStore(now: () => number = Date.now): MemoryEdgeStore {
  const stream: StreamEntry[] = [];
  const cursors = new Map<string, string>();
  const seen = new Map<string, number>();
  let sequence = 0;

  const compareIds = (a: string, b: string) => {
    const [am = 0, as = 0] = a.split('-').map(Number);
    const [bm = 0, bs = 0] = b.split('-').map(Number);
    return am - bm || as - bs;
  };

  return {
    async readEvents(afterId, count) {
      return stream.filter((entry) => compareIds(entry.id, afterId) > 0).slice(0, count);
    },
    async getCursor(consumer) {
      return cursors.get(consumer) ?? null;
    },
    async setCursor(consumer, id) {
      cursors.set(consumer, id);
    },
    async markSeen(eventId, ttlMs) {
      const until = seen.get(eventId);
      if (until !== undefined && until > now()) return false;
      seen.set(eventId, now() + ttlMs);
      return true;
    },
    async forgetSeen(eventId) {
      seen.delete(eventId);
    },
    async lastEventId() {
      return stream.at(-1)?.id ?? '0-0';
    },
    // The in-process stream lives and dies with the relay that feeds it: nothing to ask for.
    async requestRepublish() {},
    async ping() {},
    publishEvent(fields) {
      const id = `${now()}-${sequence++}`;
      stream.push({ id, fields: [...fields] });
      return id;
    },
  };
}
