import { describe, expect, it } from 'vitest';
import { createSingleFlightCache } from './single-flight-cache';

function clock(startMs = 1_000) {
  let nowMs = startMs;
  return { now: () => nowMs, advance: (ms: number) => void (nowMs += ms) };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('single-flight cache', () => {
  it('a thousand concurrent misses for one key share a single load', async () => {
    const cache = createSingleFlightCache<string>({ ttlMs: 1_000 });
    const gate = deferred<string>();
    let loads = 0;
    const loader = () => ((loads += 1), gate.promise);
    const reads = Array.from({ length: 1_000 }, () => cache.get('seats:42', loader));
    gate.resolve('map');
    const results = await Promise.all(reads);
    expect(loads).toBe(1);
    expect(new Set(results.map((r) => r.value))).toEqual(new Set(['map']));
    expect(results.every((r) => r.source === 'loaded')).toBe(true);
  });

  it('answers from memory until the TTL, then loads again', async () => {
    const time = clock();
    const cache = createSingleFlightCache<number>({ ttlMs: 100, now: time.now });
    let loads = 0;
    const loader = async () => ++loads;
    expect(await cache.get('k', loader)).toEqual({ value: 1, source: 'loaded', loadedAtMs: 1_000 });
    time.advance(99);
    expect(await cache.get('k', loader)).toEqual({ value: 1, source: 'cached', loadedAtMs: 1_000 });
    expect(cache.peek('k')).toBe(1);
    time.advance(1);
    expect(cache.peek('k')).toBeUndefined();
    expect(await cache.get('k', loader)).toMatchObject({ value: 2, source: 'loaded' });
  });

  it('peekRefreshing keeps answering while one background load replaces the value before it expires', async () => {
    const time = clock();
    const cache = createSingleFlightCache<number>({ ttlMs: 100, now: time.now });
    await cache.get('k', async () => 1);
    const gate = deferred<number>();
    let loads = 0;
    const loader = () => ((loads += 1), gate.promise);
    time.advance(74);
    expect(cache.peekRefreshing('k', loader, 75)).toBe(1);
    expect(loads).toBe(0); // young enough: no load
    time.advance(1);
    const peeks = Array.from({ length: 100 }, () => cache.peekRefreshing('k', loader, 75));
    expect(new Set(peeks)).toEqual(new Set([1])); // still answering, one load started for all
    expect(loads).toBe(1);
    const joined = cache.get('k', loader); // a get while the value is fresh does not wait for it
    expect(await joined).toMatchObject({ value: 1, source: 'cached' });
    gate.resolve(2);
    await gate.promise;
    await Promise.resolve();
    expect(cache.peekRefreshing('k', loader, 75)).toBe(2);
    expect(loads).toBe(1);
    time.advance(100);
    expect(cache.peekRefreshing('k', loader, 75)).toBeUndefined(); // expired: never served stale
    expect(cache.peekRefreshing('missing', loader, 75)).toBeUndefined();
  });

  it('peekRefreshing: a failed background load is quiet, and the next get reports it', async () => {
    const time = clock();
    const cache = createSingleFlightCache<number>({ ttlMs: 100, now: time.now });
    await cache.get('k', async () => 1);
    time.advance(80);
    expect(cache.peekRefreshing('k', () => Promise.reject(new Error('redis away')), 75)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 0));
    time.advance(30);
    await expect(cache.get('k', () => Promise.reject(new Error('still away')))).rejects.toThrow('still away');
  });

  it('keys do not share loads or values', async () => {
    const cache = createSingleFlightCache<string>({ ttlMs: 1_000 });
    const [a, b] = await Promise.all([cache.get('a', async () => 'A'), cache.get('b', async () => 'B')]);
    expect([a.value, b.value]).toEqual(['A', 'B']);
  });

  it('a failed reload serves a copy no older than staleForMs, then gives up', async () => {
    const time = clock();
    const cache = createSingleFlightCache<string>({ ttlMs: 100, staleForMs: 1_000, now: time.now });
    await cache.get('k', async () => 'fresh');
    const down = async (): Promise<string> => {
      throw new Error('core down');
    };
    time.advance(500);
    expect(await cache.get('k', down)).toEqual({ value: 'fresh', source: 'stale', loadedAtMs: 1_000 });
    time.advance(501);
    await expect(cache.get('k', down)).rejects.toThrow('core down');
  });

  it('without staleForMs a failed load rejects every waiter, and the next read tries again', async () => {
    const cache = createSingleFlightCache<string>({ ttlMs: 100 });
    const gate = deferred<string>();
    let loads = 0;
    const waiters = [1, 2, 3].map(() => cache.get('k', () => ((loads += 1), gate.promise)));
    gate.reject(new Error('boom'));
    for (const waiter of waiters) await expect(waiter).rejects.toThrow('boom');
    expect(loads).toBe(1);
    expect(await cache.get('k', async () => 'ok')).toMatchObject({ value: 'ok', source: 'loaded' });
  });

  it('invalidate makes the next read load, even inside the TTL', async () => {
    const cache = createSingleFlightCache<number>({ ttlMs: 60_000 });
    let loads = 0;
    await cache.get('k', async () => ++loads);
    cache.invalidate('k');
    expect(cache.peek('k')).toBeUndefined();
    expect(await cache.get('k', async () => ++loads)).toMatchObject({ value: 2, source: 'loaded' });
  });

  it('keeps at most maxEntries keys, dropping the oldest first', async () => {
    const cache = createSingleFlightCache<string>({ ttlMs: 60_000, maxEntries: 2 });
    for (const key of ['a', 'b', 'c']) await cache.get(key, async () => key.toUpperCase());
    expect(cache.peek('a')).toBeUndefined();
    expect(cache.peek('b')).toBe('B');
    expect(cache.peek('c')).toBe('C');
  });
});
