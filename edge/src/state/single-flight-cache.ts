/**
 * A short-lived cache where concurrent misses for one key share a single load: a thousand
 * simultaneous seat-map reads cost the core one query. When a reload fails, a value no
 * older than `staleForMs` is served instead (seat maps while the core is down).
 */
export type CacheSource = 'loaded' | 'cached' | 'stale';

export interface CachedValue<T> {
  value: T;
  source: CacheSource;
  loadedAtMs: number;
}

export interface SingleFlightCacheOptions {
  ttlMs: number;
  staleForMs?: number;
  maxEntries?: number;
  now?: () => number;
}

export function createSingleFlightCache<T>(options: SingleFlightCacheOptions) {
  const now = options.now ?? Date.now;
  const staleForMs = options.staleForMs ?? 0;
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, { value: T; loadedAtMs: number }>();
  const inFlight = new Map<string, Promise<CachedValue<T>>>();

  async function load(key: string, loader: () => Promise<T>): Promise<CachedValue<T>> {
    try {
      const value = await loader();
      const loadedAtMs = now();
      if (!entries.has(key) && entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
      entries.set(key, { value, loadedAtMs });
      return { value, source: 'loaded', loadedAtMs };
    } catch (error) {
      const previous = entries.get(key);
      if (previous && now() - previous.loadedAtMs <= staleForMs) return { ...previous, source: 'stale' };
      throw error;
    }
  }

  return {
    async get(key: string, loader: () => Promise<T>): Promise<CachedValue<T>> {
      const entry = entries.get(key);
      if (entry && now() - entry.loadedAtMs < options.ttlMs) return { ...entry, source: 'cached' };
      const running = inFlight.get(key);
      if (running) return running;
      const started = load(key, loader).finally(() => inFlight.delete(key));
      inFlight.set(key, started);
      return started;
    },
    /** The value if it is fresh, without loading: for callers that must not wait. */
    peek(key: string): T | undefined {
      const entry = entries.get(key);
      return entry && now() - entry.loadedAtMs < options.ttlMs ? entry.value : undefined;
    },
    /**
     * `peek`, and when the value is missing, expired or older than `refreshAfterMs` a load
     * starts in the background, shared with any `get`: callers that must not wait keep getting
     * the fresh value while its successor loads, instead of all missing together the moment it
     * expires, and the next caller finds one where there was none. A failed background load is
     * left to the next `get` to report.
     */
    peekRefreshing(key: string, loader: () => Promise<T>, refreshAfterMs: number): T | undefined {
      const entry = entries.get(key);
      const age = entry ? now() - entry.loadedAtMs : Number.POSITIVE_INFINITY;
      if (age >= refreshAfterMs && !inFlight.has(key)) {
        const started = load(key, loader).finally(() => inFlight.delete(key));
        inFlight.set(key, started);
        started.catch(() => {});
      }
      return age < options.ttlMs ? entry!.value : undefined;
    },
    /** Drops a key so the next read loads (after a settings change, a sold-out event). */
    invalidate(key: string) {
      entries.delete(key);
    },
  };
}
