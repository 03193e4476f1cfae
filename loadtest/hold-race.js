// @ts-check
/**
 * Admitted buyers fighting over the best seats. The room is opened wide (with ADMIN_TOKEN:
 * capacity and admission rate high), every buyer is admitted at once, reads the seat map and
 * goes for the most central seats of the front rows (after a 409, the next best; at most three
 * tries). A won hold is given back at once (HOLD_THEN=cancel, the default) so the fight goes on
 * for the whole run, or checked out and paid (HOLD_THEN=checkout) until the hall is sold out.
 * The interesting figures are holds_won, hold_conflicts and rate_limited (the per-showtime
 * token bucket: 500 holds/s by default), and the hold endpoint's p99.
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e PEAK_RPS=1000 -e DURATION=60s \
 *          -e SHOWTIME_ID=1 -e ADMIN_TOKEN=dev-admin-token-change-me loadtest/hold-race.js
 */
import { journeyFor, openingMinute, prepare, settings, step, summary, thresholds, verifyOverHttp, vusFor } from './k6/common.js';

const holdThen = __ENV.HOLD_THEN === 'checkout' ? 'checkout' : 'cancel';

/** @type {import('k6/options').Options} */
export const options = {
  scenarios: {
    racers: {
      executor: 'ramping-arrival-rate',
      exec: 'racer',
      startRate: 0,
      timeUnit: '1s',
      stages: openingMinute(settings.peakRps),
      ...vusFor(settings.peakRps, 0.5),
      gracefulStop: '30s',
    },
  },
  thresholds: {
    ...thresholds({ login: 500, join: 500, poll: 250, seats: 500, hold: 1000, cancel: 500, checkout: 2000, approve: 1000, hold_status: 500, booking: 500, leave: 500 }),
    holds_won: ['count>0'],
  },
  summaryTrendStats: ['avg', 'med', 'p(95)', 'p(99)', 'max'],
};

export function setup() {
  return prepare({ capacity: 100_000, admitPerMinute: 1_000_000 });
}

/** @param {{ showtimeId: string }} data */
export function racer(data) {
  step(journeyFor(data.showtimeId, { seatPreference: 'best', afterHold: holdThen }));
}

/** @param {{ showtimeId: string }} data */
export function teardown(data) {
  verifyOverHttp(data);
}

/** @param {any} data */
export function handleSummary(data) {
  return summary('hold-race', data);
}
