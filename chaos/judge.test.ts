import { describe, expect, it } from 'vitest';
import { AFTER_BACK_JUDGED_FROM, judgeRun, minimumBookings, minimumBookingsAfterBack, type RunFacts } from './judge';

/** A run that did its work and recovered: nothing to report. Each case below breaks one thing. */
const good: RunFacts = {
  status500: 0,
  notFired: null,
  bookings: 12,
  seatMaps: 30,
  paymentsSettled: 12,
  minBookings: 6,
  bookingsAfterBack: 5,
  minBookingsAfterBack: 4,
  recovery: { ms: 800, machineLagMs: 20 },
  recoveryGoalMs: 5_000,
};

describe('judgeRun', () => {
  it('passes a run that sold, settled and recovered in time', () => {
    expect(judgeRun(good)).toEqual([]);
    expect(judgeRun({ ...good, minBookings: null, recovery: null })).toEqual([]);
  });

  it('fails a run that did nothing: sold nothing, no seat map, no payment settled', () => {
    expect(judgeRun({ ...good, bookings: 0, seatMaps: 0, paymentsSettled: 0 })).toEqual([
      'sold nothing',
      'no buyer reached a seat map',
      'no payment settled',
    ]);
    // Even the control run, which has no minimum, must sell.
    expect(judgeRun({ ...good, minBookings: null, bookings: 0 })).toEqual(['sold nothing']);
  });

  it('fails a fault run below half the control run, at the boundary', () => {
    const min = minimumBookings(13, 0.5);
    expect(min).toBe(7);
    expect(judgeRun({ ...good, minBookings: min, bookings: 6 })).toEqual(["bookings 6 < 7 (half the control run's)"]);
    expect(judgeRun({ ...good, minBookings: min, bookings: 7 })).toEqual([]);
    expect(minimumBookings(0, 0.5)).toBe(1);
  });

  it('fails a run whose bookings all came before its fault', () => {
    // Enough bookings in all, every one of them made before the component went away.
    expect(judgeRun({ ...good, bookingsAfterBack: 0 })).toEqual(['sold nothing after the component was back']);
    expect(judgeRun({ ...good, bookingsAfterBack: 3 })).toEqual([
      "bookings after the component was back 3 < 4 (half the control run's over the same seconds)",
    ]);
    expect(minimumBookingsAfterBack(13, 0.5)).toBe(7);
    // A control that booked too little after the same moment sets no bar (the short suite).
    expect(minimumBookingsAfterBack(AFTER_BACK_JUDGED_FROM - 1, 0.5)).toBeNull();
    expect(judgeRun({ ...good, bookingsAfterBack: 0, minBookingsAfterBack: null })).toEqual([]);
  });

  it('fails a 500, a fault that never happened, and a recovery that never came', () => {
    expect(judgeRun({ ...good, status500: 1 })).toEqual(['1 answers 500']);
    expect(judgeRun({ ...good, notFired: 'no checkout reached the crash point' })).toEqual([
      'the fault did not happen: no checkout reached the crash point',
    ]);
    expect(judgeRun({ ...good, recovery: { ms: null, machineLagMs: 0 } })).toEqual(['never recovered (30 s)']);
  });

  it("counts the machine's lag as load, not as a slow recovery, but only that much", () => {
    // 6.5 s on a machine whose bare control server took 2 s to answer: 4.5 s beyond it.
    expect(judgeRun({ ...good, recovery: { ms: 6_500, machineLagMs: 2_000 } })).toEqual([]);
    // The same 6.5 s on a quiet machine is a slow recovery.
    expect(judgeRun({ ...good, recovery: { ms: 6_500, machineLagMs: 30 } })).toHaveLength(1);
    expect(judgeRun({ ...good, recovery: { ms: 5_001, machineLagMs: 0 } })).toHaveLength(1);
  });
});
