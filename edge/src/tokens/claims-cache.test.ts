import { describe, expect, it } from 'vitest';
import { createClaimsCache } from './claims-cache';

function clock(startMs = 10_000) {
  let nowMs = startMs;
  return { now: () => nowMs, advance: (ms: number) => void (nowMs += ms) };
}

describe('claims cache', () => {
  it('remembers claims until the token expires, then forgets them', () => {
    const time = clock();
    const cache = createClaimsCache<{ sub: string }>({ now: time.now });
    cache.set('token-a', { sub: 'alice' }, 10_500);
    expect(cache.get('token-a')).toEqual({ sub: 'alice' });
    time.advance(499);
    expect(cache.get('token-a')).toEqual({ sub: 'alice' });
    time.advance(1);
    expect(cache.get('token-a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keys by the whole token: one byte different is another token', () => {
    const cache = createClaimsCache<string>();
    cache.set('header.payload.signature', 'claims', Date.now() + 60_000);
    expect(cache.get('header.payload.signaturf')).toBeUndefined();
    expect(cache.get('header.payload.signature')).toBe('claims');
  });

  it('the tolerance keeps a just-expired token (clock skew between issuer and edge)', () => {
    const time = clock();
    const cache = createClaimsCache<string>({ now: time.now, toleranceMs: 1_000 });
    cache.set('t', 'claims', 10_000);
    time.advance(999);
    expect(cache.get('t')).toBe('claims');
    time.advance(1);
    expect(cache.get('t')).toBeUndefined();
  });

  it('holds at most maxEntries tokens, the oldest going first', () => {
    const cache = createClaimsCache<number>({ maxEntries: 3 });
    const later = Date.now() + 60_000;
    for (let i = 1; i <= 4; i++) cache.set(`t${i}`, i, later);
    expect(cache.size).toBe(3);
    expect(cache.get('t1')).toBeUndefined();
    expect([cache.get('t2'), cache.get('t3'), cache.get('t4')]).toEqual([2, 3, 4]);
  });
});

describe('claims cache through an opening', () => {
  it('keeps every buyer of a 50,000-buyer opening (default size 100,000), each until their token expires', () => {
    const time = clock();
    const cache = createClaimsCache<number>({ now: time.now });
    const expiresAtMs = time.now() + 12 * 3_600_000; // a demo customer token's lifetime
    for (let i = 0; i < 50_000; i++) cache.set(`token-${i}`, i, expiresAtMs);
    time.advance(3_600_000); // an hour of waiting later, everyone joins again or polls with the header
    let hits = 0;
    for (let i = 0; i < 50_000; i++) if (cache.get(`token-${i}`) === i) hits++;
    expect(hits).toBe(50_000);
  });
});
