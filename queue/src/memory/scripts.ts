/**
 * TypeScript twins of queue/lua/*.lua for the in-process store, one function per script,
 * same KEYS, ARGV and replies. JavaScript runs each to completion, which gives the same
 * atomicity a Lua script has inside Redis.
 */
import { buildReply, type ReplyValue } from '../reply-fields';
import type { ScriptName } from '../scripts.gen';
import type { MiniRedis } from './mini-redis';
import { RoomContext } from './room-context';
import { describe, placeOf } from './describe';
import { gateMemoryScripts } from './gate-scripts';

/** Refusals are `[code]`; success replies are built from the named fields (reply-fields.ts). */
type Reply = ReplyValue[];
type Handler = (db: MiniRedis, keys: string[], argv: string[]) => Reply;

const withRoom =
  (
    body: (room: RoomContext, s: NonNullable<ReturnType<RoomContext['loadSettings']>>, argv: string[]) => Reply,
  ): Handler =>
  (db, keys, argv) => {
    const room = new RoomContext(db, keys);
    const s = room.loadSettings();
    return s ? body(room, s, argv) : [-1];
  };

// One address's places and churn (lua/includes/join.lua): customer -> when the place was
// taken, plus CHURN_FIELD "windowIndex joins previousJoins".
const CHURN_FIELD = '#churn';
const CURSOR_FIELD = '#cursor';
const PRUNE_CHECKS = 256;
const CHURN_FACTOR = 4;
const ADDRESS_KEY_TTL_MS = 24 * 3600 * 1000;

function churnNow(db: MiniRedis, addrKey: string, nowMs: number, windowMs: number) {
  const index = Math.floor(nowMs / windowMs);
  const stored = /^(\d+) (\d+) (\d+)$/.exec(db.hget(addrKey, CHURN_FIELD) ?? '');
  let current = 0;
  let previous = 0;
  if (stored && Number(stored[1]) === index) [current, previous] = [Number(stored[2]), Number(stored[3])];
  else if (stored && Number(stored[1]) === index - 1) previous = Number(stored[2]);
  const weighted = current + previous * (1 - (nowMs % windowMs) / windowMs);
  return { index, current, previous, weighted };
}

/** The join script's bounded drop of ended places; the cursor is an index into the hash's fields. */
function livePlaces(room: RoomContext, addrKey: string, cap: number): number {
  const hash = room.db.hash(addrKey);
  let n = hash.size - (hash.has(CHURN_FIELD) ? 1 : 0) - (hash.has(CURSOR_FIELD) ? 1 : 0);
  if (n < cap) return n;
  const customers = [...hash.keys()].filter((field) => !field.startsWith('#'));
  let index = Math.min(Number(hash.get(CURSOR_FIELD) ?? 0) || 0, customers.length);
  let checked = 0;
  let dropped = 0;
  while (index < customers.length && checked < PRUNE_CHECKS && n >= cap) {
    const customer = customers[index++]!;
    checked++;
    if (!room.holdsPlace(customer)) {
      hash.delete(customer);
      dropped++;
      n--;
    }
  }
  // Past the end the next scan starts over; the fields dropped before the stop shift it down.
  hash.set(CURSOR_FIELD, String(index >= customers.length ? 0 : index - dropped));
  return n;
}

function countAgainstAddress(room: RoomContext, addrKey: string, customer: string, windowMs: number): Reply | null {
  const { db } = room;
  const cap = db.hnum(room.cfg, 'placesPerAddress') ?? 200;
  const churn = churnNow(db, addrKey, room.nowMs, windowMs);
  if (churn.weighted >= CHURN_FACTOR * cap) return [-12];
  if (livePlaces(room, addrKey, cap) >= cap) return [-12];
  db.hset(addrKey, customer, room.nowMs, CHURN_FIELD, `${churn.index} ${churn.current + 1} ${churn.previous}`);
  db.pexpire(addrKey, Math.max(ADDRESS_KEY_TTL_MS, 2 * windowMs));
  return null;
}
/** A purchase bucket that never refills keeps its key this long (take-5.lua). */
const DAY_MS = 86_400_000;

