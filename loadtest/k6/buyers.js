// @ts-check
/**
 * The k6 transport for the shared buyer journey (../lib/journey.js): one k6 iteration is ONE
 * request of ONE virtual buyer, so a `ramping-arrival-rate` target is a request rate. Each VU
 * multiplexes up to `buyersPerVu` buyers (a cookie jar each): an iteration steps the buyer
 * whose next request is due; when none is due it brings a new buyer in (an arrival) while the
 * VU has room and arrivals are open, otherwise it sleeps until the earliest one is due. Buyers
 * never poll before the server's `pollAfterMs`.
 *
 * Generator cost is part of the design (k6 runs this in goja, an interpreter): a response body
 * is parsed once (JSON.parse of the text, never `res.json()` on top), a seat map is read as the
 * compact view (`?view=available`: strings per row, picked by index arithmetic, dropped once
 * picked), and answers whose body no step reads are not even kept (`responseType: 'none'`).
 */
import http from 'k6/http';
import exec from 'k6/execution';
import { check, sleep } from 'k6';
import { Counter, Rate, Trend } from 'k6/metrics';
import {
  applyResponse,
  closeIdle,
  EXPECTED_BY_ENDPOINT,
  EXPECTED_STATUSES,
  newBuyer,
  nextRequest,
  startLeaving,
  syntheticAddress,
} from '../lib/journey.js';
import { settings } from './settings.js';

/** @typedef {import('../lib/journey.js').Buyer} Buyer */
/** @typedef {import('../lib/journey.js').JourneySettings} JourneySettings */
/** @typedef {import('../lib/journey.js').JourneyRequest} JourneyRequest */
/**
 * @typedef {object} Plan
 * @property {number} arrivalsEndAtMs
 * @property {number} stepsEndAtMs
 * @property {(nowMs: number) => string} [phaseOf]
 * @property {number} [buyersPerVu]
 * @property {boolean} [returnWhenIdle]  nothing due: end the iteration at once instead of sleeping
 *   until the next buyer is due. A poll storm holds a whole line in its VUs; sleeping iterations
 *   would hold VUs too, so the rate could never be met (dropped iterations, late polls).
 */

export const OUTCOMES = ['booked', 'held', 'admitted', 'no_seats', 'sold_out', 'closed', 'gave_up', 'stopped', 'error'];

export const metrics = {
  admitted: new Counter('buyers_admitted'),
  timeInQueue: new Trend('time_in_queue', true),
  holdsWon: new Counter('holds_won'),
  holdsReleased: new Counter('holds_released'),
  conflicts: new Counter('hold_conflicts'),
  rateLimited: new Counter('rate_limited'),
  booked: new Counter('bookings'),
  journeyTime: new Trend('arrival_to_booking', true),
  /** One sample per finished journey: 1 when it ended in an error (a threshold keeps it low). */
  journeyFailed: new Rate('journey_failed'),
  /** Per plateau request: 1 for a poll (poll-storm wants ≥ 90 %). */
  pollShare: new Rate('poll_share'),
  /** Generator cost: bytes handed to JSON.parse, and a buyer's state right after a seat map. */
  parsedBytes: new Counter('generator_parsed_bytes'),
  buyerBytes: new Trend('generator_buyer_bytes'),
};
/** @type {Record<string, Counter>} */
const outcomes = {};
for (const outcome of OUTCOMES) outcomes[outcome] = new Counter(`journey_${outcome}`);

/** 409, 410 and 429 are answers a buyer expects, not failures. */
export const expected = http.expectedStatuses(...EXPECTED_STATUSES);
/** Endpoints whose answer body a step reads; the others are discarded at the socket. */
const READS_BODY = {
  login: true,
  join: true,
  poll: true,
  seats: true,
  hold: true,
  checkout: true,
  hold_status: true,
  booking: true,
};

/** @type {Map<number, import('k6/http').CookieJar>} */
const jars = new Map();
/** @type {Buyer[]} */
const pool = [];
let arrivals = 0;

/**
 * Per request, nothing that can be made once is made again (goja allocates every object and
 * closure, and its GC was a sixth of the generator's CPU): tags per endpoint and phase, and
 * one check per endpoint, are built on first use.
 * @type {Record<string, Record<string, string>>}
 */
