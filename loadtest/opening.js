// @ts-check
/**
 * The opening moment. The room is scheduled to open PREQUEUE (3m) after setup; BUYERS (50,000)
 * arrive over that window, ever faster towards the opening (the arrival rate grows linearly),
 * log in and join the pre-queue, then poll at the server's pace (which converges on the
 * opening). At the opening the pre-queue is drawn (shuffled once) into the line and
 * admissions begin; buyers leave at once when admitted, and whoever is still in line
 * AFTER_OPENING (60s) later leaves. Reports: the time from the opening to the draw and to the
 * first admission (an operator's view, read every 100 ms through the room API), the same as
 * the buyers saw it, and the join latency at the peak of arrivals (the last fifth).
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e BUYERS=50000 -e PREQUEUE=3m \
 *          -e SHOWTIME_ID=1 -e ADMIN_TOKEN=dev-admin-token-change-me loadtest/opening.js
 *
 * Needs ADMIN_TOKEN (setup schedules the room). Each VU runs BUYERS_PER_VU buyers in one long
 * iteration, so the VUs are BUYERS / BUYERS_PER_VU, split by `--execution-segment` like any run.
 */
import exec from 'k6/execution';
import { sleep } from 'k6';
import { Trend } from 'k6/metrics';
import { runPopulation } from './k6/buyers.js';
import { failRun } from './k6/compat.js';
import { journeyFor } from './k6/journey-settings.js';
import { summary, SUMMARY_TREND_STATS, thresholdsFor } from './k6/report.js';
import { finishRun, prepare, readRoom } from './k6/room.js';
import { envNumber, seconds, settings } from './k6/settings.js';

const buyers = Math.round(envNumber('BUYERS', 50000));
const prequeue = seconds(__ENV.PREQUEUE || '3m');
const afterOpening = seconds(__ENV.AFTER_OPENING || '60s');
const vus = Math.ceil(buyers / settings.buyersPerVu);
const runSeconds = prequeue + afterOpening + 60;

const metrics = {
  /** Operator's view: opening → the pre-queue drawn into the line; opening → first admission. */
  drawMs: new Trend('opening_draw_ms', true),
  firstAdmissionMs: new Trend('opening_first_admission_ms', true),
  /** Buyers' view: opening → admitted (its min is the first admission a buyer saw). */
  toAdmissionMs: new Trend('opening_to_admission_ms', true),
};

/** @type {import('k6/options').Options} */
export const options = {
  discardResponseBodies: true,
  setupTimeout: '120s',
  scenarios: {
    buyers: {
      executor: 'per-vu-iterations',
      exec: 'buyer',
      vus,
      iterations: 1,
      maxDuration: `${runSeconds}s`,
      gracefulStop: '30s',
    },
    operator: { executor: 'per-vu-iterations', exec: 'operator', vus: 1, iterations: 1, maxDuration: `${runSeconds}s` },
  },
  thresholds: Object.assign(
    thresholdsFor({ endpoints: ['join'], phase: 'peak', plannedIterations: 0 }),
    thresholdsFor({ endpoints: ['login', 'poll'], plannedIterations: 0 }),
    // Leaves of admitted buyers after the opening; those of the buyers still in line at the end are phase:drain.
    thresholdsFor({ endpoints: ['leave'], phase: 'open', plannedIterations: 0 }),
    {
      opening_draw_ms: [`max<${envNumber('DRAW_MS', 5000)}`],
      opening_first_admission_ms: [`max<${envNumber('FIRST_ADMISSION_MS', 10000)}`],
    },
  ),
  summaryTrendStats: SUMMARY_TREND_STATS,
};

export function setup() {
  if (!settings.adminToken) exec.test.abort('opening.js schedules the room: ADMIN_TOKEN is needed');
  const opensAtMs = Date.now() + prequeue * 1000;
  const data = prepare({
    state: 'scheduled',
    opensAt: new Date(opensAtMs).toISOString(),
    capacity: 500,
    admitPerMinute: 3000,
  });
  if (!data.roomApplied)
    exec.test.abort(
      'opening.js needs a showtime whose room has not opened yet (and the first execution segment, or ROOM_SETUP=on)',
    );
  return Object.assign(data, { opensAtMs });
}

/** @param {{ showtimeId: string, opensAtMs: number }} data */
export function buyer(data) {
  // This VU's share of the buyers, each at its place on a linearly growing arrival rate:
  // buyer g of N arrives at PREQUEUE · sqrt(g / N) after the start of the window. The share is
  // numbered by the scenario's iteration (one per VU, 0…VUs−1 across every generator), not
  // by VU id, which the operator scenario's VU may take.
  const first = exec.scenario.iterationInTest * settings.buyersPerVu;
  const startMs = data.opensAtMs - prequeue * 1000;
  const arrivalsAtMs = [];
  for (let g = first; g < Math.min(buyers, first + settings.buyersPerVu); g++)
    arrivalsAtMs.push(startMs + prequeue * 1000 * Math.sqrt(g / buyers));
  const peakFromMs = startMs + prequeue * 1000 * 0.8;
  runPopulation(
    journeyFor(data.showtimeId, { pollOnly: true, maxWaitMs: (prequeue + afterOpening) * 1000 }),
    arrivalsAtMs,
    {
      untilMs: data.opensAtMs + afterOpening * 1000,
      drainVus: vus,
      phaseOf: (nowMs) => (nowMs >= data.opensAtMs ? 'open' : nowMs >= peakFromMs ? 'peak' : 'prequeue'),
      onEvent: (event, nowMs) => {
        if (event.type === 'admitted') metrics.toAdmissionMs.add(nowMs - data.opensAtMs);
      },
    },
  );
}

/** The operator's screen around the opening: the room's stats every 100 ms. @param {{ showtimeId: string, opensAtMs: number }} data */
export function operator(data) {
  const before = readRoom(data.showtimeId);
  const admittedBefore = before ? before.stats.admitted : 0;
  sleep(Math.max(0, data.opensAtMs - Date.now()) / 1000);
  let drawn = false;
  let admitted = false;
  const untilMs = data.opensAtMs + afterOpening * 1000;
  while (Date.now() < untilMs && !(drawn && admitted)) {
    const room = readRoom(data.showtimeId);
    const now = Date.now();
    if (room && !drawn && room.settings.state !== 'scheduled' && room.stats.prequeue === 0) {
      drawn = true;
      metrics.drawMs.add(now - data.opensAtMs);
    }
    if (room && !admitted && room.stats.admitted > admittedBefore) {
      admitted = true;
      metrics.firstAdmissionMs.add(now - data.opensAtMs);
    }
    sleep(0.1);
  }
  // An empty trend passes its threshold: not seeing the moment at all must fail the run.
  if (!drawn) failRun(`the pre-queue was not drawn within ${afterOpening}s of the opening`);
  if (!admitted) failRun(`nobody was admitted within ${afterOpening}s of the opening`);
}

/** @param {import('./k6/room.js').RunData} data */
export function teardown(data) {
  finishRun(data);
}

/** @param {any} data */
export function handleSummary(data) {
  return summary(
    'opening',
    data,
    `${buyers} buyers over a ${prequeue}s pre-queue, ${afterOpening}s after the opening, ${vus} VUs`,
  );
}
