/**
 * The few Redis data types the room scripts use, in process memory, with lazy key expiry.
 * Values are strings in hashes, as in Redis.
 */
import { SortedSet } from './sorted-set';

type Value = Map<string, string> | SortedSet | Set<string> | string[];

/**
 * Redis parses an index, count, increment or TTL as a 64-bit integer and refuses anything
 * else ("3.5", "inf"): a script that computes one from a fractional rate fails there. The
 * twin refuses the same arguments, so a test on the in-process store sees what Redis would.
 */
export function redisInteger(value: number): number {
  if (!Number.isSafeInteger(value)) throw new Error('ERR value is not an integer or out of range');
  return value;
}

export class MiniRedis {
  private readonly data = new Map<string, Value>();
  private readonly expiresAtMs = new Map<string, number>();

  constructor(private readonly clock: () => number = Date.now) {}

  now(): number {
    return this.clock();
  }

  private live(key: string): Value | undefined {
    const expiry = this.expiresAtMs.get(key);
    if (expiry !== undefined && expiry <= this.clock()) {
      this.data.delete(key);
      this.expiresAtMs.delete(key);
    }
    return this.data.get(key);
  }

  private typed<T extends Value>(key: string, make: () => T, is: (v: Value) => v is T): T {
    const existing = this.live(key);
    if (existing === undefined) {
      const created = make();
      this.data.set(key, created);
      return created;
    }
    if (!is(existing)) throw new Error('WRONGTYPE Operation against a key holding the wrong kind of value');
    return existing;
  }

  /** A hash, created empty on first write (an empty one reads as missing). */
  hash(key: string): Map<string, string> {
    return this.typed(
      key,
      () => new Map<string, string>(),
      (v): v is Map<string, string> => v instanceof Map,
    );
  }

  zset(key: string): SortedSet {
    return this.typed(
      key,
      () => new SortedSet(),
      (v): v is SortedSet => v instanceof SortedSet,
    );
  }

  set(key: string): Set<string> {
    return this.typed(
      key,
      () => new Set<string>(),
      (v): v is Set<string> => v instanceof Set,
    );
  }

  /** A list, created empty on first write. */
  list(key: string): string[] {
    return this.typed(
      key,
      () => [] as string[],
      (v): v is string[] => Array.isArray(v),
    );
  }

  hget(key: string, field: string): string | undefined {
    return this.hash(key).get(field);
  }

  hnum(key: string, field: string): number | undefined {
    const value = this.hget(key, field);
    return value === undefined ? undefined : Number(value);
  }

  hset(key: string, ...pairs: (string | number)[]): void {
    const hash = this.hash(key);
    for (let i = 0; i + 1 < pairs.length; i += 2) hash.set(String(pairs[i]), String(pairs[i + 1]));
  }

  hincrby(key: string, field: string, by: number): number {
    redisInteger(by);
    const next = (this.hnum(key, field) ?? 0) + by;
    this.hash(key).set(field, String(next));
    return next;
  }

  hdel(key: string, field: string): number {
    return this.hash(key).delete(field) ? 1 : 0;
  }

  /** Flat field/value list, like HGETALL. */
  hgetall(key: string): string[] {
    return [...this.hash(key)].flat();
  }

  del(key: string): void {
    this.data.delete(key);
    this.expiresAtMs.delete(key);
  }

  pexpire(key: string, ms: number): void {
    redisInteger(ms);
    if (this.live(key) !== undefined) this.expiresAtMs.set(key, this.clock() + ms);
  }

  /** ZRANGE key start stop WITHSCORES, negative indices counted from the end. */
  zrange(key: string, start: number, stop: number): { member: string; score: number }[] {
    const zset = this.zset(key);
    const size = zset.size;
    const from = Math.max(0, redisInteger(start) < 0 ? size + start : start);
    const to = Math.min(size - 1, redisInteger(stop) < 0 ? size + stop : stop);
    const out: { member: string; score: number }[] = [];
    for (let i = from; i <= to; i++) out.push(zset.at(i)!);
    return out;
  }

  persist(key: string): void {
    this.expiresAtMs.delete(key);
  }
}
