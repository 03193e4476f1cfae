// @ts-check
/**
 * The buyer journey as a transport-free state machine, shared word for word by the k6 scripts
 * (synchronous k6/http) and the Node harness (async fetch): `nextRequest` says what the buyer
 * sends next and when, `applyResponse` moves the buyer on and reports what happened.
 *
 * Journey: demo login → join → poll at the server's `pollAfterMs` until admitted → seat map →
 * hold adjacent seats (after a 409, a fresh map and other seats; at most three tries) → checkout → approve at
 * the payment sandbox → read the hold until it names its booking → read the booking → leave.
 * 409 and 429 are answers, not failures: 429 waits Retry-After and tries the same step again.
 */

/** @typedef {'login'|'join'|'poll'|'seats'|'hold'|'cancel'|'checkout'|'approve'|'hold_status'|'booking'|'leave'} Endpoint */
/** @typedef {'edge'|'payments'} Target */
/**
 * @typedef {object} JourneyRequest
 * @property {Endpoint} endpoint   tag for metrics
 * @property {Target} target       which base URL
 * @property {string} method
 * @property {string} path
 * @property {Record<string, string>} headers
 * @property {string | null} body
 */
/** @typedef {{ status: number, json: any, retryAfterSeconds: number | null }} JourneyResponse */
/**
 * @typedef {object} JourneySettings
 * @property {string} showtimeId
 * @property {number} party            seats wanted together (1-8)
 * @property {number} maxHoldTries     3 by the issue
 * @property {'best'|'random'} seatPreference  `best`: everyone wants the centre of the front rows
 * @property {string} paymentApiKey    sandbox key for the approve call
 * @property {number} maxWaitMs        a buyer gives up waiting in line after this long
 * @property {boolean} [pollOnly]      leave as soon as admitted (poll-storm)
 * @property {'checkout'|'cancel'} [afterHold]  `cancel`: give a won hold back at once and leave (hold-race)
 * @property {() => number} random
 */
/**
 * @typedef {object} Buyer
 * @property {number} index
 * @property {string} phase
 * @property {number} dueAt
 * @property {string} clientAddress   synthetic X-Forwarded-For (the edge needs TRUST_PROXY=1)
 * @property {string|null} customerToken
 * @property {string|null} customerId
 * @property {string|null} queueToken
 * @property {string|null} accessToken
 * @property {number} joinedAt
 * @property {number|null} admittedAt
 * @property {string[]} taken         seats seen taken (seat map + 409 answers)
 * @property {any[]} seatMap
 * @property {string[]} wanted
 * @property {number} holdTries
 * @property {string|null} holdId
 * @property {string|null} paymentId
 * @property {string|null} bookingId
 * @property {number} statusReads
 * @property {number} retries
 * @property {string|null} outcome   booked | no_seats | sold_out | closed | gave_up | error
 */
/** @typedef {{ type: string, value?: number }} JourneyEvent */

const MAX_RETRIES = 8;
const MAX_STATUS_READS = 40;

/** @param {number} index @param {number} now @returns {Buyer} */
export function newBuyer(index, now) {
  return {
    index, phase: 'login', dueAt: now,
    clientAddress: `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`,
    customerToken: null, customerId: null, queueToken: null, accessToken: null,
    joinedAt: now, admittedAt: null, taken: [], seatMap: [], wanted: [], holdTries: 0,
    holdId: null, paymentId: null, bookingId: null, statusReads: 0, retries: 0, outcome: null,
  };
}

/** @param {Buyer} buyer @param {string|null} token */
function headers(buyer, token) {
  /** @type {Record<string, string>} */
  const h = { 'x-forwarded-for': buyer.clientAddress, accept: 'application/json' };
  if (token) h.authorization = `Bearer ${token}`;
  return h;
}

