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
 *
 * k6 loads this file too, so it is written in ES2017 (no object spread, `?.`, `??`, numeric
 * separators): releases before v0.53 refuse anything newer (loadtest/k6/k6-syntax.test.ts).
 */
import { solvePow } from './pow.js';
import { pickSeats } from './seat-choice.js';

export { pickSeats };

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
 * @property {(text: string) => string} [sha256Hex]  SHA-256 as hex (k6/crypto, node:crypto): solves a join's proof of work
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
 * @property {string[]} taken         seats lost in 409 answers (the seat map itself is never kept)
 * @property {string[]} wanted
 * @property {number} holdTries
 * @property {string|null} holdId
 * @property {string|null} paymentId
 * @property {string|null} bookingId
 * @property {number} statusReads
 * @property {number} retries
 * @property {boolean} stopping      the run is ending: give everything back and leave
 * @property {string|null} outcome   booked | no_seats | sold_out | closed | gave_up | error | stopped
 * @property {{ challenge: string, nonce: string }|null} [pow]  a solved proof of work for the next join
 * @property {number} [powRounds]   challenges solved so far (a buyer gives up after MAX_RETRIES)
 */
/** @typedef {{ type: string, value?: number }} JourneyEvent */

const MAX_RETRIES = 8;
/**
 * Without a Retry-After, the wait before the next try doubles from 1 s up to 30 s, as the
 * buyer's page does: eight tries cover about two minutes, so a buyer who meets a ten-second
 * outage is still there when it ends, and a crowd backs off instead of hammering a struggling
 * service once a second.
 */
const MAX_BACKOFF_SECONDS = 30;
const MAX_STATUS_READS = 40;

/**
 * A client address of its own for every buyer of a run, across every load generator: the
 * generator's VU (k6's `exec.vu.idInTest`, unique across execution segments; 0 for the Node
 * harness) and that VU's arrival count, as an IPv6 unique-local address with both numbers in
 * its /64 prefix, so buyers stay apart even for a limiter that groups IPv6 clients by /64.
 * Distinct for 16.7 million VUs × 4.3 billion arrivals each.
 * @param {number} vu @param {number} arrival
 */
export function syntheticAddress(vu, arrival) {
  const hex = (/** @type {number} */ n) => n.toString(16);
  const v = vu % 0x1000000;
  const a = arrival % 0x100000000;
  return `fd${hex(v >>> 16).padStart(2, '0')}:${hex(v & 0xffff)}:${hex(Math.floor(a / 0x10000))}:${hex(a & 0xffff)}::1`;
}

