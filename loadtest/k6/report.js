// @ts-check
/**
 * Thresholds and the end-of-run summary of the k6 scripts. A threshold is set only on what a
 * scenario really calls (a limit on an endpoint no request reaches would pass as "p99 0.00").
 */
import { RUN_FAILURE_THRESHOLDS } from './compat.js';
import { envNumber, settings } from './settings.js';

const env = __ENV;

/** p95 and p99 limits in ms, per endpoint tag. @typedef {Record<string, [number, number]>} Limits */
export const LIMITS = {
  login: [250, 500],
  join: [250, 500],
  poll: [100, 250],
  seats: [250, 500],
  hold: [500, 1000],
  cancel: [250, 500],
  checkout: [1000, 2000],
  approve: [500, 1000],
  hold_status: [250, 500],
  booking: [250, 500],
  leave: [250, 500],
  page: [250, 500],
};

/**
 * Thresholds for the endpoints a script calls: p95 and p99 of each (on the requests tagged
 * `phase`, when given), a `check()` pass rate overall and per endpoint, error journeys,
 * dropped iterations, and `run_failures` (teardown's checks).
 * @param {{ endpoints: string[], phase?: string, plannedIterations: number, overrides?: Record<string, [number, number]> }} spec
 */
export function thresholdsFor(spec) {
  const checksRate = envNumber('CHECKS_RATE', 0.99);
  /** @type {Record<string, string[]>} */
  const t = {
    http_req_failed: ['rate<0.01'],
    checks: [`rate>${checksRate}`],
    journey_failed: [`rate<${envNumber('JOURNEY_ERROR_RATE', 0.01)}`],
    dropped_iterations: [`count<${Math.max(1, Math.round(spec.plannedIterations * 0.01))}`],
  };
  for (const endpoint of spec.endpoints) {
    const limits = (spec.overrides && spec.overrides[endpoint]) || /** @type {any} */ (LIMITS)[endpoint];
    const where = spec.phase ? `endpoint:${endpoint},phase:${spec.phase}` : `endpoint:${endpoint}`;
    t[`http_req_duration{${where}}`] = [`p(95)<${limits[0]}`, `p(99)<${limits[1]}`];
    t[`checks{endpoint:${endpoint}}`] = [`rate>${checksRate}`];
  }
  return Object.assign(t, RUN_FAILURE_THRESHOLDS);
}

/** Iterations a list of stages plans (the area under the rate). @param {{ duration: string, target: number }[]} stages @param {(d: string) => number} seconds */
export function plannedIterations(stages, seconds) {
  let rate = 0;
  let total = 0;
  for (const stage of stages) {
    total += ((rate + stage.target) / 2) * seconds(stage.duration);
    rate = stage.target;
  }
  return Math.round(total);
}

export const SUMMARY_TREND_STATS = ['avg', 'min', 'med', 'p(95)', 'p(99)', 'max'];

/** @param {number | undefined} n */
const fmt = (n) => (n === undefined ? '-' : n.toFixed(n < 10 ? 2 : 0));

/**
 * handleSummary(): a short text on stdout and, where there is a folder for it, the whole
 * summary as JSON: SUMMARY_FILE, or a file under SUMMARY_DIR (`npm run loadtest:k6` creates
 * loadtest/reports and sets it). k6 cannot create a folder, and a summary it cannot write is
 * lost with only a log line, so without either the JSON is not attempted.
 * @param {string} script @param {any} data @param {string} ran  what ran, in words (rates, durations, population)
 */
export function summary(script, data, ran) {
  const file =
    env.SUMMARY_FILE ||
    (settings.summaryDir
      ? `${settings.summaryDir}/k6-${script}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`
      : '');
  const lines = [`${script}: ${settings.baseUrl}, ${ran}`];
  const all = data.metrics || {};
  for (const name of Object.keys(all).sort()) {
    const m = all[name];
    const values = m.values || {};
    const shown =
      'p(99)' in values
        ? `p50 ${fmt(values.med)} p95 ${fmt(values['p(95)'])} p99 ${fmt(values['p(99)'])}`
        : 'rate' in values && 'count' in values
          ? `${values.count} (${fmt(values.rate)}/s)`
          : 'rate' in values
            ? `${(values.rate * 100).toFixed(2)} %`
            : JSON.stringify(values);
    const verdict = m.thresholds
      ? Object.keys(m.thresholds)
          .map((t) => `${m.thresholds[t].ok ? 'ok' : 'FAILED'} ${t}`)
          .join('; ')
      : '';
    lines.push(`  ${name.padEnd(48)} ${shown}${verdict ? `   [${verdict}]` : ''}`);
  }
  lines.push(
    file
      ? `  summary written to ${file}`
      : '  JSON summary not written: run through `npm run loadtest:k6`, or set SUMMARY_DIR to a folder that exists',
  );
  /** @type {Record<string, string>} */
  const out = { stdout: `${lines.join('\n')}\n` };
  if (file) out[file] = JSON.stringify(data, null, 2);
  return out;
}
