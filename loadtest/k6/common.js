// @ts-check
/**
 * What the three k6 scripts share: settings from the environment, the arrival schedule, the
 * k6 transport for the shared buyer journey (../lib/journey.js), custom metrics, setup,
 * teardown checks and the JSON summary.
 *
 * One k6 iteration is ONE request of ONE virtual buyer, so a `ramping-arrival-rate` target is a
 * request rate. Each VU multiplexes many buyers (a browser tab each, with its own cookie jar):
 * an iteration steps the buyer whose next request is due; when none is due it brings a new
 * buyer in (an arrival) while the VU has room, otherwise it sleeps until the earliest one is
 * due. Buyers never poll before the server's `pollAfterMs`: if the VUs cannot hold enough
 * buyers to make the asked rate at the server's pace, k6 reports `dropped_iterations`.
 */
import http from 'k6/http';
import exec from 'k6/execution';
import { sleep } from 'k6';
import { Counter, Trend } from 'k6/metrics';
import { applyResponse, EXPECTED_STATUSES, newBuyer, nextRequest } from '../lib/journey.js';

/** @typedef {import('../lib/journey.js').Buyer} Buyer */
/** @typedef {import('../lib/journey.js').JourneySettings} JourneySettings */

const env = __ENV;

/** '90s', '2m', '1m30s' or plain seconds → seconds. @param {string} text */
export function seconds(text) {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  let total = 0;
  for (const [, n, unit] of text.matchAll(/(\d+(?:\.\d+)?)(h|m|s)/g)) total += Number(n) * (unit === 'h' ? 3600 : unit === 'm' ? 60 : 1);
  if (total <= 0) throw new Error(`cannot read a duration from "${text}"`);
  return total;
}

export const settings = {
  baseUrl: (env.BASE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, ''),
  paymentsUrl: (env.PAYMENT_URL || 'http://127.0.0.1:8082').replace(/\/+$/, ''),
  coreUrl: env.CORE_URL ? env.CORE_URL.replace(/\/+$/, '') : null,
  peakRps: Number(env.PEAK_RPS || 50_000),
  durationSeconds: seconds(env.DURATION || '60s'),
  showtimeId: env.SHOWTIME_ID || '',
  adminToken: env.ADMIN_TOKEN || '',
  paymentApiKey: env.PAYMENT_API_KEY || 'sk_test_sandbox',
  party: Number(env.PARTY || 2),
  buyersPerVu: Number(env.BUYERS_PER_VU || 50),
  summaryDir: env.SUMMARY_DIR || 'loadtest/reports',
};

/**
 * Arrival stages for one scenario's share of the peak: a fast climb (the sale opens), the
 * plateau, then a short tail. @param {number} peak
 */
export function openingMinute(peak) {
  const d = settings.durationSeconds;
  const s = (/** @type {number} */ f) => `${Math.max(1, Math.round(d * f))}s`;
  return [
    { duration: s(0.1), target: Math.round(peak * 0.2) },
    { duration: s(0.15), target: Math.round(peak) },
    { duration: s(0.65), target: Math.round(peak) },
    { duration: s(0.1), target: 0 },
  ];
}

/**
 * VUs for a request rate: enough to hold the buyers that rate needs when each comes back every
 * `paceSeconds` (`buyersPerVu` per VU), and never fewer than the rate times a 250 ms answer
 * (a VU waits for each answer). MAX_VUS and PRE_VUS override. @param {number} rps @param {number} paceSeconds
 */
export function vusFor(rps, paceSeconds) {
  const max = Number(env.MAX_VUS || Math.ceil(Math.max((rps * paceSeconds) / settings.buyersPerVu, rps * 0.25)) + 50);
  return { preAllocatedVUs: Number(env.PRE_VUS || Math.ceil(max / 4)), maxVUs: max };
}

export const metrics = {
  admitted: new Counter('buyers_admitted'),
  timeInQueue: new Trend('time_in_queue', true),
  holdsWon: new Counter('holds_won'),
  conflicts: new Counter('hold_conflicts'),
  rateLimited: new Counter('rate_limited'),
  booked: new Counter('bookings'),
  gaveUp: new Counter('buyers_gave_up'),
  journeyTime: new Trend('arrival_to_booking', true),
};

/** 409 and 429 (and 410, a lapsed turn) are answers a buyer expects, not failures. */
export const expected = http.expectedStatuses(...EXPECTED_STATUSES);