/** @param {Buyer} buyer @param {Endpoint} endpoint @param {string} method @param {string} path @param {string|null} token @param {unknown} [body] @returns {JourneyRequest} */
function edge(buyer, endpoint, method, path, token, body) {
  const h = headers(buyer, token);
  if (body !== undefined) h['content-type'] = 'application/json';
  return { endpoint, target: 'edge', method, path, headers: h, body: body === undefined ? null : JSON.stringify(body) };
}

/** What the buyer sends next; null once the journey is over. @param {Buyer} buyer @param {JourneySettings} s @returns {JourneyRequest|null} */
export function nextRequest(buyer, s) {
  const show = encodeURIComponent(s.showtimeId);
  switch (buyer.phase) {
    case 'login': return edge(buyer, 'login', 'POST', '/api/auth/demo', null, {});
    case 'join': return edge(buyer, 'join', 'POST', `/api/showtimes/${show}/queue`, buyer.customerToken);
    case 'poll': {
      const r = edge(buyer, 'poll', 'GET', `/api/showtimes/${show}/queue`, null);
      r.headers['x-queue-token'] = buyer.queueToken ?? '';
      return r;
    }
    case 'seats': return edge(buyer, 'seats', 'GET', `/api/showtimes/${show}/seats`, buyer.accessToken);
    case 'hold': return edge(buyer, 'hold', 'POST', `/api/showtimes/${show}/holds`, buyer.accessToken, { seats: buyer.wanted });
    case 'cancel': return edge(buyer, 'cancel', 'DELETE', `/api/holds/${buyer.holdId}`, buyer.accessToken);
    case 'checkout': {
      const r = edge(buyer, 'checkout', 'POST', `/api/holds/${buyer.holdId}/checkout`, buyer.accessToken, {});
      r.headers['idempotency-key'] = `lt-${buyer.customerId}-${buyer.holdId}`;
      return r;
    }
    case 'approve': return {
      endpoint: 'approve', target: 'payments', method: 'POST', path: `/v1/payments/${buyer.paymentId}/approve`,
      headers: { authorization: `Bearer ${s.paymentApiKey}`, accept: 'application/json' }, body: null,
    };
    case 'hold_status': return edge(buyer, 'hold_status', 'GET', `/api/holds/${buyer.holdId}`, buyer.accessToken);
    case 'booking': return edge(buyer, 'booking', 'GET', `/api/bookings/${buyer.bookingId}`, buyer.accessToken);
    case 'leave': return edge(buyer, 'leave', 'DELETE', `/api/showtimes/${show}/queue`, buyer.customerToken);
    default: return null;
  }
}

/**
 * Ends the journey; an admitted buyer who did not book leaves the room first, so the slot
 * goes back at once (as the page does when it closes).
 * @param {Buyer} buyer @param {string} outcome @param {JourneyEvent[]} events @param {number} [now]
 */
function finish(buyer, outcome, events, now) {
  if (now !== undefined && buyer.admittedAt !== null && outcome !== 'booked' && buyer.phase !== 'leave' && buyer.customerToken) {
    buyer.outcome = outcome;
    buyer.phase = 'leave';
    buyer.dueAt = now;
    return;
  }
  buyer.phase = 'done';
  buyer.outcome = outcome;
  events.push({ type: `outcome_${outcome}` });
}

