import { describe, expect, it } from 'vitest';
import { bookedFrom, firstSecondAfter } from './fault-run';

describe('bookings after the component was back', () => {
  const perSecond = [4, 3, 2, 1];

  it('counts from the second after the moment, not the second it happened in', () => {
    // Back at 11.5 s on a recorder started at 10 s: seconds 2 and 3 count.
    const recorder = { startedAtMs: 10_000 };
    expect(firstSecondAfter(recorder, 11_500)).toBe(2);
    expect(bookedFrom(perSecond, firstSecondAfter(recorder, 11_500))).toBe(3);
    expect(bookedFrom(perSecond, firstSecondAfter(recorder, 12_000))).toBe(3);
    // A moment before the run began counts everything; one after it ended, nothing.
    expect(bookedFrom(perSecond, firstSecondAfter(recorder, 0))).toBe(10);
    expect(bookedFrom(perSecond, firstSecondAfter(recorder, 20_000))).toBe(0);
  });

  it('is not the run total: bookings all made before the fault count as none after it', () => {
    expect(bookedFrom([50, 0, 0], firstSecondAfter({ startedAtMs: 0 }, 1_000))).toBe(0);
  });
});
