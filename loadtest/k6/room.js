// @ts-check
/**
 * setup() and teardown() of the k6 scripts: the showtime, the room's settings for the run
 * (and the settings it had before, restored at the end so one script's run does not leak into
 * the next), and the checks teardown can make over HTTP.
 */
import http from 'k6/http';
import exec from 'k6/execution';
import { failRun, ownsRoomSettings } from './compat.js';
import { envNumber, settings } from './settings.js';

const env = __ENV;
/** The settings an operator PUT accepts, as GET returns them. */
const ROOM_FIELDS = ['capacity', 'admitPerMinute', 'sessionTtlSeconds', 'state', 'opensAt', 'powDifficulty'];

/**
 * @typedef {object} RunData
 * @property {string} showtimeId
 * @property {number} startedAtMs
 * @property {Record<string, unknown> | null} roomBefore  settings to put back in teardown
 * @property {boolean} roomApplied  setup's settings were accepted
 */

/** @param {string} method @param {string} url @param {unknown} [body] */
export function admin(method, url, body) {
  return http.request(method, url, body === undefined ? null : JSON.stringify(body), {
    headers: { authorization: `Bearer ${settings.adminToken}`, 'content-type': 'application/json', 'x-operator': 'k6' },
    tags: { endpoint: 'admin', name: 'admin' },
    responseType: 'text',
    responseCallback: http.expectedStatuses({ min: 200, max: 299 }, 404),
  });
}

const roomUrl = (/** @type {string} */ showtimeId) => `${settings.baseUrl}/api/admin/showtimes/${showtimeId}/room`;

/** The room's settings and stats, or null (with the answer's status). @param {string} showtimeId */
export function readRoomAnswer(showtimeId) {
  if (!settings.adminToken) return { status: 0, room: null };
  const res = admin('GET', roomUrl(showtimeId));
  let room = null;
  if (res.status === 200 && typeof res.body === 'string') {
    try {
      room = JSON.parse(res.body);
    } catch (_error) {
      room = null;
    }
  }
  return { status: res.status, room };
}

/** The room's settings and stats, or null. @param {string} showtimeId */
export const readRoom = (/** @type {string} */ showtimeId) => readRoomAnswer(showtimeId).room;

/**
 * setup(): the showtime (SHOWTIME_ID, or the first one on sale) and, with ADMIN_TOKEN, the
 * room's settings for this rehearsal: the script's `patch` with ROOM_CAPACITY,
 * ADMIT_PER_MINUTE and SESSION_TTL_SECONDS on top. What the room had is returned for teardown.
 * @param {Record<string, unknown>} [patch] @returns {RunData}
 */
export function prepare(patch) {
  let showtimeId = settings.showtimeId;
  if (!showtimeId) {
    const list = http.get(`${settings.baseUrl}/api/showtimes`, {
      tags: { endpoint: 'catalog', name: 'catalog' },
      responseType: 'text',
    });
    const shows = list.status === 200 && typeof list.body === 'string' ? JSON.parse(list.body) : [];
    const onSale = shows.filter((/** @type {any} */ s) => s.saleState === 'on_sale')[0];
    if (!onSale) exec.test.abort('No SHOWTIME_ID given and no showtime on sale at BASE_URL');
    showtimeId = String(onSale.id);
  }
  /** @type {Record<string, unknown>} */
  const wanted = Object.assign({}, patch || {});
  if (env.ROOM_CAPACITY) wanted.capacity = envNumber('ROOM_CAPACITY', 1);
  if (env.ADMIT_PER_MINUTE) wanted.admitPerMinute = envNumber('ADMIT_PER_MINUTE', 1);
  if (env.SESSION_TTL_SECONDS) wanted.sessionTtlSeconds = envNumber('SESSION_TTL_SECONDS', 1);
  // Proof of work at join: every buyer solves the edge's challenge (lib/pow.js).
  if (env.POW_DIFFICULTY) wanted.powDifficulty = envNumber('POW_DIFFICULTY', 0);
  if (Object.keys(wanted).length > 0 && !wanted.state) wanted.state = 'open';
  /** @type {Record<string, unknown> | null} */
  let roomBefore = null;
  let roomApplied = false;
  if (settings.adminToken && Object.keys(wanted).length > 0 && ownsRoomSettings()) {
    const before = readRoom(showtimeId);
    if (before) {
      roomBefore = {};
      for (const field of ROOM_FIELDS)
        if (before.settings[field] !== null && before.settings[field] !== undefined)
          roomBefore[field] = before.settings[field];
    }
    const res = admin('PUT', roomUrl(showtimeId), wanted);
    roomApplied = res.status === 200;
    if (!roomApplied) console.warn(`room settings not applied: ${res.status} ${res.body}`);
  }
  return { showtimeId, startedAtMs: Date.now(), roomBefore, roomApplied };
}

