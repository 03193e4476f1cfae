// @ts-check
/**
 * A large waiting population polling at the server's pace: what the edge serves most at peak.
 * Two phases. The warm-up builds the line: buyers log in and join (each a new arrival) until
 * the population polls at PEAK_RPS by itself, `PEAK_RPS × POLL_PACE_SECONDS` buyers (22.5 s:
 * the server's pace far back). The line grows as the iterations polls do not take become
 * arrivals (a login and a join each): line(t) = (peak / 0.9) × pace × (1 − e^(−t / (2 × pace))),
 * so the whole line (90 % of that) takes ln 10 × 2 paces (~104 s); WARMUP defaults to 7 paces
 * (158 s, whose first quarter is the ramp). The plateau (DURATION) is then almost only polls: arrivals just
 * replace the few admitted buyers, who leave at once. The poll and leave limits and the poll
 * share (≥ 90 % of requests) are thresholds on the plateau's requests alone; the drain's
 * leaves are tagged phase:drain.
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e PEAK_RPS=5000 -e DURATION=2m \
 *          -e SHOWTIME_ID=1 -e ADMIN_TOKEN=dev-admin-token-change-me -e ADMIT_PER_MINUTE=60 loadtest/poll-storm.js
 *
 * With ADMIN_TOKEN, ADMIT_PER_MINUTE (default 60 here) keeps most of the crowd waiting.
 */
import { drainBuyers, step } from './k6/buyers.js';
import { journeyFor, onePerVu, runPlan } from './k6/journey-settings.js';
import { plannedIterations, summary, SUMMARY_TREND_STATS, thresholdsFor } from './k6/report.js';
import { finishRun, prepare } from './k6/room.js';
import { drainScenario, envNumber, seconds, settings, stagesSeconds, vusFor } from './k6/settings.js';

const peak = Math.round(settings.peakRps);
const pace = envNumber('POLL_PACE_SECONDS', 22.5);
const warmup = __ENV.WARMUP ? seconds(__ENV.WARMUP) : Math.ceil(7 * pace);
const plateau = settings.durationSeconds;
const tail = Math.max(1, Math.round(plateau * 0.1));
// Iterations are offered 1/0.9 as fast as the peak: an iteration with no buyer due ends at once
// without a request (`returnWhenIdle`), so each VU has a tenth to spare and its share of the line
// is polled on time. (A VU whose buyers need more than its share falls behind, polls come late,
// the room parks them and they join again: the plateau stops being polls.)
const iterationRate = Math.round(peak / 0.9);
const stages = [
  { duration: `${Math.max(1, Math.round(warmup * 0.25))}s`, target: iterationRate },
  { duration: `${warmup - Math.max(1, Math.round(warmup * 0.25))}s`, target: iterationRate },
  { duration: `${plateau}s`, target: iterationRate },
  { duration: `${tail}s`, target: 0 },
];
// A VU is busy only while a request is answered: the VUs are the iteration rate × the answer time.
const crowdVus = vusFor('crowd', iterationRate, 0, true);
/** The line that polls at the peak rate by itself, spread over the VUs. */
const buyersPerVu = Math.max(1, Math.ceil((peak * pace) / crowdVus.maxVUs));

/** @type {import('k6/options').Options} */
export const options = {
  discardResponseBodies: true,
  scenarios: {
    crowd: {
      executor: 'ramping-arrival-rate',
      exec: 'crowd',
      startRate: 0,
      timeUnit: '1s',
      stages,
      preAllocatedVUs: crowdVus.preAllocatedVUs,
      maxVUs: crowdVus.maxVUs,
      gracefulStop: `${settings.gracefulStopSeconds}s`,
    },
    drain: drainScenario(crowdVus.maxVUs, stagesSeconds(stages) + settings.gracefulStopSeconds),
  },
  thresholds: Object.assign(
    thresholdsFor({ endpoints: ['login', 'join'], plannedIterations: plannedIterations(stages, seconds) }),
    thresholdsFor({
      endpoints: ['poll', 'leave'],
      phase: 'plateau',
      plannedIterations: plannedIterations(stages, seconds),
    }),
    { 'poll_share{phase:plateau}': ['rate>=0.9'] },
  ),
  summaryTrendStats: SUMMARY_TREND_STATS,
};

export function setup() {
  return prepare({ state: 'open', admitPerMinute: 60 });
}

const journey = (/** @type {string} */ showtimeId) =>
  onePerVu('journey', () => journeyFor(showtimeId, { pollOnly: true, maxWaitMs: (warmup + plateau + tail) * 1000 }));

/** @param {import('./k6/room.js').RunData} data */
export function crowd(data) {
  const plan = onePerVu('plan', () =>
    Object.assign(runPlan(data, stages, { warmup: [0, warmup], plateau: [warmup, warmup + plateau] }), {
      buyersPerVu,
      returnWhenIdle: true,
    }),
  );
  step(journey(data.showtimeId), plan);
}

/** @param {import('./k6/room.js').RunData} data */
export function drain(data) {
  drainBuyers(journey(data.showtimeId), crowdVus.maxVUs);
}

/** @param {import('./k6/room.js').RunData} data */
export function teardown(data) {
  finishRun(data);
}

/** @param {any} data */
export function handleSummary(data) {
  return summary(
    'poll-storm',
    data,
    `peak ${peak} req/s, warm-up ${warmup}s, plateau ${plateau}s, drain at ${settings.drainRps} req/s`,
  );
}