/** Joins (lua/includes/join.lua): null once the customer holds a place, else the refusal. */
function joinRoom(
  room: RoomContext,
  s: NonNullable<ReturnType<RoomContext['loadSettings']>>,
  addrKey: string,
  customer: string,
  address: string,
  churnWindowMs: number,
): Reply | null {
  const { db } = room;
  room.freezeIfDue(s);
  room.expire(s);
  if (s.state === 'closed') return [-2];
  if (s.state === 'sold_out') return [-3];
  room.restoreIfParked(s, customer);
  if (!room.holdsPlace(customer)) {
    if (address !== '') {
      const refused = countAgainstAddress(room, addrKey, customer, churnWindowMs);
      if (refused) return refused;
    }
    let ticket = 0;
    if (s.state === 'scheduled') {
      db.zset(room.pre).add(customer, 0);
      db.hset(room.who, customer, 0);
    } else {
      ticket = db.hincrby(room.stats, 'seq', 1);
      db.zset(room.line).add(customer, ticket);
      db.hset(room.who, customer, ticket);
    }
    room.journal(s, [room.entry('j', customer, ticket)]);
    db.hincrby(room.stats, 'joined', 1);
  }
  db.hset(room.beat, customer, room.nowMs);
  room.advanceIfDue(s);
  return null;
}

/** A join script (join.lua joinFromArgs): the refusal, or `answer` once the customer holds a place. */
const joining =
  (
    answer: (room: RoomContext, s: NonNullable<ReturnType<RoomContext['loadSettings']>>, customer: string) => Reply,
  ): Handler =>
  (db, keys, [customer, address = '', churnWindow]) => {
    const room = new RoomContext(db, keys);
    const s = room.loadSettings();
    if (!s) return [-1];
    const churnWindowMs = Math.max(1, Number(churnWindow) || 3_600_000);
    return joinRoom(room, s, keys[10]!, customer!, address, churnWindowMs) ?? answer(room, s, customer!);
  };

const join = joining(describe);

const enter = joining((room, s, customer) => {
  const place = placeOf(room, s, customer, s.state === 'opening' ? room.undrawnCount(s) : 0);
  return buildReply('enter', {
    state: place.state,
    ticket: place.ticket,
    position: place.position,
    expiresAtMs: place.expiresAt,
    nowMs: room.nowMs,
    roomState: s.state,
  });
});

const poll = withRoom((room, s, [customer]) => {
  room.restoreIfParked(s, customer!);
  if (room.db.hget(room.who, customer!) !== undefined) room.db.hset(room.beat, customer!, room.nowMs);
  room.advanceIfDue(s);
  return describe(room, s, customer!);
});

const find = withRoom((room, s, [ticketArg]) => {
  const { db } = room;
  const ticket = Number(ticketArg) || 0;
  const line = db.zset(room.line);
  const lineLength = line.size;
  const preLength = room.undrawnCount(s);
  const customer = ticket > 0 ? line.firstWithScore(ticket) : undefined;
  if (customer === undefined) return buildReply('find', { customer: '', position: 0, lineLength, preLength });
  const position = line.rank(customer)! + 1 + (s.state === 'opening' ? preLength : 0);
  return buildReply('find', { customer, position, lineLength, preLength });
});

const tick = withRoom((room, s) => {
  const [offered, skipped] = room.advance(s);
  return buildReply('tick', { offered, skipped, roomState: s.state });
});

const claim = withRoom((room, s, [customer]) => {
  const { db, nowMs } = room;
  const ticket = db.hnum(room.who, customer!) ?? 0;
  const session = db.zset(room.active).score(customer!);
  if (session !== undefined && session > nowMs)
    return buildReply('claim', { ticket, sessionExpiresAtMs: session, alreadyAdmitted: 1 });
  if (s.state === 'closed') return [-2];
  if (s.state === 'sold_out') return [-3];
  const offer = db.zset(room.offers).score(customer!);
  if (offer === undefined) {
    if (db.zset(room.line).score(customer!) !== undefined || db.zset(room.pre).score(customer!) !== undefined)
      return [-4];
    return ticket > 0 ? [-6] : [-4];
  }
  db.zset(room.offers).remove(customer!);
  if (offer <= nowMs) {
    db.hincrby(room.stats, 'offersExpired', 1);
    return [-5];
  }
  if (db.zset(room.active).size >= s.capacity) {
    db.zset(room.offers).add(customer!, Math.max(offer, nowMs + s.offerWindowMs));
    return [-4];
  }
  room.learnOutcomes(1, 0);
  room.learnClaim(s, offer);
  const expiresAt = nowMs + s.sessionTtlMs;
  db.zset(room.active).add(customer!, expiresAt);
  db.hincrby(room.stats, 'admitted', 1);
  return buildReply('claim', { ticket, sessionExpiresAtMs: expiresAt, alreadyAdmitted: 0 });
});

