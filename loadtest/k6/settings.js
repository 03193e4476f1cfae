// @ts-check
/**
 * What the k6 scripts read from the environment, the arrival schedule, and how many VUs a
 * scenario needs. ES2017 only (see lib/journey.js): k6 v0.47 is the oldest release supported.
 */

const env = __ENV;

/** '90s', '2m', '1m30s' or plain seconds → seconds. @param {string} text */
export function seconds(text) {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const part = /(\d+(?:\.\d+)?)(h|m|s)/g;
  let total = 0;
  let match;
  while ((match = part.exec(text)) !== null)
    total += Number(match[1]) * (match[2] === 'h' ? 3600 : match[2] === 'm' ? 60 : 1);
  if (total <= 0) throw new Error(`cannot read a duration from "${text}"`);
  return total;
}

/** A positive number from the environment, or the fallback. @param {string} name @param {number} fallback */
export function envNumber(name, fallback) {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!(value > 0)) throw new Error(`${name} must be a positive number, got "${text}"`);
  return value;
}

const trimmed = (/** @type {string} */ url) => url.replace(/\/+$/, '');

export const settings = {
  baseUrl: trimmed(env.BASE_URL || 'http://127.0.0.1:8080'),
  paymentsUrl: trimmed(env.PAYMENT_URL || 'http://127.0.0.1:8082'),
  coreUrl: env.CORE_URL ? trimmed(env.CORE_URL) : null,
  peakRps: envNumber('PEAK_RPS', 50000),
  durationSeconds: seconds(env.DURATION || '60s'),
  showtimeId: env.SHOWTIME_ID || '',
  adminToken: env.ADMIN_TOKEN || '',
  paymentApiKey: env.PAYMENT_API_KEY || 'sk_test_sandbox',
  party: envNumber('PARTY', 2),
  buyersPerVu: envNumber('BUYERS_PER_VU', 50),
  /** Expected answer time, for the VUs a request rate needs while waiting on answers. */
  responseSeconds: envNumber('RESPONSE_SECONDS', 0.25),
  /** Where handleSummary writes the JSON summary: set by `npm run loadtest:k6`, which creates it (k6 cannot). */
  summaryDir: env.SUMMARY_DIR || '',
  /** The core's X-Service-Token (CORE_SERVICE_TOKEN, as docker-compose and production set it) for teardown's seat check. */
  coreServiceToken: env.CORE_SERVICE_TOKEN || '',
  /** Let in-flight iterations finish after the last stage; the drain scenario starts after it. */
  gracefulStopSeconds: 10,
  /** The drain's pace across every generator (DRAIN_RPS, default half the peak), and its longest spread. */
  drainRps: envNumber('DRAIN_RPS', envNumber('PEAK_RPS', 50000) / 2),
  drainMaxSeconds: envNumber('DRAIN_MAX_SECONDS', 60),
};

/**
 * Arrival stages for one scenario's share of the peak: a fast climb (the sale opens), the
 * plateau, then a short tail in which no new buyer arrives (buyers already in finish).
 * @param {number} peak @param {number} [durationSeconds]
 */
export function openingMinute(peak, durationSeconds) {
  const d = durationSeconds || settings.durationSeconds;
  const s = (/** @type {number} */ f) => Math.max(1, Math.round(d * f));
  return [
    { duration: `${s(0.1)}s`, target: Math.round(peak * 0.2) },
    { duration: `${s(0.15)}s`, target: Math.round(peak) },
    { duration: `${s(0.65)}s`, target: Math.round(peak) },
    { duration: `${s(0.1)}s`, target: 0 },
  ];
}

/** Seconds the stages last. @param {{ duration: string }[]} stages */
export const stagesSeconds = (stages) => stages.reduce((sum, stage) => sum + seconds(stage.duration), 0);

/**
 * VUs for one `ramping-arrival-rate` scenario by Little's law: VUs busy = iterations/s × seconds
 * per iteration. A VU multiplexes `buyersPerVu` buyers who each send a request every
 * `paceSeconds` on average, so an iteration waits `paceSeconds / buyersPerVu` for the next
 * buyer due, then `responseSeconds` for the answer; 10 % and 10 VUs on top. All of them are
 * pre-allocated: a VU k6 has to create mid-test costs a VU's init while the rate climbs, and
 * shows up as dropped iterations and a latency spike of the generator, not of the system.
 * Overrides: PRE_VUS_<SCENARIO> / MAX_VUS_<SCENARIO> (PRE_VUS / MAX_VUS for the main one).
 * @param {string} scenario @param {number} rps @param {number} paceSeconds @param {boolean} [main]
 */
export function vusFor(scenario, rps, paceSeconds, main) {
  const iterationSeconds = paceSeconds / settings.buyersPerVu + settings.responseSeconds;
  const planned = Math.ceil(rps * iterationSeconds * 1.1) + 10;
  const name = scenario.toUpperCase();
  const pre = envNumber(`PRE_VUS_${name}`, main ? envNumber('PRE_VUS', planned) : planned);
  const max = envNumber(`MAX_VUS_${name}`, main ? envNumber('MAX_VUS', pre) : pre);
  return { preAllocatedVUs: Math.ceil(pre), maxVUs: Math.ceil(Math.max(pre, max)) };
}

/**
 * The scenario that runs after the others: every VU gives back what its buyers still hold
 * (holds, places in line, turns), paced (buyers.js `drainBuyers`) and tagged `phase:drain`, so
 * the run's thresholds describe the run, not a burst of leaves at its end. k6 hands VUs of
 * finished scenarios to later ones, so with `vus` = all pre-allocated VUs each VU runs it once.
 * @param {number} vus @param {number} startSeconds
 * @returns {import('k6/options').Scenario}
 */
export function drainScenario(vus, startSeconds) {
  return {
    executor: /** @type {'per-vu-iterations'} */ ('per-vu-iterations'),
    exec: 'drain',
    vus,
    iterations: 1,
    startTime: `${Math.ceil(startSeconds)}s`,
    maxDuration: `${Math.ceil(settings.drainMaxSeconds + 30)}s`,
    gracefulStop: '5s',
  };
}
