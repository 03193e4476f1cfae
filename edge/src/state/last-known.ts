/**
 * The last answer a slow dependency gave, for views that must answer within a budget whatever
 * the dependency does: the operator's room view while the core is stalled is the case in point.
 *
 * A read starts the load (one at a time per key: a stalled core is not asked again by every
 * refresh) and waits for it at most `budgetMs`. In time: the fresh value. Not in time, or
 * failed: the last value this process saw (or null), saying since when it has not had a fresh
 * one and why; the load that is still running updates the value when it ends. A refusal that
 * is the caller's fault (a 4xx, e.g. an unknown showtime) is passed on, not hidden.
 */
import { isAppError } from '../../../lib/errors';

export interface LastKnownRead<T> {
  value: T | null;
  /** False: `value` is the last one seen (or null), not from this read. */
  fresh: boolean;
  /** When the dependency last answered for this key (ms since the epoch), null: never in this process. */
  answeredAtMs: number | null;
  /** Since when reads have not had a fresh answer, null when fresh. */
  staleSinceMs: number | null;
  /** Why not fresh: 'slow' (no answer within the budget) or 'unavailable' (it failed). */
  reason: 'slow' | 'unavailable' | null;
}

export interface LastKnownOptions {
  budgetMs: number;
  now?: () => number;
  /** Keys kept at most (the oldest is dropped). */
  maxKeys?: number;
}

interface Entry<T> {
  value: T | null;
  answeredAtMs: number | null;
  staleSinceMs: number | null;
  reason: 'slow' | 'unavailable' | null;
  pending: Promise<T> | null;
}

const passedOn = (error: unknown) => isAppError(error) && error.status < 500;

export function createLastKnown<T>(options: LastKnownOptions) {
  const now = options.now ?? Date.now;
  const maxKeys = options.maxKeys ?? 10_000;
  const entries = new Map<string, Entry<T>>();

  function entryOf(key: string): Entry<T> {
    let entry = entries.get(key);
    if (!entry) {
      if (entries.size >= maxKeys) entries.delete(entries.keys().next().value as string);
      entry = { value: null, answeredAtMs: null, staleSinceMs: null, reason: null, pending: null };
      entries.set(key, entry);
    }
    return entry;
  }

  function start(entry: Entry<T>, load: () => Promise<T>): Promise<T> {
    if (entry.pending) return entry.pending;
    const startedAtMs = now();
    const pending = load().then(
      (value) => {
        Object.assign(entry, { value, answeredAtMs: now(), staleSinceMs: null, reason: null });
        return value;
      },
      (error: unknown) => {
        if (!passedOn(error))
          Object.assign(entry, { staleSinceMs: entry.staleSinceMs ?? startedAtMs, reason: 'unavailable' });
        throw error;
      },
    );
    entry.pending = pending;
    void pending
      .catch(() => {})
      .finally(() => {
        if (entry.pending === pending) entry.pending = null;
      });
    return pending;
  }

  const stale = (entry: Entry<T>): LastKnownRead<T> => ({
    value: entry.value,
    fresh: false,
    answeredAtMs: entry.answeredAtMs,
    staleSinceMs: entry.staleSinceMs,
    reason: entry.reason,
  });

  return {
    async read(key: string, load: () => Promise<T>): Promise<LastKnownRead<T>> {
      const entry = entryOf(key);
      const askedAtMs = now();
      const pending = start(entry, load);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), options.budgetMs);
      });
      try {
        const value = await Promise.race([pending, late]);
        if (value === 'late') {
          if (entry.staleSinceMs === null) Object.assign(entry, { staleSinceMs: askedAtMs, reason: 'slow' });
          return stale(entry);
        }
        return { value, fresh: true, answeredAtMs: entry.answeredAtMs, staleSinceMs: null, reason: null };
      } catch (error) {
        if (passedOn(error)) throw error;
        return stale(entry);
      } finally {
        clearTimeout(timer);
      }
    },
    /** Starts a load if none is running, without waiting for it (a live stream's refresh). */
    refresh(key: string, load: () => Promise<T>): void {
      void start(entryOf(key), load).catch(() => {});
    },
    /** What is known now, without asking. */
    peek(key: string): LastKnownRead<T> {
      const entry = entries.get(key);
      if (!entry) return { value: null, fresh: false, answeredAtMs: null, staleSinceMs: null, reason: null };
      return { ...stale(entry), fresh: entry.staleSinceMs === null && entry.answeredAtMs !== null };
    },
  };
}

export type LastKnown<T> = ReturnType<typeof createLastKnown<T>>;
