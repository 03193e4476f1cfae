// @ts-check
/**
 * The opening minute of a flash sale: buyers arrive, log in (demo), join, poll at the server's
 * `pollAfterMs`, and once admitted read the seat map, try to hold adjacent seats (others after
 * a 409, at most three tries), check out, approve the payment at the sandbox and read the
 * booking. Meanwhile others load the sale page (GET /showtimes/:id, cached a second at the edge).
 * Arrivals ramp with `ramping-arrival-rate` to PEAK_RPS requests/s across both scenarios
 * (default 50,000; JOURNEY_SHARE of it buyers, the rest page views).
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e PEAK_RPS=2000 -e DURATION=60s \
 *          -e SHOWTIME_ID=1 -e ADMIN_TOKEN=dev-admin-token-change-me loadtest/flash-sale.js
 *
 * The edge must trust X-Forwarded-For (TRUST_PROXY=1) for per-buyer flood limits: otherwise
 * every buyer shares the load generator's address, and 429s (expected answers) pile up.
 */
import http from 'k6/http';
import { expected, journeyFor, openingMinute, prepare, settings, step, summary, thresholds, verifyOverHttp, vusFor } from './k6/common.js';

const journeyShare = Number(__ENV.JOURNEY_SHARE || 0.9);
const journeyRps = settings.peakRps * journeyShare;
const pageRps = settings.peakRps - journeyRps;

/** @type {import('k6/options').Options} */
export const options = {
  discardResponseBodies: false,
  scenarios: {
    buyers: {
      executor: 'ramping-arrival-rate',
      exec: 'buyer',
      startRate: 0,
      timeUnit: '1s',
      stages: openingMinute(journeyRps),
      ...vusFor(journeyRps, 10),
      gracefulStop: '30s',
    },
    pages: {
      executor: 'ramping-arrival-rate',
      exec: 'page',
      startRate: 0,
      timeUnit: '1s',
      stages: openingMinute(pageRps),
      ...vusFor(pageRps, 0.2),
      gracefulStop: '5s',
    },
  },
  thresholds: {
    ...thresholds({ login: 500, join: 500, poll: 250, seats: 500, hold: 1000, checkout: 2000, approve: 1000, hold_status: 500, booking: 500, leave: 500, page: 500 }),
    buyers_admitted: ['count>0'],
  },
  summaryTrendStats: ['avg', 'med', 'p(95)', 'p(99)', 'max'],
};

export function setup() {
  return prepare();
}

/** @param {{ showtimeId: string }} data */
export function buyer(data) {
  step(journeyFor(data.showtimeId));
}

/** @param {{ showtimeId: string }} data */
export function page(data) {
  http.get(`${settings.baseUrl}/showtimes/${data.showtimeId}`, { tags: { endpoint: 'page', name: 'page' }, responseCallback: expected });
}

/** @param {{ showtimeId: string }} data */
export function teardown(data) {
  verifyOverHttp(data);
}

/** @param {any} data */
export function handleSummary(data) {
  return summary('flash-sale', data);
}