const tagSets = {};
/** @param {string} endpoint @param {string} phase */
function tagsFor(endpoint, phase) {
  const key = `${endpoint}/${phase}`;
  return tagSets[key] || (tagSets[key] = { endpoint, name: endpoint, phase });
}
/** @type {Record<string, Record<string, (r: import('k6/http').RefinedResponse<any>) => boolean>>} */
const checks = {};
/** @param {string} endpoint */
function checkFor(endpoint) {
  const wanted = EXPECTED_BY_ENDPOINT[/** @type {import('../lib/journey.js').Endpoint} */ (endpoint)];
  return (
    checks[endpoint] ||
    (checks[endpoint] = { [`${endpoint} answered as expected`]: (r) => wanted.indexOf(r.status) !== -1 })
  );
}

/** The buyer due first (k6's goja runs `for…of` through a slow iterator: indexed loops here). */
function earliest() {
  let next = null;
  for (let i = 0; i < pool.length; i++) {
    const buyer = /** @type {Buyer} */ (pool[i]);
    if (!next || buyer.dueAt < next.dueAt) next = buyer;
  }
  return next;
}

/** Sends one journey request through k6/http, checks its class of answer. @param {Buyer} buyer @param {JourneyRequest} req @param {string} phase */
function send(buyer, req, phase) {
  let jar = jars.get(buyer.index);
  if (!jar) jars.set(buyer.index, (jar = new http.CookieJar()));
  const base = req.target === 'payments' ? settings.paymentsUrl : settings.baseUrl;
  const tags = tagsFor(req.endpoint, phase);
  const res = http.request(req.method, `${base}${req.path}`, req.body, {
    headers: req.headers,
    jar,
    responseCallback: expected,
    tags,
    timeout: '10s',
    responseType: /** @type {any} */ (READS_BODY)[req.endpoint] ? 'text' : 'none',
  });
  check(res, checkFor(req.endpoint), tags);
  let json = null;
  // Seat maps come as the compact view (a few KB of strings for 1,440 seats, lib/seat-choice.js),
  // so every body a step reads is parsed once, the same way.
  if (typeof res.body === 'string' && res.body.length > 0) {
    metrics.parsedBytes.add(res.body.length, tags);
    try {
      json = JSON.parse(res.body);
    } catch (_error) {
      json = null; // not JSON: the journey treats it as an answer without a body
    }
  }
  const retryAfter = Number(res.headers['Retry-After']);
  return { status: res.status, json, retryAfterSeconds: Number.isFinite(retryAfter) ? retryAfter : null };
}

/** @param {import('../lib/journey.js').JourneyEvent} event */
function record(event) {
  const type = event.type;
  if (type === 'admitted') metrics.admitted.add(1);
  else if (type === 'queue_time' && event.value !== undefined) metrics.timeInQueue.add(event.value);
  else if (type === 'hold_won') metrics.holdsWon.add(1);
  else if (type === 'hold_released') metrics.holdsReleased.add(1);
  else if (type === 'conflict') metrics.conflicts.add(1);
  else if (type === 'rate_limited') metrics.rateLimited.add(1);
  else if (type === 'booked') {
    metrics.booked.add(1);
    if (event.value !== undefined) metrics.journeyTime.add(event.value);
  } else if (type.indexOf('outcome_') === 0) {
    const outcome = type.slice('outcome_'.length);
    if (outcomes[outcome]) outcomes[outcome].add(1);
    metrics.journeyFailed.add(outcome === 'error');
  }
}

/**
 * Sends the buyer's next request (if any) and records what happened; a finished buyer leaves
 * the pool. @param {Buyer} buyer @param {JourneySettings} journey @param {string} phase
 * @returns {import('../lib/journey.js').JourneyEvent[]}
 */
function advance(buyer, journey, phase) {
  const req = nextRequest(buyer, journey);
  let events;
  if (req) {
    const res = send(buyer, req, phase);
    if (phase === 'plateau') metrics.pollShare.add(req.endpoint === 'poll', { phase });
    events = applyResponse(buyer, journey, res, Date.now());
    if (req.endpoint === 'seats') metrics.buyerBytes.add(JSON.stringify(buyer).length);
  } else events = closeIdle(buyer);
  for (let i = 0; i < events.length; i++) record(/** @type {import('../lib/journey.js').JourneyEvent} */ (events[i]));
  if (buyer.phase === 'done' || !req) {
    // Order in the pool does not matter: the last buyer takes the leaver's place.
    const at = pool.indexOf(buyer);
    const last = /** @type {Buyer} */ (pool.pop());
    if (at < pool.length) pool[at] = last;
    jars.delete(buyer.index);
  }
  return events;
}

