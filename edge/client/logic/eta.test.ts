import { describe, expect, it } from 'vitest';
import { createEtaSmoother } from './eta';

describe('ETA smoother', () => {
  it('shows the first estimate as is, then runs down with the clock when estimates agree', () => {
    const eta = createEtaSmoother();
    expect(eta.update(540, 0)).toEqual({ seconds: 540, trend: 'steady' });
    const later = eta.update(530, 10_000);
    expect(later.seconds).toBeCloseTo(530, 0);
    expect(later.trend).toBe('steady');
  });

  it('does not jump with noisy estimates (9, 6, 7 minutes within 30 s)', () => {
    const eta = createEtaSmoother();
    const shown = [540, 360, 420].map((raw, i) => eta.update(raw, i * 15_000).seconds!);
    // Raw swings by 180 s; the shown value moves by well under half of that per reading.
    for (let i = 1; i < shown.length; i++) expect(Math.abs(shown[i]! - shown[i - 1]!)).toBeLessThan(90);
    expect(shown[2]).toBeGreaterThan(360);
  });

  it('follows a real rate change within a few polls and says which way it moved', () => {
    const eta = createEtaSmoother();
    eta.update(300, 0);
    const first = eta.update(1320, 5_000);
    expect(first.trend).toBe('longer');
    let last = first;
    for (let i = 2; i < 6; i++) last = eta.update(1320 - i * 5, i * 5_000);
    expect(last.seconds!).toBeGreaterThan(1100);
    eta.reset();
    eta.update(1200, 0);
    expect(eta.update(300, 5_000).trend).toBe('shorter');
  });

  it('keeps counting down without a new estimate, and ignores nonsense', () => {
    const eta = createEtaSmoother();
    expect(eta.update(null, 0).seconds).toBeNull();
    eta.update(120, 0);
    expect(eta.update(null, 30_000).seconds).toBe(90);
    expect(eta.update(Number.NaN, 60_000).seconds).toBe(60);
    expect(eta.update(-5, 200_000).seconds).toBe(0);
  });
});
