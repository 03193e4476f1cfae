// @ts-check
/**
 * The opening minute of a flash sale: buyers arrive, log in (demo), join, poll at the server's
 * `pollAfterMs`, and once admitted read the seat map, try to hold adjacent seats (others after
 * a 409, at most three tries), check out, approve the payment at the sandbox and read the
 * booking. Meanwhile others load the sale page (GET /showtimes/:id, cached a second at the edge).
 * Arrivals ramp with `ramping-arrival-rate` to PEAK_RPS requests/s across both scenarios
 * (default 50,000; JOURNEY_SHARE of it buyers, the rest page views). After the arrivals the
 * `drain` scenario has every buyer still in a journey cancel its hold and leave; teardown
 * checks the seats and puts the room's settings back.
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e PEAK_RPS=2000 -e DURATION=60s \
 *          -e SHOWTIME_ID=1 -e ADMIN_TOKEN=dev-admin-token-change-me loadtest/flash-sale.js
 *
 * The edge must trust X-Forwarded-For (TRUST_PROXY=1) for per-buyer flood limits: otherwise
 * every buyer shares the load generator's address, and 429s (expected answers) pile up.
 */
import http from 'k6/http';
import { check } from 'k6';
import { drainBuyers, expected, step } from './k6/buyers.js';
import { journeyFor, onePerVu, runPlan } from './k6/journey-settings.js';
import { plannedIterations, summary, SUMMARY_TREND_STATS, thresholdsFor } from './k6/report.js';
import { finishRun, prepare } from './k6/room.js';
import { drainScenario, envNumber, openingMinute, seconds, settings, stagesSeconds, vusFor } from './k6/settings.js';

const journeyShare = envNumber('JOURNEY_SHARE', 0.9);
const journeyRps = settings.peakRps * journeyShare;
const pageRps = settings.peakRps - journeyRps;
const buyerStages = openingMinute(journeyRps);
const pageStages = openingMinute(pageRps);
/** Mean seconds between two requests of one buyer over a journey (mostly polls). */
const buyerPace = envNumber('BUYER_PACE_SECONDS', 10);
const buyers = vusFor('buyers', journeyRps, buyerPace, true);
const pages = vusFor('pages', pageRps, 0);
const drainVus = buyers.maxVUs + pages.maxVUs;
const planned = plannedIterations(buyerStages, seconds) + plannedIterations(pageStages, seconds);

/** @type {import('k6/options').Options} */
export const options = {
  discardResponseBodies: true,
  scenarios: {
    buyers: {
      executor: 'ramping-arrival-rate',
      exec: 'buyer',
      startRate: 0,
      timeUnit: '1s',
      stages: buyerStages,
      preAllocatedVUs: buyers.preAllocatedVUs,
      maxVUs: buyers.maxVUs,
      gracefulStop: `${settings.gracefulStopSeconds}s`,
    },
    pages: {
      executor: 'ramping-arrival-rate',
      exec: 'page',
      startRate: 0,
      timeUnit: '1s',
      stages: pageStages,
      preAllocatedVUs: pages.preAllocatedVUs,
      maxVUs: pages.maxVUs,
      gracefulStop: '5s',
    },
    drain: drainScenario(drainVus, stagesSeconds(buyerStages) + settings.gracefulStopSeconds),
  },
  // Latency limits on the run's own requests (phase:run); the drain's are tagged phase:drain.
  thresholds: Object.assign(
    thresholdsFor({
      endpoints: ['login', 'join', 'poll', 'seats', 'hold', 'checkout', 'approve', 'hold_status', 'booking', 'leave'],
      phase: 'run',
      plannedIterations: planned,
    }),
    thresholdsFor({ endpoints: ['page'], plannedIterations: planned }),
    { buyers_admitted: ['count>0'], bookings: ['count>0'] },
  ),
  summaryTrendStats: SUMMARY_TREND_STATS,
};

export function setup() {
  return prepare();
}

/** @param {import('./k6/room.js').RunData} data */
export function buyer(data) {
  step(
    onePerVu('journey', () => journeyFor(data.showtimeId)),
    onePerVu('plan', () => runPlan(data, buyerStages)),
  );
}

/** @param {import('./k6/room.js').RunData} data */
export function page(data) {
  // The body is never read: k6 discards it at the socket instead of handing 10 KB to JS.
  const tags = { endpoint: 'page', name: 'page' };
  const res = http.get(`${settings.baseUrl}/showtimes/${data.showtimeId}`, {
    tags,
    responseCallback: expected,
    responseType: 'none',
  });
  check(res, { 'page answered as expected': (r) => r.status === 200 }, tags);
}

/** @param {import('./k6/room.js').RunData} data */
export function drain(data) {
  drainBuyers(
    onePerVu('journey', () => journeyFor(data.showtimeId)),
    drainVus,
  );
}

/** @param {import('./k6/room.js').RunData} data */
export function teardown(data) {
  finishRun(data);
}

/** @param {any} data */
export function handleSummary(data) {
  return summary(
    'flash-sale',
    data,
    `peak ${settings.peakRps} req/s (${Math.round(journeyShare * 100)} % buyers), ${stagesSeconds(buyerStages)}s, drain at ${settings.drainRps} req/s`,
  );
}