/** @param {number} index @param {number} now @param {string} [clientAddress] @returns {Buyer} */
export function newBuyer(index, now, clientAddress) {
  return {
    index,
    phase: 'login',
    dueAt: now,
    clientAddress: clientAddress || syntheticAddress(0, index),
    customerToken: null,
    customerId: null,
    queueToken: null,
    accessToken: null,
    joinedAt: now,
    admittedAt: null,
    taken: [],
    wanted: [],
    holdTries: 0,
    stopping: false,
    holdId: null,
    paymentId: null,
    bookingId: null,
    statusReads: 0,
    retries: 0,
    outcome: null,
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

/**
 * The join, in one place for every driver (k6 scripts, opening.js, the Node harness): anything
 * a join will need (a proof-of-work solution, say) is added here and in `onJoinAnswer`.
 * @param {Buyer} buyer @param {JourneySettings} s @returns {JourneyRequest}
 */
export function joinRequest(buyer, s) {
  const r = edge(
    buyer,
    'join',
    'POST',
    `/api/showtimes/${encodeURIComponent(s.showtimeId)}/queue`,
    buyer.customerToken,
  );
  if (buyer.pow) {
    // A solution works once: sent with this join and forgotten.
    r.headers['x-pow-challenge'] = buyer.pow.challenge;
    r.headers['x-pow-nonce'] = buyer.pow.nonce;
    buyer.pow = null;
  }
  return r;
}

/** What the buyer sends next; null once the journey is over. @param {Buyer} buyer @param {JourneySettings} s @returns {JourneyRequest|null} */
export function nextRequest(buyer, s) {
  const show = encodeURIComponent(s.showtimeId);
  switch (buyer.phase) {
    case 'login':
      return edge(buyer, 'login', 'POST', '/api/auth/demo', null, {});
    case 'join':
      return joinRequest(buyer, s);
    case 'poll': {
      const r = edge(buyer, 'poll', 'GET', `/api/showtimes/${show}/queue`, null);
      r.headers['x-queue-token'] = buyer.queueToken || '';
      return r;
    }
    // The compact view (lib/seat-choice.js): what a load client needs, without 1,440 seat objects.
    case 'seats':
      return edge(buyer, 'seats', 'GET', `/api/showtimes/${show}/seats?view=available`, buyer.accessToken);
    case 'hold':
      return edge(buyer, 'hold', 'POST', `/api/showtimes/${show}/holds`, buyer.accessToken, { seats: buyer.wanted });
    case 'cancel':
      return edge(buyer, 'cancel', 'DELETE', `/api/holds/${buyer.holdId}`, buyer.accessToken);
    case 'checkout': {
      const r = edge(buyer, 'checkout', 'POST', `/api/holds/${buyer.holdId}/checkout`, buyer.accessToken, {});
      r.headers['idempotency-key'] = `lt-${buyer.customerId}-${buyer.holdId}`;
      return r;
    }
    case 'approve':
      return {
        endpoint: 'approve',
        target: 'payments',
        method: 'POST',
        path: `/v1/payments/${buyer.paymentId}/approve`,
        headers: { authorization: `Bearer ${s.paymentApiKey}`, accept: 'application/json' },
        body: null,
      };
    case 'hold_status':
      return edge(buyer, 'hold_status', 'GET', `/api/holds/${buyer.holdId}`, buyer.accessToken);
    case 'booking':
      return edge(buyer, 'booking', 'GET', `/api/bookings/${buyer.bookingId}`, buyer.accessToken);
    case 'leave':
      return edge(buyer, 'leave', 'DELETE', `/api/showtimes/${show}/queue`, buyer.customerToken);
    default:
      return null;
  }
}

/**
 * Ends the journey; a buyer still in line or in the room leaves first, so the place or the
 * slot goes back at once (as the page does when it closes).
 * @param {Buyer} buyer @param {string} outcome @param {JourneyEvent[]} events @param {number} [now]
 */
function finish(buyer, outcome, events, now) {
  const inRoom = buyer.admittedAt !== null || buyer.queueToken !== null;
  if (now !== undefined && inRoom && outcome !== 'booked' && buyer.phase !== 'leave' && buyer.customerToken) {
    buyer.outcome = outcome;
    buyer.phase = 'leave';
    buyer.dueAt = now;
    return;
  }
  buyer.phase = 'done';
  buyer.outcome = outcome;
  events.push({ type: `outcome_${outcome}` });
}

/** @param {Buyer} buyer @param {JourneySettings} s @param {number} now @param {JourneyEvent[]} events @param {any} seatView the compact view, or null */
function tryHold(buyer, s, now, events, seatView) {
  const seats = seatView ? pickSeats(seatView, buyer, s) : [];
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
 * A join answer (join or poll): on in line, admitted, or out. Kept beside `joinRequest`.
 * @param {Buyer} buyer @param {JourneySettings} s @param {JourneyResponse} res @param {any} body @param {number} now @param {JourneyEvent[]} events
 */
function onJoinAnswer(buyer, s, res, body, now, events) {
  if (res.status === 428 && typeof body.challenge === 'string' && s.sha256Hex) {
    // The room asks for proof of work: solve it (a few ms at load-test difficulties) and join again.
    buyer.powRounds = (buyer.powRounds || 0) + 1;
    if (buyer.powRounds > MAX_RETRIES) {
      finish(buyer, 'error', events, now);
      return;
    }
    const solved = solvePow(body.challenge, Number(body.difficulty) || 0, s.sha256Hex);
    events.push({ type: 'pow_solved', value: solved.hashes });
    buyer.pow = { challenge: body.challenge, nonce: solved.nonce };
    buyer.phase = 'join';
    buyer.dueAt = now;
    return;
  }
  if (res.status === 410) {
    buyer.phase = 'join';
    buyer.dueAt = now;
    return;
  }
  if (res.status !== 200) {
    finish(buyer, 'error', events, now);
    return;
  }
  if (s.pollOnly && body.accessToken) {
    events.push({ type: 'admitted' }, { type: 'queue_time', value: now - buyer.joinedAt });
    buyer.queueToken = body.queueToken || buyer.queueToken;
    buyer.outcome = 'admitted';
    buyer.phase = 'leave';
    buyer.dueAt = now;
    return;
  }
  if (now - buyer.joinedAt > s.maxWaitMs && !body.accessToken) {
    finish(buyer, 'gave_up', events, now);
    return;
  }
  onQueueAnswer(buyer, now, body, events);
}

/**
 * The run is ending: from now on the buyer only gives back what it holds. A hold not yet paid
 * is cancelled, a place in line or in the room is left; a paid buyer reads its booking first
 * (so the run counts every booking the database has). Outcome `stopped` unless it booked.
 * @param {Buyer} buyer @param {number} now  when it starts giving back (later than now in a paced drain)
 */
export function startLeaving(buyer, now) {
  if (buyer.stopping || buyer.phase === 'done') return;
  buyer.stopping = true;
  buyer.dueAt = now;
  if (buyer.outcome !== 'booked') buyer.outcome = 'stopped';
  if (buyer.phase === 'hold_status' || buyer.phase === 'booking' || buyer.phase === 'leave' || buyer.phase === 'cancel')
    return;
  if (buyer.holdId && (buyer.phase === 'checkout' || buyer.phase === 'approve')) buyer.phase = 'cancel';
  else if (buyer.customerToken && (buyer.queueToken !== null || buyer.admittedAt !== null || buyer.phase === 'poll'))
    buyer.phase = 'leave';
  else buyer.phase = 'stopped'; // not in line yet: nothing to give back
}

/**
 * Moves the buyer on after an answer (status 0 = no answer: network error or timeout).
 * @param {Buyer} buyer @param {JourneySettings} s @param {JourneyResponse} res @param {number} now
 * @returns {JourneyEvent[]}
 */
export function applyResponse(buyer, s, res, now) {
  /** @type {JourneyEvent[]} */
  const events = [];
  const body = res.json || {};
  const errorCode = body.error ? body.error.code : undefined;
  if (
    res.status === 429 ||
    res.status === 503 ||
    res.status === 0 ||
    (res.status === 409 && errorCode === 'IDEMPOTENCY_KEY_IN_FLIGHT')
  ) {
    if (res.status === 429) events.push({ type: 'rate_limited' });
    if (++buyer.retries > MAX_RETRIES) {
      finish(buyer, 'error', events, now);
      return events;
    }
    const backoffSeconds = Math.min(MAX_BACKOFF_SECONDS, 2 ** (buyer.retries - 1));
    buyer.dueAt =
      now + 1000 * (res.retryAfterSeconds === null ? backoffSeconds : res.retryAfterSeconds) * (0.5 + s.random());
    return events;
  }
  if (buyer.phase !== 'poll' && buyer.phase !== 'hold_status') buyer.retries = 0;
  switch (buyer.phase) {
    case 'login':
      if (res.status !== 200) {
        finish(buyer, 'error', events, now);
        break;
      }
      buyer.customerToken = body.token;
      buyer.customerId = body.customerId;
      buyer.phase = 'join';
      buyer.dueAt = now;
      buyer.joinedAt = now;
      break;
    case 'join':
    case 'poll':
      onJoinAnswer(buyer, s, res, body, now, events);
      break;
    case 'seats': {
      if (res.status !== 200) {
        finish(buyer, 'error', events, now);
        break;
      }
      const available = body.counts && typeof body.counts.available === 'number' ? body.counts.available : 1;
      if (available === 0) {
        events.push({ type: 'gave_up_seats' });
        buyer.outcome = 'no_seats';
        buyer.phase = 'leave';
        buyer.dueAt = now;
        break;
      }
      tryHold(buyer, s, now, events, Array.isArray(body.rows) ? body : null);
      break;
    }
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
        const lost = body.error && Array.isArray(body.error.seats) ? body.error.seats : buyer.wanted;
        for (const code of lost) if (buyer.taken.indexOf(code) === -1) buyer.taken.push(code);
        if (buyer.holdTries >= s.maxHoldTries)
          tryHold(buyer, s, now, events, null); // gives up
        else {
          buyer.phase = 'seats'; // the page refreshes the map, then the buyer picks again
          buyer.dueAt = now + 100 + s.random() * 400;
        }
      } else finish(buyer, 'error', events, now); // 422 SEAT_LIMIT_EXCEEDED included
      break;
    case 'checkout':
      if (res.status !== 201) {
        finish(buyer, 'error', events, now);
        break;
      }
      buyer.paymentId = body.paymentId;
      buyer.phase = 'approve';
      buyer.dueAt = now + 200 + s.random() * 800; // the buyer types their card details
      break;
    case 'approve':
      if (res.status !== 200) {
        finish(buyer, 'error', events, now);
        break;
      }
      buyer.phase = 'hold_status';
      buyer.dueAt = now + 100;
      break;
    case 'hold_status':
      if (res.status === 200 && body.bookingId) {
        buyer.bookingId = body.bookingId;
        buyer.phase = 'booking';
        buyer.dueAt = now;
      } else if (
        res.status === 200 &&
        ++buyer.statusReads < MAX_STATUS_READS &&
        (body.status === 'ACTIVE' || body.status === 'CONFIRMED')
      ) {
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
      } else finish(buyer, 'error', events, now);
      break;
    case 'cancel':
      if (res.status === 204) events.push({ type: 'hold_released' });
      buyer.phase = 'leave';
      buyer.dueAt = now;
      break;
    case 'leave':
      finish(buyer, buyer.outcome || 'no_seats', events);
      break;
  }
  return events;
}

/**
 * A buyer stopped before it had anything to give back has no request left; this closes it
 * (and reports its outcome). Returns the events, like `applyResponse`.
 * @param {Buyer} buyer @returns {JourneyEvent[]}
 */
export function closeIdle(buyer) {
  /** @type {JourneyEvent[]} */
  const events = [];
  if (buyer.phase === 'stopped') finish(buyer, 'stopped', events);
  return events;
}

/** Statuses that are answers rather than failures for `http_req_failed`: 409, 410 and 429 too. */
export const EXPECTED_STATUSES = [200, 201, 204, 409, 410, 428, 429];

/**
 * What each endpoint answers when all is well (409, 410 and 429 included where a buyer
 * expects them): the k6 scripts' `check()` per response class.
 * @type {Record<Endpoint, number[]>}
 */
export const EXPECTED_BY_ENDPOINT = {
  login: [200, 429],
  join: [200, 410, 428, 429],
  poll: [200, 410, 429],
  seats: [200, 429],
  hold: [201, 409, 429],
  cancel: [204],
  checkout: [201, 409, 429],
  approve: [200],
  hold_status: [200],
  booking: [200],
  leave: [200, 429],
};