const release = withRoom((room, s, [customer]) => {
  const { db } = room;
  room.learnEarlyEnd(s, customer!);
  const freed = db.zset(room.active).remove(customer!) + db.zset(room.offers).remove(customer!);
  let offered = 0;
  if (freed > 0) {
    db.hdel(room.who, customer!);
    db.hdel(room.beat, customer!);
    db.hincrby(room.stats, 'released', 1);
    [offered] = room.advance(s);
  }
  return buildReply('release', { freed, offered });
});

const restore = withRoom((room, _s, argv) => {
  const { db } = room;
  let restored = 0;
  let maxTicket = 0;
  for (let i = 0; i + 2 < argv.length; i += 3) {
    const [customer, ticket, expiresAt] = [argv[i]!, Number(argv[i + 1]), Number(argv[i + 2])];
    if (expiresAt > room.nowMs && db.hget(room.who, customer) === undefined) {
      db.zset(room.active).add(customer, expiresAt);
      db.hset(room.who, customer, ticket);
      restored++;
    }
    maxTicket = Math.max(maxTicket, ticket);
  }
  if (maxTicket > (db.hnum(room.stats, 'seq') ?? 0)) db.hset(room.stats, 'seq', maxTicket);
  return [1, restored];
});

const leave = withRoom((room, s, [customer]) => {
  const { db } = room;
  room.learnEarlyEnd(s, customer!);
  const rank = db.hget(room.who, customer!);
  const freed = db.zset(room.active).remove(customer!) + db.zset(room.offers).remove(customer!);
  // From the opening on the pre-queue set is frozen for the chunked draw: only `who` goes.
  const fromPre = s.state === 'opening' ? 0 : db.zset(room.pre).remove(customer!);
  const removed = freed + db.zset(room.line).remove(customer!) + fromPre + db.hdel(room.who, customer!);
  db.hdel(room.beat, customer!);
  let offered = 0;
  if (removed > 0) {
    db.hincrby(room.stats, 'left', 1);
    if (rank !== undefined) room.journal(s, [room.entry('l', customer!, Math.abs(Number(rank)))]);
  }
  if (freed > 0) [offered] = room.advance(s);
  return buildReply('leave', { removed: removed > 0 ? 1 : 0, offered });
});

const configure: Handler = (db, keys, argv) => {
  const room = new RoomContext(db, keys);
  const [seed, seedHash, requested, pairCount] = argv as [string, string, string, string];
  const openedAt = db.hget(room.stats, 'openedAtMs');
  if (requested === 'scheduled' && openedAt !== undefined) return [-7];
  const firstDefault = 4 + Number(pairCount) * 2;
  for (let i = 4; i < firstDefault; i += 2) {
    if (argv[i] === 'version' && Number(argv[i + 1]) < (db.hnum(room.cfg, 'version') ?? 0)) {
      return buildReply('configure', { state: db.hget(room.cfg, 'state') ?? '', applied: 0 });
    }
  }
  for (let i = 4; i < firstDefault; i += 2) {
    if (argv[i] === 'admitPerMinute' && db.hget(room.cfg, argv[i]!) !== argv[i + 1]) {
      db.hdel(room.stats, 'lrnBusyMs');
      db.hdel(room.stats, 'lrnBusyAdm');
    }
    db.hset(room.cfg, argv[i]!, argv[i + 1]!);
  }
  const cfg = db.hash(room.cfg);
  for (let i = firstDefault; i + 1 < argv.length; i += 2) if (!cfg.has(argv[i]!)) cfg.set(argv[i]!, argv[i + 1]!);
  if (!cfg.has('seedHash')) cfg.set('seedHash', seedHash);
  if (!cfg.has('seed')) cfg.set('seed', seed);
  const s = room.loadSettings()!;
  if (requested === 'open') {
    if (s.state === 'opening') {
      // The draw is pending and opens the room itself.
    } else if (s.state === 'scheduled' || openedAt === undefined) {
      db.hset(room.cfg, 'state', 'scheduled', 'opensAtMs', room.nowMs);
      s.state = 'scheduled';
      s.opensAtMs = room.nowMs;
    } else {
      db.hset(room.cfg, 'state', 'open');
      s.state = 'open';
    }
  } else if (requested !== '' && (s.state !== 'opening' || requested === 'closed' || requested === 'sold_out')) {
    db.hset(room.cfg, 'state', requested);
    s.state = requested;
  }
  room.freezeIfDue(s);
  if (requested === 'closed') {
    db.del(room.active);
    db.del(room.offers);
  }
  const ended = s.state === 'closed' || s.state === 'sold_out';
  const retentionMs = db.hnum(room.cfg, 'closedRetentionMs');
  for (const key of keys) {
    if (ended && retentionMs !== undefined) db.pexpire(key, Math.max(1, Math.floor(retentionMs)));
    else db.persist(key);
  }
  return buildReply('configure', { state: s.state, applied: 1 });
};

