import { describe, expect, it } from 'vitest';
import { bookedSince } from './fault-run';

const second = (booked: number) => ({ second: 0, sent: 0, answered: 0, failed: 0, latency: null as never, admitted: 0, booked });

describe('bookedSince', () => {
  const recorder = { startedAtMs: 10_000, seconds: [second(4), second(3), second(2), second(1)] };

  it('counts the bookings from the second after the moment, not those before it', () => {
    // Back at 11.5 s on the recorder's clock: seconds 2 and 3 count, the second it came back does not.
    expect(bookedSince(recorder, 11_500)).toBe(3);
    expect(bookedSince(recorder, 12_000)).toBe(3);
    // A moment before the run began counts everything; one after it ended, nothing.
    expect(bookedSince(recorder, 0)).toBe(10);
    expect(bookedSince(recorder, 20_000)).toBe(0);
  });

  it('is not the run total: bookings all made before the fault count as none after it', () => {
    const early = { startedAtMs: 0, seconds: [second(50), second(0), second(0)] };
    expect(bookedSince(early, 1_000)).toBe(0);
  });
});
