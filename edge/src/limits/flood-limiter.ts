/**
 * Flood limits per client address on join and poll. The port is one method returning a
 * decision (never a rejection); Node shares join counts across its processes through Redis in
 * batches (node-flood-limiter.ts), Workers and the embedded stack use the in-memory limiter below.
 */
export interface FloodDecision {
  allowed: boolean;
  retryAfterMs: number;
}

export interface FloodLimiter {
  consume(key: string): Promise<FloodDecision>;
  /** The same decision without a promise, where the count lives in this process (else undefined). */
  consumeNow?(key: string): FloodDecision | undefined;
}

export interface MemoryFloodLimiterOptions {
  points: number;
  windowMs: number;
  /** Keys over the limit are refused from memory for this long (hot keys stay off any store). */
  blockMs?: number;
  maxKeys?: number;
  now?: () => number;
}

/** Fixed window per key, in process memory: per isolate on Workers, per process on Node. */
export function createMemoryFloodLimiter(options: MemoryFloodLimiterOptions): FloodLimiter {
  const now = options.now ?? Date.now;
  const maxKeys = options.maxKeys ?? 100_000;
  const windows = new Map<string, { startedAtMs: number; used: number; blockedUntilMs: number }>();
  function decideNow(key: string): FloodDecision {
    const at = now();
    let slot = windows.get(key);
    if (slot && slot.blockedUntilMs > at) return { allowed: false, retryAfterMs: slot.blockedUntilMs - at };
    if (!slot || at - slot.startedAtMs >= options.windowMs) {
      if (!slot && windows.size >= maxKeys) windows.delete(windows.keys().next().value as string);
      slot = { startedAtMs: at, used: 0, blockedUntilMs: 0 };
      windows.set(key, slot);
    }
    slot.used++;
    if (slot.used <= options.points) return { allowed: true, retryAfterMs: 0 };
    const windowEndsMs = slot.startedAtMs + options.windowMs;
    slot.blockedUntilMs = Math.max(windowEndsMs, at + (options.blockMs ?? 0));
    return { allowed: false, retryAfterMs: slot.blockedUntilMs - at };
  }
  return {
    consume: async (key) => decideNow(key),
    consumeNow: decideNow,
  };
}
