// @ts-check
/**
 * k6 APIs newer than v0.47, feature-detected, each with a fallback that keeps the run honest.
 */
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';

const env = __ENV;
const runFailures = new Counter('run_failures');

/** The threshold that turns `failRun` into a failed run (exit 99) on every k6 release. */
export const RUN_FAILURE_THRESHOLDS = { run_failures: ['count<1'] };

/**
 * Marks the run failed without stopping it (teardown goes on and the summary is written).
 * `exec.test.fail` exists from k6 v0.59; before it, the `run_failures` counter and its
 * threshold fail the run just as well. @param {string} reason
 */
export function failRun(reason) {
  console.error(`run failed: ${reason}`);
  runFailures.add(1);
  const test = /** @type {any} */ (exec).test;
  if (test && typeof test.fail === 'function') test.fail(reason);
}

/**
 * The start of this instance's execution segment (0 for a run on one machine), from
 * `exec.test.options` (k6 v0.43+); null when the release does not say.
 * @returns {number | null}
 */
export function segmentStart() {
  const test = /** @type {any} */ (exec).test;
  const options = test && test.options;
  if (!options || !('executionSegment' in options)) return null;
  const segment = options.executionSegment;
  if (segment === null || segment === undefined || segment === '') return 0;
  const start = String(segment).split(':')[0];
  const [numerator, denominator] = start.split('/');
  return denominator === undefined ? Number(numerator) : Number(numerator) / Number(denominator);
}

/**
 * Whether this instance changes (and later restores) the room's settings. A run split over
 * generators with `--execution-segment` must do it once, not once per generator: the
 * instance whose segment starts at 0 does, or whichever ROOM_SETUP=on/off says.
 */
export function ownsRoomSettings() {
  if (env.ROOM_SETUP === 'on') return true;
  if (env.ROOM_SETUP === 'off') return false;
  const start = segmentStart();
  return start === null || start === 0;
}
