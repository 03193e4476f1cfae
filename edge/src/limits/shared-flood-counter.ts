/**
 * The join's flood limit, shared by every edge process without a Redis call per join. Each
 * process counts requests per key (client address) in memory, in fixed windows aligned on
 * the clock so every process agrees where a window starts; every `flushMs` it adds what it
 * counted to one Redis hash per window, for all keys in one script call, and reads back the
 * totals of all processes. A key is refused once what is known of its total (every process's
 * as of the last flush, plus this process's since) passes the budget, and from then on from
 * memory until its window ends and at least a window long (rate-limiter-flexible's in-memory
 * block, which this replaces, did the same).
 *
 * Why not a store call per request (rate-limiter-flexible's RateLimiterRedis, used before):
 * at the opening every buyer joins once from their own address, so a per-request count was
 * a second Redis round trip on every join for a limit almost nobody reaches. The price is a
 * bound instead of an exact count: between two flushes each process lets a key through up to
 * the budget left at the last flush, so an address spraying N processes faster than the
 * flush can pass up to N × points in a window; on one process (one keep-alive connection
 * stays on one process) the count is exact. With Redis away the counts stay per process.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { FloodDecision, FloodLimiter } from './flood-limiter';

export interface SharedFloodCounterOptions {
  redis: Pick<Redis, 'evalsha' | 'eval'>;
  keyPrefix: string;
  points: number;
  windowMs: number;
  /** How often the counts meet in Redis (default 50 ms). */
  flushMs?: number;
  /** A key over its budget is refused from memory at least this long (default one window), as a flood should be. */
  blockMs?: number;
  maxKeys?: number;
  now?: () => number;
}

/** KEYS[1] the window's hash; ARGV[1] its TTL (ms), then key, count pairs. Returns the totals in order. */
const ADD_COUNTS = `
local totals = {}
for i = 2, #ARGV, 2 do totals[#totals + 1] = redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return totals`;
const ADD_COUNTS_SHA = createHash('sha1').update(ADD_COUNTS).digest('hex');

interface Slot {
  windowStartMs: number;
  /** Every process's count as of the last flush (this process's flushed part included). */
  known: number;
  /** Counted here since the last flush. */
  pending: number;
  blockedUntilMs: number;
}

export function createSharedFloodCounter(
  options: SharedFloodCounterOptions,
): FloodLimiter & { flush(): Promise<void>; close(): void } {
  const now = options.now ?? Date.now;
  const maxKeys = options.maxKeys ?? 200_000;
  const blockMs = options.blockMs ?? options.windowMs;
  const slots = new Map<string, Slot>();
  let dirty = new Set<string>();
  let flushing: Promise<void> | null = null;

  function decideNow(key: string): FloodDecision {
    const at = now();
    const windowStartMs = at - (at % options.windowMs);
    let slot = slots.get(key);
    if (slot && slot.blockedUntilMs > at) return { allowed: false, retryAfterMs: slot.blockedUntilMs - at };
    if (!slot || slot.windowStartMs !== windowStartMs) {
      if (!slot && slots.size >= maxKeys) slots.delete(slots.keys().next().value as string);
      slot = { windowStartMs, known: 0, pending: 0, blockedUntilMs: 0 };
      slots.set(key, slot);
    }
    if (slot.known + slot.pending >= options.points) {
      slot.blockedUntilMs = Math.max(windowStartMs + options.windowMs, at + blockMs);
      return { allowed: false, retryAfterMs: slot.blockedUntilMs - at };
    }
    slot.pending++;
    dirty.add(key);
    return { allowed: true, retryAfterMs: 0 };
  }

  async function flushWindow(windowStartMs: number, entries: [string, Slot, number][]) {
    const hash = `${options.keyPrefix}wr:edge:flood:${options.windowMs}:${windowStartMs}`;
    const args: (string | number)[] = [options.windowMs * 2 + 1_000];
    for (const [key, , count] of entries) args.push(key, count);
    let totals: unknown;
    try {
      totals = await options.redis.evalsha(ADD_COUNTS_SHA, 1, hash, ...args);
    } catch (error) {
      if (!String((error as Error)?.message).includes('NOSCRIPT')) throw error;
      totals = await options.redis.eval(ADD_COUNTS, 1, hash, ...args);
    }
    const list = totals as number[];
    entries.forEach(([, slot, count], i) => {
      if (slot.windowStartMs !== windowStartMs) return; // its window ended meanwhile
      slot.pending -= count;
      slot.known = Number(list[i]);
      if (slot.known >= options.points)
        slot.blockedUntilMs = Math.max(windowStartMs + options.windowMs, now() + blockMs);
    });
  }

  async function flushNow(): Promise<void> {
    if (dirty.size === 0) return;
    const keys = dirty;
    dirty = new Set();
    const byWindow = new Map<number, [string, Slot, number][]>();
    for (const key of keys) {
      const slot = slots.get(key);
      if (!slot || slot.pending <= 0) continue;
      const list = byWindow.get(slot.windowStartMs) ?? [];
      list.push([key, slot, slot.pending]);
      byWindow.set(slot.windowStartMs, list);
    }
    // Redis away: the counts stay in this process (its own limit still holds) and are not retried.
    await Promise.all([...byWindow].map(([start, entries]) => flushWindow(start, entries).catch(() => {})));
  }

  function flush(): Promise<void> {
    flushing ??= flushNow().finally(() => (flushing = null));
    return flushing;
  }

  const timer = setInterval(() => void flush(), options.flushMs ?? 50);
  timer.unref();

  return {
    consume: async (key) => decideNow(key),
    consumeNow: decideNow,
    flush,
    close: () => clearInterval(timer),
  };
}