/** Thresholds shared by the scripts: failures, p99 per endpoint, dropped iterations. @param {Record<string, number>} p99Ms */
export function thresholds(p99Ms) {
  /** @type {Record<string, string[]>} */
  const t = {
    http_req_failed: ['rate<0.01'],
    dropped_iterations: [`count<${Math.max(1, Math.round(settings.peakRps * settings.durationSeconds * 0.01))}`],
  };
  for (const [endpoint, ms] of Object.entries(p99Ms)) t[`http_req_duration{endpoint:${endpoint}}`] = [`p(99)<${ms}`];
  return t;
}

/** @type {Map<number, import('k6/http').CookieJar>} */
const jars = new Map();
/** @type {Buyer[]} */
const pool = [];
let arrivals = 0;

/** Sends one journey request through k6/http, tagged with its endpoint. @param {Buyer} buyer @param {import('../lib/journey.js').JourneyRequest} req */
function send(buyer, req) {
  let jar = jars.get(buyer.index);
  if (!jar) jars.set(buyer.index, (jar = new http.CookieJar()));
  const base = req.target === 'payments' ? settings.paymentsUrl : settings.baseUrl;
  const res = http.request(req.method, `${base}${req.path}`, req.body, {
    headers: req.headers, jar, responseCallback: expected, tags: { endpoint: req.endpoint, name: req.endpoint }, timeout: '10s',
  });
  let json = null;
  try {
    json = typeof res.body === 'string' && res.body.length > 0 ? JSON.parse(res.body) : null;
  } catch (_) {
    json = null;
  }
  const retryAfter = Number(res.headers['Retry-After']);
  return { status: res.status, json, retryAfterSeconds: Number.isFinite(retryAfter) ? retryAfter : null };
}

/**
 * One iteration: one request of the buyer that is due (or of a new arrival).
 * @param {JourneySettings} journey
 */
export function step(journey) {
  let now = Date.now();
  let next = pool.length ? pool.reduce((a, b) => (b.dueAt < a.dueAt ? b : a)) : null;
  if (!next || (next.dueAt > now && pool.length < settings.buyersPerVu)) {
    next = newBuyer(exec.vu.idInTest * 4096 + (arrivals++ % 4096), now);
    pool.push(next);
  } else if (next.dueAt > now) {
    sleep(Math.min(60, (next.dueAt - now) / 1000));
    now = Date.now();
  }
  const buyer = next;
  const req = nextRequest(buyer, journey);
  if (req) {
    const res = send(buyer, req);
    for (const event of applyResponse(buyer, journey, res, Date.now())) record(event);
  }
  if (buyer.phase === 'done' || !req) {
    pool.splice(pool.indexOf(buyer), 1);
    jars.delete(buyer.index);
  }
}

/** @param {import('../lib/journey.js').JourneyEvent} event */
function record(event) {
  if (event.type === 'admitted') metrics.admitted.add(1);
  else if (event.type === 'queue_time' && event.value !== undefined) metrics.timeInQueue.add(event.value);
  else if (event.type === 'hold_won') metrics.holdsWon.add(1);
  else if (event.type === 'conflict') metrics.conflicts.add(1);
  else if (event.type === 'rate_limited') metrics.rateLimited.add(1);
  else if (event.type === 'booked') {
    metrics.booked.add(1);
    if (event.value !== undefined) metrics.journeyTime.add(event.value);
  } else if (event.type === 'gave_up_seats' || event.type === 'outcome_gave_up') metrics.gaveUp.add(1);
}

/** @param {string} method @param {string} url @param {unknown} [body] */
function admin(method, url, body) {
  return http.request(method, url, body === undefined ? null : JSON.stringify(body), {
    headers: { authorization: `Bearer ${settings.adminToken}`, 'content-type': 'application/json', 'x-operator': 'k6' },
    tags: { endpoint: 'admin', name: 'admin' },
    responseCallback: http.expectedStatuses({ min: 200, max: 299 }, 404),
  });
}

/**
 * setup(): the showtime (SHOWTIME_ID, or the first one on sale) and, with ADMIN_TOKEN and any of
 * ROOM_CAPACITY / ADMIT_PER_MINUTE / SESSION_TTL_SECONDS, the room's settings for this rehearsal.
 * @param {{ capacity?: number, admitPerMinute?: number }} [defaults]
 */