const inspect: Handler = (db, keys) => {
  const room = new RoomContext(db, keys);
  const cfg = db.hgetall(room.cfg);
  if (cfg.length === 0) return [-1];
  const revealed = db.hget(room.cfg, 'seedRevealed') === '1';
  const visible: string[] = [];
  for (let i = 0; i < cfg.length; i += 2) if (cfg[i] !== 'seed' || revealed) visible.push(cfg[i]!, cfg[i + 1]!);
  const line = db.zset(room.line);
  return buildReply('inspect', {
    nowMs: room.nowMs,
    preLength: db.zset(room.pre).size,
    lineLength: line.size,
    offered: db.zset(room.offers).size,
    active: db.zset(room.active).size,
    admitsInWindow: db.zset(room.admits).countFrom(room.nowMs - 60_000),
    headTicket: line.first()?.score ?? 0,
    tailTicket: line.last()?.score ?? 0,
    cfg: visible,
    stats: db.hgetall(room.stats),
  });
};

const prequeue = withRoom((room, s, [offset, count]) => {
  room.freezeIfDue(s);
  const pre = room.db.zset(room.pre);
  const from = Math.floor(Number(offset ?? 0) || 0);
  const size = Math.floor(Number(count ?? 0) || 0);
  const members =
    s.state === 'opening' && size > 0
      ? room.db.zrange(room.pre, from, from + size - 1).map((entry) => entry.member)
      : [];
  const head = {
    roomState: s.state,
    seed: room.db.hget(room.cfg, 'seed') ?? '',
    total: pre.size,
    drawNext: room.db.hnum(room.stats, 'drawNext') ?? 0,
  };
  return buildReply('prequeue', head, members);
});

const draw = withRoom((room, s, [offsetText, totalText, ...chunk]) => {
  const { db, nowMs } = room;
  if (s.state !== 'opening') return [-9];
  const pre = db.zset(room.pre);
  const [offset, total] = [Number(offsetText), Number(totalText)];
  if (pre.size !== total) return [-8];
  const drawNext = db.hnum(room.stats, 'drawNext') ?? 0;
  if (offset !== drawNext) return buildReply('draw', { drawNext, done: 0, placed: 0 });
  const base = db.hnum(room.stats, 'drawBase') ?? 0;
  let placed = 0;
  const entries: string[] = [];
  chunk.forEach((customer, i) => {
    const position = offset + i + 1;
    if (db.hget(room.who, customer) !== '0' || pre.score(customer) === undefined) return;
    db.zset(room.line).add(customer, base + position);
    db.hset(room.who, customer, base + position);
    db.hset(room.beat, customer, nowMs);
    placed++;
    entries.push(`${room.entry('d', customer, base + position)}|${pre.rank(customer)}|${total}`);
  });
  room.journal(s, entries);
  const next = offset + chunk.length;
  db.hincrby(room.stats, 'drawn', placed);
  if (next >= total) {
    db.del(room.pre);
    db.hdel(room.stats, 'drawNext');
    db.hset(room.cfg, 'state', 'open', 'seedRevealed', '1');
    return buildReply('draw', { drawNext: next, done: 1, placed });
  }
  db.hset(room.stats, 'drawNext', next);
  return buildReply('draw', { drawNext: next, done: 0, placed });
});