/** Picks `party` adjacent free seats: the most central run of the front-most rows, or any run. @param {Buyer} buyer @param {JourneySettings} s @returns {string[]} */
export function pickSeats(buyer, s) {
  const taken = new Set(buyer.taken);
  /** @type {Map<number, any[]>} */
  const rows = new Map();
  for (const seat of buyer.seatMap) {
    if (seat.status !== 'AVAILABLE' || taken.has(seat.code)) continue;
    const row = rows.get(seat.row) ?? [];
    row.push(seat);
    rows.set(seat.row, row);
  }
  /** @type {{ codes: string[], score: number }[]} */
  const runs = [];
  let widest = 1;
  for (const seat of buyer.seatMap) widest = Math.max(widest, seat.column);
  for (const [row, seats] of rows) {
    seats.sort((a, b) => a.column - b.column);
    for (let i = 0; i + s.party <= seats.length; i++) {
      const run = seats.slice(i, i + s.party);
      if (run[run.length - 1].column - run[0].column !== s.party - 1) continue;
      const centre = (run[0].column + run[run.length - 1].column) / 2;
      runs.push({ codes: run.map((seat) => seat.code), score: row * 2 + Math.abs(centre - (widest + 1) / 2) });
    }
  }
  if (runs.length === 0) return [];
  if (s.seatPreference === 'random') return runs[Math.floor(s.random() * runs.length)]?.codes ?? [];
  runs.sort((a, b) => a.score - b.score);
  // Everyone wants the best seats: the first try aims at the top few runs, and each 409 widens
  // the choice (top 3, 12, 48), as a buyer settles for what is left.
  const spread = 3 * 4 ** Math.min(buyer.holdTries, 3);
  return runs[Math.floor(s.random() * Math.min(spread, runs.length))]?.codes ?? [];
}

/** @param {Buyer} buyer @param {JourneySettings} s @param {number} now @param {JourneyEvent[]} events */
function tryHold(buyer, s, now, events) {
  const seats = pickSeats(buyer, s);
  if (buyer.holdTries >= s.maxHoldTries || seats.length === 0) {
    events.push({ type: 'gave_up_seats' });
    buyer.outcome = 'no_seats';
    buyer.phase = 'leave'; // give the admission slot back at once
    buyer.dueAt = now;
    return;
  }
  buyer.wanted = seats;
  buyer.phase = 'hold';
  buyer.dueAt = now;
}

/** @param {Buyer} buyer @param {number} now @param {any} body @param {JourneyEvent[]} events */
function onQueueAnswer(buyer, now, body, events) {
  if (body.queueToken) buyer.queueToken = body.queueToken;
  if (body.accessToken) {
    buyer.accessToken = body.accessToken;
    buyer.admittedAt = now;
    events.push({ type: 'admitted' }, { type: 'queue_time', value: now - buyer.joinedAt });
    buyer.phase = 'seats';
    buyer.dueAt = now;
    return;
  }
  if (body.state === 'sold_out' || body.state === 'closed') return finish(buyer, body.state, events);
  buyer.phase = 'poll';
  buyer.dueAt = now + Math.max(50, Number(body.pollAfterMs) || 1000);
}

/**
 * Moves the buyer on after an answer (status 0 = no answer: network error or timeout).
 * @param {Buyer} buyer @param {JourneySettings} s @param {JourneyResponse} res @param {number} now
 * @returns {JourneyEvent[]}
 */