export function prepare(defaults = {}) {
  let showtimeId = settings.showtimeId;
  if (!showtimeId) {
    const list = http.get(`${settings.baseUrl}/api/showtimes`, { tags: { endpoint: 'catalog', name: 'catalog' } });
    const shows = /** @type {any[]} */ (list.status === 200 ? list.json() : []);
    const onSale = shows.find((s) => s.saleState === 'on_sale');
    if (!onSale) exec.test.abort('No SHOWTIME_ID given and no showtime on sale at BASE_URL');
    showtimeId = String(onSale.id);
  }
  const capacity = Number(env.ROOM_CAPACITY || defaults.capacity || 0);
  const admitPerMinute = Number(env.ADMIT_PER_MINUTE || defaults.admitPerMinute || 0);
  const sessionTtlSeconds = Number(env.SESSION_TTL_SECONDS || 0);
  if (settings.adminToken && (capacity || admitPerMinute || sessionTtlSeconds)) {
    /** @type {Record<string, unknown>} */
    const patch = { state: 'open' };
    if (capacity) patch.capacity = capacity;
    if (admitPerMinute) patch.admitPerMinute = admitPerMinute;
    if (sessionTtlSeconds) patch.sessionTtlSeconds = sessionTtlSeconds;
    const res = admin('PUT', `${settings.baseUrl}/api/admin/showtimes/${showtimeId}/room`, patch);
    if (res.status !== 200) console.warn(`room settings not applied: ${res.status} ${res.body}`);
  }
  return { showtimeId, startedAt: new Date().toISOString() };
}

/** Journey settings for a script. @param {string} showtimeId @param {Partial<JourneySettings>} [overrides] @returns {JourneySettings} */
export function journeyFor(showtimeId, overrides = {}) {
  return {
    showtimeId, party: settings.party, maxHoldTries: 3, seatPreference: 'best', paymentApiKey: settings.paymentApiKey,
    maxWaitMs: settings.durationSeconds * 1000 + 30_000, random: Math.random, ...overrides,
  };
}

/**
 * teardown(): what can be checked over HTTP (the core's seat counts with CORE_URL, the room's
 * stats), then the full invariant check is `npm run loadtest:verify` on the run's database.
 * @param {{ showtimeId: string }} data
 */
export function verifyOverHttp(data) {
  if (settings.adminToken) {
    const room = admin('GET', `${settings.baseUrl}/api/admin/showtimes/${data.showtimeId}/room`);
    if (room.status === 200) console.log(`room ${data.showtimeId}: ${JSON.stringify(/** @type {any} */ (room.json()).stats)}`);
  }
  if (settings.coreUrl && settings.adminToken) {
    const show = admin('GET', `${settings.coreUrl}/admin/showtimes/${data.showtimeId}`);
    const counts = show.status === 200 ? /** @type {any} */ (show.json()).counts : null;
    if (counts) {
      const sum = counts.held + counts.booked + counts.available;
      console.log(`seats of showtime ${data.showtimeId}: held ${counts.held} + booked ${counts.booked} + available ${counts.available} = ${sum}, hall ${counts.total}`);
      if (sum !== counts.total) exec.test.fail(`seat accounting broken: ${sum} != ${counts.total}`);
    }
  }
  console.log(`Full invariant check on the run's database: DATABASE_URL=… npm run loadtest:verify -- --showtime ${data.showtimeId}`);
}

/**
 * handleSummary(): the whole summary as JSON under SUMMARY_DIR, and a short text on stdout.
 * @param {string} script @param {any} data
 */
export function summary(script, data) {
  const file = env.SUMMARY_FILE || `${settings.summaryDir}/k6-${script}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  const lines = [`${script}: ${settings.baseUrl}, peak ${settings.peakRps} req/s, ${settings.durationSeconds}s`];
  for (const [name, metric] of Object.entries(data.metrics ?? {})) {
    const m = /** @type {any} */ (metric);
    const values = m.values ?? {};
    const shown = 'p(99)' in values ? `p50 ${fmt(values.med)} p99 ${fmt(values['p(99)'])}` : 'rate' in values && 'count' in values ? `${values.count} (${fmt(values.rate)}/s)` : 'rate' in values ? `${(values.rate * 100).toFixed(2)} %` : JSON.stringify(values);
    const verdict = m.thresholds ? Object.entries(m.thresholds).map(([t, r]) => `${/** @type {any} */ (r).ok ? 'ok' : 'FAILED'} ${t}`).join('; ') : '';
    lines.push(`  ${name.padEnd(42)} ${shown}${verdict ? `   [${verdict}]` : ''}`);
  }
  lines.push(`  summary written to ${file}`);
  return { [file]: JSON.stringify(data, null, 2), stdout: `${lines.join('\n')}\n` };
}

/** @param {number | undefined} n */
const fmt = (n) => (n === undefined ? '-' : n.toFixed(n < 10 ? 2 : 0));