const take: Handler = (db, [cfgKey, customerKey, showKey, activeKey, whoKey], argv) => {
  const nowMs = db.now();
  const cost = Number(argv[0]);
  const setting = (field: string, fallback: string | undefined) => db.hnum(cfgKey!, field) ?? Number(fallback);
  const customerCap = setting('customerBucketCapacity', argv[1]);
  const customerRate = setting('customerRefillPerMinute', argv[2]) / 60_000;
  const showCap = setting('showtimeBucketCapacity', argv[3]);
  const showRate = setting('showtimeRefillPerSecond', argv[4]) / 1_000;
  if (cost > customerCap || cost > showCap) return [-10];
  let admission = 0;
  if (argv[6] === '1') {
    const [customer, ticket] = [argv[5]!, argv[7] ?? ''];
    const sessionEndsAt = db.zset(activeKey!).score(customer);
    const current = db.hget(whoKey!, customer);
    if (sessionEndsAt !== undefined && sessionEndsAt > nowMs && (ticket === '' || current === ticket)) {
      admission = 1;
    } else if (db.hgetall(cfgKey!).length === 0) {
      admission = 2;
    } else {
      return [-11];
    }
  }
  const level = (key: string, cap: number, rate: number) => {
    const tokens = db.hnum(key, 'tokens') ?? cap;
    const at = db.hnum(key, 'atMs') ?? nowMs;
    return Math.min(cap, tokens + Math.max(0, nowMs - at) * rate);
  };
  const store = (key: string, tokens: number, cap: number, rate: number) => {
    db.hset(key, 'tokens', tokens, 'atMs', nowMs);
    const refillMs = rate > 0 ? Math.ceil((cap - tokens) / rate) : DAY_MS;
    db.pexpire(key, Math.min(refillMs, DAY_MS) + 1000);
  };
  const customerTokens = level(customerKey!, customerCap, customerRate);
  const showTokens = level(showKey!, showCap, showRate);
  if (customerTokens >= cost && showTokens >= cost) {
    store(customerKey!, customerTokens - cost, customerCap, customerRate);
    store(showKey!, showTokens - cost, showCap, showRate);
    return buildReply('take', {
      allowed: 1,
      retryAfterMs: 0,
      customerTokensLeft: Math.floor(customerTokens - cost),
      showtimeTokensLeft: Math.floor(showTokens - cost),
      admission,
    });
  }
  let wait = 0;
  if (customerTokens < cost) wait = Math.max(wait, Math.ceil((cost - customerTokens) / customerRate));
  if (showTokens < cost) wait = Math.max(wait, Math.ceil((cost - showTokens) / showRate));
  return buildReply('take', {
    allowed: 0,
    retryAfterMs: wait,
    customerTokensLeft: Math.floor(customerTokens),
    showtimeTokensLeft: Math.floor(showTokens),
    admission,
  });
};

const govern: Handler = (db, keys, argv) => {
  const cfg = keys[0]!;
  if (db.hget(cfg, 'state') === undefined) return [-1];
  let written = 0;
  for (let i = 0; i + 1 < argv.length; i += 2) {
    if (argv[i]!.startsWith('ctl')) {
      db.hset(cfg, argv[i]!, argv[i + 1]!);
      written++;
    }
  }
  return buildReply('govern', { written });
};

const registry: Handler = (db, [key], [op, id]) => {
  const set = db.set(key!);
  if (op === 'add') return buildReply('registry', {}, [set.has(id!) ? 0 : (set.add(id!), 1)]);
  if (op === 'remove') return buildReply('registry', {}, [set.delete(id!) ? 1 : 0]);
  return buildReply('registry', {}, [...set].sort());
};

const history: Handler = (db, [key], [op, id, meanMs, turns, nowMs, most]) => {
  const entries = db.hash(key!);
  if (op !== 'record') return buildReply('history', {}, [...entries].flat());
  entries.set(id!, `${meanMs}:${turns}:${nowMs}`);
  const atMs = (entry: string) => Number(entry.split(':')[2]);
  const oldestFirst = [...entries].sort(([, a], [, b]) => atMs(a) - atMs(b));
  for (const [showtimeId] of oldestFirst.slice(0, Math.max(0, entries.size - Number(most)))) entries.delete(showtimeId);
  return buildReply('history', {}, [entries.size]);
};

/** journal-1.lua: read the oldest elements, or drop those whose entries are all copied. */
const journal: Handler = (db, [key], [action, a, b]) => {
  const list = db.list(key!);
  if (action === 'read') return [1, ...list.slice(0, Math.floor(Number(a)))];
  let dropped = 0;
  while (list.length > 0) {
    const head = /^(\d+)\.(\d+)\n/.exec(list[0]!);
    const entries = list[0]!.split('\n').length - 1;
    if (!head || head[1] !== a || Number(head[2]) + entries - 1 > Number(b)) break;
    list.shift();
    dropped++;
  }
  return [1, dropped];
};

export const memoryScripts: Record<ScriptName, Handler> = {
  ...gateMemoryScripts,
  claim,
  configure,
  draw,
  enter,
  find,
  govern,
  inspect,
  join,
  journal,
  leave,
  poll,
  prequeue,
  registry,
  history,
  release,
  restore,
  take,
  tick,
};
