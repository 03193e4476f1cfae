/**
 * Verified token claims remembered until the token expires, so a buyer polling every second
 * costs one jose verify per token, not one per poll. Keyed by the whole token string: a
 * token that differs by one byte is a different key and gets verified.
 */
export interface ClaimsCache<T> {
  get(token: string): T | undefined;
  set(token: string, claims: T, expiresAtMs: number): void;
  readonly size: number;
}

export function createClaimsCache<T>(
  options: { maxEntries?: number; now?: () => number; toleranceMs?: number } = {},
): ClaimsCache<T> {
  const maxEntries = options.maxEntries ?? 100_000;
  const now = options.now ?? Date.now;
  const toleranceMs = options.toleranceMs ?? 0;
  const entries = new Map<string, { claims: T; expiresAtMs: number }>();
  return {
    get(token) {
      const entry = entries.get(token);
      if (!entry) return undefined;
      if (entry.expiresAtMs + toleranceMs > now()) return entry.claims;
      entries.delete(token);
      return undefined;
    },
    set(token, claims, expiresAtMs) {
      // Oldest first out: a Map iterates in insertion order, which is a fair FIFO here.
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
      entries.set(token, { claims, expiresAtMs });
    },
    get size() {
      return entries.size;
    },
  };
}
