/**
 * What fails a fault run besides its checks: a 500, a fault that did not happen, too little
 * work, a recovery past the goal. Kept apart from the run so each threshold can be shown to
 * catch a run that should fail (chaos/judge.test.ts).
 */
export interface RunFacts {
  status500: number;
  /** Why the fault could not happen, or null. */
  notFired: string | null;
  bookings: number;
  seatMaps: number;
  paymentsSettled: number;
  /** Bookings the run must reach (from the control run); null for the control run itself. */
  minBookings: number | null;
  /** Bookings made after the component was back (for the control run: after its quiet outage). */
  bookingsAfterBack: number;
  /**
   * Bookings after the component was back that the run must reach (a share of the control's
   * over the same seconds); null when not judged: the control run, or a control that itself
   * booked too few after that moment for a share of it to mean anything (the short suite).
   */
  minBookingsAfterBack: number | null;
  /** null: the fault stops nothing (gateway faults, the control run). */
  recovery: { ms: number | null; machineLagMs: number } | null;
  recoveryGoalMs: number;
}

/** The recovery that counts: what the control probe showed as the machine's own lag is load, not the fault. */
export const recoveryBeyondLag = (ms: number, machineLagMs: number) => Math.max(0, ms - machineLagMs);

/** The minimum for fault runs: a share of the control run's bookings, and never less than one. */
export const minimumBookings = (controlBookings: number, share: number) =>
  Math.max(1, Math.ceil(controlBookings * share));

/** Below this many bookings after the control's quiet outage, a share of them is noise, not a bar. */
export const AFTER_BACK_JUDGED_FROM = 10;

/** The minimum after the component is back: a share of the control's over the same seconds, or not judged. */
export const minimumBookingsAfterBack = (controlAfterBack: number, share: number) =>
  controlAfterBack >= AFTER_BACK_JUDGED_FROM ? Math.max(1, Math.ceil(controlAfterBack * share)) : null;

export function judgeRun(facts: RunFacts): string[] {
  const failures: string[] = [];
  if (facts.notFired) failures.push(`the fault did not happen: ${facts.notFired}`);
  if (facts.status500 > 0) failures.push(`${facts.status500} answers 500`);
  if (facts.bookings === 0) failures.push('sold nothing');
  else if (facts.minBookings !== null && facts.bookings < facts.minBookings)
    failures.push(`bookings ${facts.bookings} < ${facts.minBookings} (half the control run's)`);
  if (facts.minBookingsAfterBack !== null && facts.bookingsAfterBack < facts.minBookingsAfterBack) {
    failures.push(
      facts.bookingsAfterBack === 0
        ? 'sold nothing after the component was back'
        : `bookings after the component was back ${facts.bookingsAfterBack} < ${facts.minBookingsAfterBack} (half the control run's over the same seconds)`,
    );
  }
  if (facts.seatMaps === 0) failures.push('no buyer reached a seat map');
  if (facts.paymentsSettled === 0) failures.push('no payment settled');
  if (facts.recovery) {
    const { ms, machineLagMs } = facts.recovery;
    if (ms === null) failures.push('never recovered (30 s)');
    else if (recoveryBeyondLag(ms, machineLagMs) > facts.recoveryGoalMs) {
      failures.push(
        `recovery ${ms} ms, ${recoveryBeyondLag(ms, machineLagMs)} ms beyond the machine's lag (${machineLagMs} ms), > ${facts.recoveryGoalMs} ms`,
      );
    }
  }
  return failures;
}
