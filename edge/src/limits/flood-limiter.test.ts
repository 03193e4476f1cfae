import { describe, expect, it } from 'vitest';
import { createMemoryFloodLimiter } from './flood-limiter';

function clock(startMs = 0) {
  let nowMs = startMs;
  return { now: () => nowMs, advance: (ms: number) => void (nowMs += ms) };
}

describe('in-memory flood limiter', () => {
  it('allows `points` per window and refuses the rest until the window ends', async () => {
    const time = clock();
    const limiter = createMemoryFloodLimiter({ points: 3, windowMs: 1_000, now: time.now });
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.consume('join:10.0.0.1'));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions[3]!.retryAfterMs).toBe(1_000);
    time.advance(400);
    expect(await limiter.consume('join:10.0.0.1')).toEqual({ allowed: false, retryAfterMs: 600 });
    time.advance(600);
    expect(await limiter.consume('join:10.0.0.1')).toEqual({ allowed: true, retryAfterMs: 0 });
  });

  it('blockMs keeps an over-limit key refused past its window', () => {
    const time = clock();
    const limiter = createMemoryFloodLimiter({ points: 1, windowMs: 1_000, blockMs: 5_000, now: time.now });
    expect(limiter.consumeNow!('k')!.allowed).toBe(true);
    expect(limiter.consumeNow!('k')!).toEqual({ allowed: false, retryAfterMs: 5_000 });
    time.advance(4_999);
    expect(limiter.consumeNow!('k')!).toEqual({ allowed: false, retryAfterMs: 1 });
    time.advance(1);
    expect(limiter.consumeNow!('k')!.allowed).toBe(true);
  });

  it('counts every key on its own', () => {
    const limiter = createMemoryFloodLimiter({ points: 1, windowMs: 60_000 });
    expect(limiter.consumeNow!('poll:a')!.allowed).toBe(true);
    expect(limiter.consumeNow!('poll:b')!.allowed).toBe(true);
    expect(limiter.consumeNow!('poll:a')!.allowed).toBe(false);
  });

  it('keeps at most maxKeys windows: the oldest key is forgotten (and so starts afresh)', () => {
    const limiter = createMemoryFloodLimiter({ points: 1, windowMs: 60_000, maxKeys: 2 });
    for (const key of ['a', 'b', 'c']) limiter.consumeNow!(key)!;
    expect(limiter.consumeNow!('a')!.allowed).toBe(true);
    expect(limiter.consumeNow!('c')!.allowed).toBe(false);
  });
});
