/**
 * The small shared state the edge's defences need: fixed-window counters (demo logins,
 * wrong admin tokens), one-time marks (spent proof-of-work challenges) and console
 * sessions. Shared through Redis (ioredis on Node, Upstash REST on Workers) so every edge
 * process sees the same counts and sessions; in process memory for the embedded stack.
 * Every operation is one Redis round trip.
 */
import { AppError } from '../../../lib/errors';
import type { RedisCommand } from './edge-store';

export interface GuardStore {
  /**
   * Counts one hit in the key's fixed window (started by the first hit); returns the count so
   * far, this hit included. Atomic (one script in Redis, one synchronous step in memory): a
   * limit decided on this return value holds under concurrency, one decided on an earlier
   * `count()` read does not (login-lockout.ts).
   */
  hit(key: string, windowMs: number): Promise<number>;
  /** The count of the key's current window (0 when none). */
  count(key: string): Promise<number>;
  /** True the first time a key is marked; false while that mark lives. */
  markOnce(key: string, ttlMs: number): Promise<boolean>;
  put(key: string, value: string, ttlMs: number): Promise<void>;
  get(key: string): Promise<string | null>;
  delete(key: string): Promise<void>;
}

// INCR, and start the window on the first hit, in one atomic call.
const HIT_SCRIPT =
  "local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return n";

export function createRedisGuardStore(redisCommand: RedisCommand, prefix = ''): GuardStore {
  const key = (name: string) => `${prefix}wr:edge:guard:${name}`;
  // Redis down: the caller answers 503 with Retry-After, never 500.
  const command = (args: string[]) =>
    redisCommand(args).catch((error: unknown) => {
      throw new AppError('STORE_UNAVAILABLE', 'The edge store is briefly unavailable; try again shortly', {
        retryAfterSeconds: 5,
        cause: error,
      });
    });
  return {
    async hit(name, windowMs) {
      return Number(await command(['EVAL', HIT_SCRIPT, '1', key(name), String(Math.max(1, Math.round(windowMs)))]));
    },
    async count(name) {
      const reply = await command(['GET', key(name)]);
      return reply === null || reply === undefined ? 0 : Number(reply);
    },
    async markOnce(name, ttlMs) {
      return (await command(['SET', key(name), '1', 'NX', 'PX', String(Math.max(1, Math.round(ttlMs)))])) === 'OK';
    },
    async put(name, value, ttlMs) {
      await command(['SET', key(name), value, 'PX', String(Math.max(1, Math.round(ttlMs)))]);
    },
    async get(name) {
      const reply = await command(['GET', key(name)]);
      return reply === null || reply === undefined ? null : String(reply);
    },
    async delete(name) {
      await command(['DEL', key(name)]);
    },
  };
}

/** One process's memory (embedded `npm start`, tests without Redis). Bounded: oldest keys go first. */
export function createMemoryGuardStore(options: { now?: () => number; maxKeys?: number } = {}): GuardStore {
  const now = options.now ?? Date.now;
  const maxKeys = options.maxKeys ?? 200_000;
  const entries = new Map<string, { value: string; expiresAtMs: number }>();
  const live = (name: string) => {
    const entry = entries.get(name);
    if (entry && entry.expiresAtMs > now()) return entry;
    if (entry) entries.delete(name);
    return undefined;
  };
  const set = (name: string, value: string, ttlMs: number) => {
    if (!entries.has(name) && entries.size >= maxKeys) entries.delete(entries.keys().next().value as string);
    entries.set(name, { value, expiresAtMs: now() + ttlMs });
  };
  return {
    async hit(name, windowMs) {
      const entry = live(name);
      if (!entry) {
        set(name, '1', windowMs);
        return 1;
      }
      entry.value = String(Number(entry.value) + 1);
      return Number(entry.value);
    },
    async count(name) {
      return Number(live(name)?.value ?? 0);
    },
    async markOnce(name, ttlMs) {
      if (live(name)) return false;
      set(name, '1', ttlMs);
      return true;
    },
    async put(name, value, ttlMs) {
      set(name, value, ttlMs);
    },
    async get(name) {
      return live(name)?.value ?? null;
    },
    async delete(name) {
      entries.delete(name);
    },
  };
}
