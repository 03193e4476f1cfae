/**
 * The TypeScript twin of lua/includes/describe.lua for the in-process store: where one
 * customer stands, as the flat reply join and poll share. Kept close to the Lua line for line.
 */
import { buildReply, type ReplyValue } from '../reply-fields';
import { RATE_WINDOW_MS, windowCap, type RoomContext, type Settings } from './room-context';

/** Window log entries read at most to find when a place gets in (describe.lua WINDOW_LOOKUP). */
const WINDOW_LOOKUP = 200;

/** Where the customer's own place is (describe.lua placeOf). */
export function placeOf(room: RoomContext, s: Settings, customer: string, preLength: number) {
  const { db, nowMs } = room;
  const ticket = db.hnum(room.who, customer);
  let state = 'none';
  let position = 0;
  let expiresAt = 0;
  const session = db.zset(room.active).score(customer);
  const offer = db.zset(room.offers).score(customer);
  if (session !== undefined) {
    [state, expiresAt] = ['admitted', session];
  } else if (offer !== undefined && offer > nowMs) {
    [state, expiresAt] = ['offered', offer];
  } else if (offer !== undefined) {
    state = 'expired';
  } else {
    const rank = db.zset(room.line).rank(customer);
    if (rank !== undefined) {
      state = 'waiting';
      position = rank + 1 + (s.state === 'opening' ? preLength : 0);
    } else if (room.inPrequeue(customer)) {
      state = 'prequeue';
    } else if (ticket !== undefined) {
      state = 'expired';
    }
  }
  const roomStops = s.state === 'closed' || s.state === 'sold_out';
  if (
    ((state === 'waiting' || state === 'prequeue') && (roomStops || s.state === 'paused')) ||
    ((state === 'offered' || state === 'expired') && roomStops)
  ) {
    state = s.state;
  }
  return { state, ticket: ticket ?? 0, position, expiresAt };
}

export function describe(room: RoomContext, s: Settings, customer: string): ReplyValue[] {
  const { db, nowMs } = room;
  const lineLength = db.zset(room.line).size;
  const preLength = room.undrawnCount(s);
  const admits = db.zset(room.admits).countFrom(nowMs - RATE_WINDOW_MS);
  const openedAt = db.hnum(room.stats, 'openedAtMs') ?? nowMs;
  const windowMs = Math.min(RATE_WINDOW_MS, nowMs - openedAt);
  const { state, ticket, position, expiresAt } = placeOf(room, s, customer, preLength);
  const turns = db.hnum(room.stats, 'lrnTurns') ?? 0;
  const claims = db.hnum(room.stats, 'lrnClaims') ?? 0;
  const running = db.hnum(room.stats, 'lrnRunN') ?? 0;
  return buildReply('poll', {
    state,
    ticket,
    position,
    expiresAtMs: expiresAt,
    lineLength,
    preLength,
    admitsInWindow: admits,
    rateWindowMs: windowMs,
    nowMs,
    roomState: s.state,
    opensAtMs: s.opensAtMs ?? 0,
    admitPerMinute: s.admitPerMinute,
    abandonGraceMs: s.abandonGraceMs,
    capacity: s.capacity,
    busyMs: Math.floor(db.hnum(room.stats, 'lrnBusyMs') ?? 0),
    busyAdmitsMilli: Math.floor((db.hnum(room.stats, 'lrnBusyAdm') ?? 0) * 1000),
    turnsEnded: Math.floor(turns),
    turnMs: turns > 0 ? Math.floor((db.hnum(room.stats, 'lrnTurnMs') ?? 0) / turns) : 0,
    headStart: headStart(room, s, admits),
    windowWaitMs: windowWait(room, s, admits, position),
    claimGapMs: claims > 0 ? Math.floor((db.hnum(room.stats, 'lrnClaimMs') ?? 0) / claims) : 0,
    runningTurns: running,
    ratePerMinuteMilli: Math.floor(s.admitPerMinute * 1000),
    bucketTokensMilli: Math.floor(bucketNow(room, s) * 1000),
    freeSlots: Math.max(0, freeSlots(room, s)),
    runningTurnMs:
      running > 0
        ? Math.floor(
            (db.hnum(room.stats, 'lrnRunMs') ?? 0) +
              running * Math.max(0, nowMs - (db.hnum(room.stats, 'lrnRunAtMs') ?? nowMs)),
          )
        : 0,
  });
}

function windowWait(room: RoomContext, s: Settings, admits: number, position: number): number {
  const cap = windowCap(s);
  if (cap <= 0) return -1;
  const first = admits - cap + 1;
  const last = first + position - 1;
  if (position <= 0 || last <= 0) return 0;
  if (last > admits) return -1;
  const from = Math.max(1, first, last - WINDOW_LOOKUP + 1);
  const aged = room.db.zset(room.admits).size - admits;
  const entries = room.db.zrange(room.admits, aged + from - 1, aged + last - 1);
  const perMs = s.admitPerMinute / RATE_WINDOW_MS;
  let wait = 0;
  entries.forEach((entry, i) => {
    const place = from + i + 1 - first;
    const freeAt = Math.max(0, entry.score + RATE_WINDOW_MS - room.nowMs);
    wait = Math.max(wait, freeAt + Math.max(0, position - place - s.admitBurst) / perMs);
  });
  return Math.floor(wait);
}

/** What the bucket holds now, refilled to this instant and capped at the burst (describe.lua bucketNow). */
function bucketNow(room: RoomContext, s: Settings): number {
  const { db, nowMs } = room;
  return Math.min(
    s.admitBurst,
    (db.hnum(room.stats, 'bucketTokens') ?? s.admitBurst) +
      (Math.max(0, nowMs - (db.hnum(room.stats, 'bucketAtMs') ?? nowMs)) * s.admitPerMinute) / RATE_WINDOW_MS,
  );
}

const freeSlots = (room: RoomContext, s: Settings): number =>
  s.capacity - room.db.zset(room.active).size - room.db.zset(room.offers).size;

function headStart(room: RoomContext, s: Settings, admits: number): number {
  if (s.state !== 'open') return 0;
  return Math.max(0, Math.min(freeSlots(room, s), Math.floor(bucketNow(room, s)), windowCap(s) - admits));
}
