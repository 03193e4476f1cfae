// @ts-check
/**
 * The journey settings each script gives the shared buyer journey, and the run's plan in
 * wall-clock time (when arrivals stop, when steps must end, which phase a moment is in).
 */
import crypto from 'k6/crypto';
import { Counter } from 'k6/metrics';
import { seconds, settings, stagesSeconds } from './settings.js';

/** Values built by `onePerVu`: k6 gives every VU its own copy of this module, so this is per VU. */
const builtForThisVu = new Map();
/** How many were built: one plan and one journey per VU (k6-scripts.test.ts holds it to that). */
const vuBuilds = new Counter('generator_vu_builds');

/**
 * What `make` returns, built on this VU's first call only. A run's plan and journey settings
 * do not change while it runs; built on every iteration (durations re-read by regex, closures
 * made) they were a third of poll-storm's CPU in k6's profile.
 * @template T @param {string} key @param {() => T} make @returns {T}
 */
export function onePerVu(key, make) {
  if (builtForThisVu.has(key)) return builtForThisVu.get(key);
  const value = make();
  builtForThisVu.set(key, value);
  vuBuilds.add(1);
  return value;
}

/** @typedef {import('../lib/journey.js').JourneySettings} JourneySettings */

/** @param {string} showtimeId @param {Partial<JourneySettings>} [overrides] @returns {JourneySettings} */
export function journeyFor(showtimeId, overrides) {
  return Object.assign(
    {
      showtimeId,
      party: settings.party,
      maxHoldTries: 3,
      seatPreference: 'best',
      paymentApiKey: settings.paymentApiKey,
      maxWaitMs: settings.durationSeconds * 1000 + 30000,
      random: Math.random,
      // Proof of work at join, when the room asks for it (POW_DIFFICULTY in room.js sets it).
      sha256Hex: (/** @type {string} */ text) => /** @type {string} */ (crypto.sha256(text, 'hex')),
    },
    overrides || {},
  );
}

/**
 * The plan of a scenario that started right after setup: no new buyer once the last stage
 * (the tail) begins, no step past the graceful stop, and the phase of a moment by the
 * `phases` given (name → [from, to) seconds after the start; 'run' elsewhere).
 * @param {{ startedAtMs: number }} data @param {{ duration: string }[]} stages
 * @param {Record<string, [number, number]>} [phases]
 * @returns {import('./buyers.js').Plan}
 */
export function runPlan(data, stages, phases) {
  const total = stagesSeconds(stages);
  const tail = seconds(stages[stages.length - 1].duration);
  const names = phases ? Object.keys(phases) : [];
  return {
    arrivalsEndAtMs: data.startedAtMs + (total - tail) * 1000,
    stepsEndAtMs: data.startedAtMs + (total + settings.gracefulStopSeconds - 2) * 1000,
    phaseOf(nowMs) {
      const at = (nowMs - data.startedAtMs) / 1000;
      for (const name of names)
        if (at >= /** @type {any} */ (phases)[name][0] && at < /** @type {any} */ (phases)[name][1]) return name;
      return 'run';
    },
  };
}
