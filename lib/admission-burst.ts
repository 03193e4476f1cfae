/**
 * The admission bucket's burst: how many the step may offer at once after a quiet spell.
 * One home for its default and bounds, read by the engine's settings, the operator API's
 * schema, the API description and the console (this module imports nothing, so the browser
 * bundle can take it).
 *
 * A fixed burst (it was 50 whatever the rate) lets 25 s of a 120-a-minute room in at once and
 * makes the wait told at join wrong for everyone behind them; a few seconds' worth of the rate
 * keeps a burst short at any rate. An operator may set it (a room that wants the first buyers
 * in together), within ADMIT_BURST_BOUNDS; unset, it follows the rate.
 */

/** Seconds of the admission rate the bucket banks by default. */
export const BURST_SECONDS = 5;

/** What an operator may set (whole admissions). More than a minute's worth changes nothing: the one-minute window caps it. */
export const ADMIT_BURST_BOUNDS = { min: 1, max: 10_000_000 } as const;

/** BURST_SECONDS of the rate, at least one (admissions). */
export const burstFor = (admitPerMinute: number): number =>
  Math.max(1, Math.ceil((admitPerMinute * BURST_SECONDS) / 60));
