// @ts-check
/**
 * A large waiting population polling at the server's pace: what the edge serves most at peak.
 * Each virtual buyer logs in, joins and then polls no sooner than the `pollAfterMs` it was
 * given; once admitted it leaves at once (giving the slot back). The request rate ramps to
 * PEAK_RPS; the population grows to whatever that rate needs at the server's pace
 * (BUYERS_PER_VU per VU; `dropped_iterations` says when k6 ran out of VUs).
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e PEAK_RPS=5000 -e DURATION=2m \
 *          -e SHOWTIME_ID=1 -e ADMIN_TOKEN=dev-admin-token-change-me -e ADMIT_PER_MINUTE=60 loadtest/poll-storm.js
 *
 * With ADMIN_TOKEN, ADMIT_PER_MINUTE (default 60 here) keeps most of the crowd waiting.
 */
import { journeyFor, openingMinute, prepare, settings, step, summary, thresholds, verifyOverHttp, vusFor } from './k6/common.js';

/** @type {import('k6/options').Options} */
export const options = {
  scenarios: {
    crowd: {
      executor: 'ramping-arrival-rate',
      exec: 'crowd',
      startRate: 0,
      timeUnit: '1s',
      stages: openingMinute(settings.peakRps),
      ...vusFor(settings.peakRps, 20),
      gracefulStop: '10s',
    },
  },
  thresholds: thresholds({ login: 500, join: 500, poll: 100, leave: 500 }),
  summaryTrendStats: ['avg', 'med', 'p(95)', 'p(99)', 'max'],
};

export function setup() {
  return prepare({ admitPerMinute: 60 });
}

/** @param {{ showtimeId: string }} data */
export function crowd(data) {
  step(journeyFor(data.showtimeId, { pollOnly: true }));
}

/** @param {{ showtimeId: string }} data */
export function teardown(data) {
  verifyOverHttp(data);
}

/** @param {any} data */
export function handleSummary(data) {
  return summary('poll-storm', data);
}
