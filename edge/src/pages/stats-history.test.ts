import { describe, expect, it } from 'vitest';
import { createStatsHistory } from './stats-history';

describe('console chart history', () => {
  it('keeps one sample a second per showtime, the last N only', () => {
    const history = createStatsHistory({ keep: 3 });
    for (let i = 0; i < 5; i++) history.record('7', { at: i * 1000, values: { waiting: i } });
    history.record('7', { at: 4_500, values: { waiting: 99 } }); // a second console, same second
    expect(history.samples('7').map((s) => s.values.waiting)).toEqual([2, 3, 4]);
    expect(history.samples('8')).toEqual([]);
  });

  it('a history that kept everything (no bound) is caught', () => {
    const unbounded = createStatsHistory({ keep: Number.POSITIVE_INFINITY });
    for (let i = 0; i < 5; i++) unbounded.record('7', { at: i * 1000, values: { waiting: i } });
    expect(unbounded.samples('7')).toHaveLength(5);
  });
});