export function applyResponse(buyer, s, res, now) {
  /** @type {JourneyEvent[]} */
  const events = [];
  const body = res.json ?? {};
  if (res.status === 429 || res.status === 503 || res.status === 0 || (res.status === 409 && body?.error?.code === 'IDEMPOTENCY_KEY_IN_FLIGHT')) {
    if (res.status === 429) events.push({ type: 'rate_limited' });
    if (++buyer.retries > MAX_RETRIES) { finish(buyer, 'error', events, now); return events; }
    buyer.dueAt = now + 1000 * (res.retryAfterSeconds ?? 1) * (0.5 + s.random());
    return events;
  }
  if (buyer.phase !== 'poll' && buyer.phase !== 'hold_status') buyer.retries = 0;
  switch (buyer.phase) {
    case 'login':
      if (res.status !== 200) { finish(buyer, 'error', events, now); break; }
      buyer.customerToken = body.token;
      buyer.customerId = body.customerId;
      buyer.phase = 'join';
      buyer.dueAt = now;
      buyer.joinedAt = now;
      break;
    case 'join':
    case 'poll':
      if (res.status === 410) { buyer.phase = 'join'; buyer.dueAt = now; break; }
      if (res.status !== 200) { finish(buyer, 'error', events, now); break; }
      if (s.pollOnly && body.accessToken) {
        events.push({ type: 'admitted' }, { type: 'queue_time', value: now - buyer.joinedAt });
        buyer.outcome = 'admitted';
        buyer.phase = 'leave';
        buyer.dueAt = now;
        break;
      }
      if (now - buyer.joinedAt > s.maxWaitMs && !body.accessToken) { finish(buyer, 'gave_up', events); break; }
      onQueueAnswer(buyer, now, body, events);
      break;
    case 'seats':
      if (res.status !== 200) { finish(buyer, 'error', events, now); break; }
      buyer.seatMap = Array.isArray(body.seats) ? body.seats : [];
      if ((body.counts?.available ?? 1) === 0) { events.push({ type: 'gave_up_seats' }); buyer.outcome = 'no_seats'; buyer.phase = 'leave'; buyer.dueAt = now; break; }
      tryHold(buyer, s, now, events);
      break;
    case 'hold':
      buyer.holdTries++;
      if (res.status === 201) {
        events.push({ type: 'hold_won' }, { type: 'seats_held', value: buyer.wanted.length });
        buyer.holdId = body.holdId;
        buyer.outcome = s.afterHold === 'cancel' ? 'held' : null;
        buyer.phase = s.afterHold === 'cancel' ? 'cancel' : 'checkout';
        buyer.dueAt = now;
      } else if (res.status === 409) {
        events.push({ type: 'conflict' });
        const lost = Array.isArray(body?.error?.seats) ? body.error.seats : buyer.wanted;
        buyer.taken.push(...lost);
        if (buyer.holdTries >= s.maxHoldTries) tryHold(buyer, s, now, events); // gives up
        else {
          buyer.phase = 'seats'; // the page refreshes the map, then the buyer picks again
          buyer.dueAt = now + 100 + s.random() * 400;
        }
      } else if (res.status === 422 && body?.error?.code === 'SEAT_LIMIT_EXCEEDED') {
        finish(buyer, 'error', events, now);
      } else finish(buyer, 'error', events, now);
      break;
    case 'checkout':
      if (res.status !== 201) { finish(buyer, 'error', events, now); break; }
      buyer.paymentId = body.paymentId;
      buyer.phase = 'approve';
      buyer.dueAt = now + 200 + s.random() * 800; // the buyer types their card details
      break;
    case 'approve':
      if (res.status !== 200) { finish(buyer, 'error', events, now); break; }
      buyer.phase = 'hold_status';
      buyer.dueAt = now + 100;
      break;
    case 'hold_status':
      if (res.status === 200 && body.bookingId) {
        buyer.bookingId = body.bookingId;
        buyer.phase = 'booking';
        buyer.dueAt = now;
      } else if (res.status === 200 && ++buyer.statusReads < MAX_STATUS_READS && (body.status === 'ACTIVE' || body.status === 'CONFIRMED')) {
        buyer.dueAt = now + 250; // the webhook has not landed yet
      } else finish(buyer, 'error', events, now);
      break;
    case 'booking':
      if (res.status === 200 && body.status === 'CONFIRMED') {
        // Booked: the page shows the tickets and closes, which leaves the room (the booking
        // event frees the slot too, but a buyer does not wait for it).
        events.push({ type: 'booked', value: now - buyer.joinedAt });
        buyer.outcome = 'booked';
        buyer.phase = 'leave';
        buyer.dueAt = now;
      }
      else finish(buyer, 'error', events, now);
      break;
    case 'cancel':
      buyer.phase = 'leave';
      buyer.dueAt = now;
      break;
    case 'leave':
      finish(buyer, buyer.outcome ?? 'no_seats', events);
      break;
  }
  return events;
}

/** The default statuses that are answers rather than failures, per the issue: 409 and 429 too. */
export const EXPECTED_STATUSES = [200, 201, 204, 409, 410, 429];