/** A new buyer in this VU's pool, with an address no other buyer of the run has. */
function arrive(/** @type {number} */ now) {
  arrivals++;
  const buyer = newBuyer(arrivals, now, syntheticAddress(exec.vu.idInTest, arrivals));
  pool.push(buyer);
  return buyer;
}

/**
 * A fixed population in one long iteration (opening.js): buyers arrive at the given times and
 * go on at the server's pace until `untilMs`, then give back what they hold (drain).
 * @param {JourneySettings} journey @param {number[]} arrivalsAtMs ascending
 * @param {{ untilMs: number, drainVus: number, phaseOf: (nowMs: number) => string, onEvent?: (event: import('../lib/journey.js').JourneyEvent, nowMs: number) => void }} run
 */
export function runPopulation(journey, arrivalsAtMs, run) {
  let arrived = 0;
  while (Date.now() < run.untilMs && (arrived < arrivalsAtMs.length || pool.length > 0)) {
    let next = earliest();
    const arrivalAt = arrived < arrivalsAtMs.length ? arrivalsAtMs[arrived] : Infinity;
    const dueAt = Math.min(arrivalAt, next ? next.dueAt : Infinity, run.untilMs);
    const wait = dueAt - Date.now();
    if (wait > 0) sleep(wait / 1000);
    const now = Date.now();
    if (now >= run.untilMs) break;
    if (arrivalAt <= now) {
      arrived++;
      next = arrive(now);
    }
    if (!next || next.dueAt > now) continue;
    const events = advance(next, journey, run.phaseOf(now));
    if (run.onEvent) for (const event of events) run.onEvent(event, now);
  }
  drainBuyers(journey, run.drainVus);
}

/**
 * One iteration: one request of the buyer that is due (or of a new arrival).
 * @param {JourneySettings} journey @param {Plan} plan
 */
export function step(journey, plan) {
  let now = Date.now();
  const phase = plan.phaseOf ? plan.phaseOf(now) : 'run';
  let next = earliest();
  const open = now < plan.arrivalsEndAtMs;
  if (open && (!next || (next.dueAt > now && pool.length < (plan.buyersPerVu || settings.buyersPerVu)))) {
    next = arrive(now);
  } else if (!next) {
    return;
  } else if (next.dueAt > now) {
    if (plan.returnWhenIdle) return;
    // Never past the end of the steps: the iteration must end inside the graceful stop.
    const wait = Math.min(next.dueAt, plan.stepsEndAtMs) - now;
    if (wait > 0) sleep(Math.min(60, wait / 1000));
    now = Date.now();
    if (next.dueAt > now) return;
  }
  advance(next, journey, phase);
}

/**
 * The drain scenario's iteration: every buyer this VU still has gives back what it holds
 * (a hold not paid is cancelled, the line or the room is left; a paid buyer reads its
 * booking first), tagged `phase:drain`. Paced: this VU's buyers start leaving one after another
 * at its share of DRAIN_RPS (`vus` VUs drain at once), at most DRAIN_MAX_SECONDS apart from the
 * first to the last; at 50,000 req/s a million buyers are in flight, and all at once they
 * would be a load no opening minute has.
 * @param {JourneySettings} journey @param {number} vus
 */
export function drainBuyers(journey, vus) {
  const start = Date.now();
  const spreadMs = Math.min(
    settings.drainMaxSeconds * 1000,
    (1000 * pool.length * Math.max(1, vus)) / settings.drainRps,
  );
  const gapMs = pool.length ? spreadMs / pool.length : 0;
  const offsetMs = journey.random() * gapMs; // VUs out of step with each other
  for (let k = 0; k < pool.length; k++) startLeaving(pool[k], start + offsetMs + k * gapMs);
  const deadline = start + spreadMs + 25000;
  while (pool.length && Date.now() < deadline) {
    const next = /** @type {Buyer} */ (earliest());
    const wait = next.dueAt - Date.now();
    if (wait > 0) sleep(Math.min(wait, deadline - Date.now()) / 1000);
    advance(next, journey, 'drain');
  }
  if (pool.length) console.warn(`VU ${exec.vu.idInTest}: ${pool.length} buyers not drained in time`);
}

/** Buyers this VU holds (for tests and the drain). */
export const poolSize = () => pool.length;
