// @ts-check
/**
 * Admitted buyers fighting over the best seats. The room is opened wide (with ADMIN_TOKEN:
 * capacity and admission rate high), every buyer is admitted at once, reads the seat map and
 * goes for the most central seats of the front rows (after a 409, the next best; at most three
 * tries). A won hold is given back at once (HOLD_THEN=cancel, the default) so the fight goes on
 * for the whole run, or checked out and paid (HOLD_THEN=checkout) until the hall is sold out.
 * The interesting figures are holds_won, hold_conflicts and rate_limited (the per-showtime
 * token bucket: 500 holds/s by default), and the hold endpoint's p95 and p99.
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e PEAK_RPS=1000 -e DURATION=60s \
 *          -e SHOWTIME_ID=1 -e ADMIN_TOKEN=dev-admin-token-change-me loadtest/hold-race.js
 */
import { drainBuyers, step } from './k6/buyers.js';
import { journeyFor, onePerVu, runPlan } from './k6/journey-settings.js';
import { plannedIterations, summary, SUMMARY_TREND_STATS, thresholdsFor } from './k6/report.js';
import { finishRun, prepare } from './k6/room.js';
import { drainScenario, envNumber, openingMinute, seconds, settings, stagesSeconds, vusFor } from './k6/settings.js';

const holdThen = __ENV.HOLD_THEN === 'checkout' ? 'checkout' : 'cancel';
const stages = openingMinute(settings.peakRps);
const racers = vusFor('racers', settings.peakRps, envNumber('BUYER_PACE_SECONDS', 0.5), true);
/** Only what this run calls: cancel with the default, the payment steps with HOLD_THEN=checkout. */
const endpoints = ['login', 'join', 'poll', 'seats', 'hold', 'leave'].concat(
  holdThen === 'cancel' ? ['cancel'] : ['checkout', 'approve', 'hold_status', 'booking'],
);

/** @type {import('k6/options').Options} */
export const options = {
  discardResponseBodies: true,
  scenarios: {
    racers: {
      executor: 'ramping-arrival-rate',
      exec: 'racer',
      startRate: 0,
      timeUnit: '1s',
      stages,
      preAllocatedVUs: racers.preAllocatedVUs,
      maxVUs: racers.maxVUs,
      gracefulStop: `${settings.gracefulStopSeconds}s`,
    },
    drain: drainScenario(racers.maxVUs, stagesSeconds(stages) + settings.gracefulStopSeconds),
  },
  // Latency limits on the run's own requests (phase:run); the drain's are tagged phase:drain.
  thresholds: Object.assign(
    thresholdsFor({ endpoints, phase: 'run', plannedIterations: plannedIterations(stages, seconds) }),
    { holds_won: ['count>0'] },
  ),
  summaryTrendStats: SUMMARY_TREND_STATS,
};

export function setup() {
  return prepare({ state: 'open', capacity: 100000, admitPerMinute: 1000000 });
}

const journey = (/** @type {string} */ showtimeId) =>
  onePerVu('journey', () => journeyFor(showtimeId, { seatPreference: 'best', afterHold: holdThen }));

/** @param {import('./k6/room.js').RunData} data */
export function racer(data) {
  step(
    journey(data.showtimeId),
    onePerVu('plan', () => runPlan(data, stages)),
  );
}

/** @param {import('./k6/room.js').RunData} data */
export function drain(data) {
  drainBuyers(journey(data.showtimeId), racers.maxVUs);
}

/** @param {import('./k6/room.js').RunData} data */
export function teardown(data) {
  finishRun(data);
}

/** @param {any} data */
export function handleSummary(data) {
  return summary(
    'hold-race',
    data,
    `peak ${settings.peakRps} req/s, ${stagesSeconds(stages)}s, then ${holdThen}, drain at ${settings.drainRps} req/s`,
  );
}
