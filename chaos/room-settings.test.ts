import { describe, expect, it } from 'vitest';
import { settingsDifferences } from './room-settings';

describe('settingsDifferences', () => {
  const before = { capacity: 12, admitPerMinute: 6_000, sessionTtlSeconds: 30, state: 'open', powDifficulty: 0 };

  it('names every operator setting that moved', () => {
    expect(settingsDifferences(before, { ...before, capacity: 10, state: 'paused' })).toEqual([
      'capacity: 12 → 10',
      'state: "open" → "paused"',
    ]);
    expect(settingsDifferences(before, { ...before })).toEqual([]);
    expect(settingsDifferences(before, null)).toEqual(['room settings unreadable after the fault']);
  });

  it('accepts sold_out only when the database says every seat is booked', () => {
    const soldOutRoom = { ...before, state: 'sold_out' };
    expect(settingsDifferences(before, soldOutRoom, { soldOut: true })).toEqual([]);
    expect(settingsDifferences(before, soldOutRoom, { soldOut: false })).toEqual(['state: "open" → "sold_out"']);
    expect(settingsDifferences(before, soldOutRoom)).toEqual(['state: "open" → "sold_out"']);
    // A sold-out sale excuses the state, not a setting a fault changed on the way.
    expect(settingsDifferences(before, { ...soldOutRoom, capacity: 0 }, { soldOut: true })).toEqual([
      'capacity: 12 → 0',
    ]);
    expect(settingsDifferences(before, { ...before, state: 'closed' }, { soldOut: true })).toEqual([
      'state: "open" → "closed"',
    ]);
  });
});