/**
 * teardown(): the room's settings as they were before setup. A room that opened during the run
 * cannot be scheduled again: its numbers are put back and its state stays as the run left it.
 * @param {RunData} data
 */
export function restoreRoom(data) {
  if (!data.roomBefore || !settings.adminToken) return;
  const now = readRoom(data.showtimeId);
  /** @type {Record<string, unknown>} */
  const back = Object.assign({}, data.roomBefore);
  if (back.state === 'scheduled' && now && now.settings.state !== 'scheduled') {
    console.warn(`room ${data.showtimeId}: opened during the run; it stays ${now.settings.state}`);
    delete back.state;
    delete back.opensAt;
  }
  if (back.state === undefined || back.state === 'open') delete back.opensAt; // the time it opened is history
  const res = admin('PUT', roomUrl(data.showtimeId), back);
  if (res.status === 200) console.log(`room ${data.showtimeId}: settings restored to ${JSON.stringify(back)}`);
  else
    failRun(
      `room ${data.showtimeId}: settings not restored (${res.status} ${res.body}); put back by hand: ${JSON.stringify(back)}`,
    );
}

/**
 * The core's operator view of a showtime (its seat counts), with the service token the core
 * wants when CORE_SERVICE_TOKEN is set (docker-compose, production): without it the core
 * answers 401 to anyone but the edge. @param {string} showtimeId
 */
function readCoreShowtime(showtimeId) {
  /** @type {Record<string, string>} */
  const headers = { authorization: `Bearer ${settings.adminToken}` };
  if (settings.coreServiceToken) headers['x-service-token'] = settings.coreServiceToken;
  return http.get(`${settings.coreUrl}/admin/showtimes/${showtimeId}`, {
    headers,
    tags: { endpoint: 'admin', name: 'admin' },
    responseType: 'text',
    responseCallback: http.expectedStatuses({ min: 200, max: 299 }),
  });
}

/**
 * teardown(): what can be checked over HTTP once the drain scenario has run: the room's stats
 * (turns still held) and, with CORE_URL, held + booked + available = the hall, and how many
 * seats are still held. A check that was asked for and got no answer fails the run like a
 * broken one: a teardown that skips silently would pass every run. The full invariant check is
 * `npm run loadtest:verify` on the run's database. @param {RunData} data
 */
export function verifyOverHttp(data) {
  if (settings.adminToken) {
    const { status, room } = readRoomAnswer(data.showtimeId);
    if (room) console.log(`room ${data.showtimeId}: ${JSON.stringify(room.stats)}`);
    else failRun(`room ${data.showtimeId}: the operator API answered ${status}, not the room's stats`);
  }
  if (!settings.coreUrl || !settings.adminToken) {
    console.warn(
      'seat accounting not checked over HTTP: set CORE_URL and ADMIN_TOKEN (and CORE_SERVICE_TOKEN when the core has one)',
    );
  } else {
    const show = readCoreShowtime(data.showtimeId);
    let counts = null;
    try {
      counts = show.status === 200 && typeof show.body === 'string' ? JSON.parse(show.body).counts : null;
    } catch (_error) {
      counts = null;
    }
    if (!counts) {
      const hint = show.status === 401 ? ' (the core wants its service token: set CORE_SERVICE_TOKEN)' : '';
      failRun(`seat accounting not checked: the core answered ${show.status}${hint}`);
    } else {
      const sum = counts.held + counts.booked + counts.available;
      console.log(
        `seats of showtime ${data.showtimeId}: held ${counts.held} + booked ${counts.booked} + available ${counts.available} = ${sum}, hall ${counts.total}`,
      );
      if (sum !== counts.total) failRun(`seat accounting broken: ${sum} != ${counts.total}`);
      if (counts.held > 0)
        console.warn(`${counts.held} seats still held after the drain (they lapse with the hold TTL)`);
    }
  }
  console.log(
    `Full invariant check on the run's database: DATABASE_URL=… npm run loadtest:verify -- --showtime ${data.showtimeId}`,
  );
}

/** teardown() of every script. @param {RunData} data */
export function finishRun(data) {
  verifyOverHttp(data);
  restoreRoom(data);
}
