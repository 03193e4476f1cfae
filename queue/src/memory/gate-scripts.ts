/**
 * TypeScript twins of queue/lua/gate-*.lua for the in-process store: same KEYS, ARGV and
 * replies (lua/includes/gate.lua describes the keys and the seat entries). JavaScript runs each
 * to completion, which gives the atomicity the Lua script has inside Redis.
 */
import { buildReply, type ReplyValue } from '../reply-fields';
import type { MiniRedis } from './mini-redis';

type Reply = ReplyValue[];
type Handler = (db: MiniRedis, keys: string[], argv: string[]) => Reply;

type Entry =
  | { kind: 'free' }
  | { kind: 'held'; exp: number; at: number; hold: string; customer: string }
  | { kind: 'sold'; booking: string; customer: string };

const HELD = /^H\|(\d+)\|(\d+)\|([^|]*)\|(.*)$/s;
const SOLD = /^S\|([^|]*)\|(.*)$/s;
const DAY_MS = 86_400_000;

export function parseGateEntry(value: string | undefined): Entry | undefined {
  if (value === undefined) return undefined;
  const held = HELD.exec(value);
  if (held) return { kind: 'held', exp: Number(held[1]), at: Number(held[2]), hold: held[3]!, customer: held[4]! };
  const sold = SOLD.exec(value);
  if (sold) return { kind: 'sold', booking: sold[1]!, customer: sold[2]! };
  return { kind: 'free' };
}

/** The gate of one showtime, as includes/gate.lua sees it: keys, clock and the entry helpers. */
class Gate {
  readonly nowMs: number;
  readonly meta: string;
  readonly seats: string;
  readonly lapse: string;
  readonly owned: string;
  readonly seen: string;

  constructor(
    readonly db: MiniRedis,
    keys: string[],
  ) {
    this.nowMs = db.now();
    [this.meta, this.seats, this.lapse, this.owned, this.seen] = keys as [string, string, string, string, string];
  }

  ready(): boolean {
    return this.db.hget(this.meta, 'ready') === '1';
  }

  read(seat: string): Entry | undefined {
    return parseGateEntry(this.db.hget(this.seats, seat));
  }

  taken(e: Entry | undefined): boolean {
    return e !== undefined && (e.kind === 'sold' || (e.kind === 'held' && e.exp > this.nowMs));
  }

  addOwned(customer: string, delta: number): void {
    if (this.db.hincrby(this.owned, customer, delta) <= 0) this.db.hdel(this.owned, customer);
  }

  drop(seat: string, e: Entry | undefined): void {
    if (e === undefined) return;
    if (e.kind === 'held') {
      if (this.db.zset(this.lapse).remove(seat) === 1) this.addOwned(e.customer, -1);
    } else if (e.kind === 'sold') {
      this.addOwned(e.customer, -1);
    }
  }

  /** When the hold path or the database's word last wrote the seat (gate-sync leaves it alone within its grace). */
  touch(seat: string): void {
    this.db.hset(this.meta, `t:${seat}`, this.nowMs);
  }

  setFree(seat: string, e: Entry | undefined): void {
    this.touch(seat);
    this.drop(seat, e);
    this.db.hset(this.seats, seat, '0');
  }

  setHeld(seat: string, e: Entry | undefined, exp: number, at: number, hold: string, customer: string): void {
    this.touch(seat);
    this.drop(seat, e);
    if (exp <= this.nowMs) {
      this.db.hset(this.seats, seat, '0');
      return;
    }
    this.db.hset(this.seats, seat, `H|${exp}|${at}|${hold}|${customer}`);
    this.db.zset(this.lapse).add(seat, exp);
    this.addOwned(customer, 1);
  }

  setSold(seat: string, e: Entry | undefined, booking: string, customer: string): void {
    this.touch(seat);
    this.drop(seat, e);
    this.db.hset(this.seats, seat, `S|${booking}|${customer}`);
    this.addOwned(customer, 1);
  }

  pruneLapsed(): void {
    const lapse = this.db.zset(this.lapse);
    for (const seat of lapse.membersUpTo(this.nowMs)) {
      const e = this.read(seat);
      lapse.remove(seat);
      if (e?.kind === 'held') {
        this.addOwned(e.customer, -1);
        if (e.exp <= this.nowMs) this.db.hset(this.seats, seat, '0');
      }
    }
  }
}

const gateClaim: Handler = (db, keys, argv) => {
  const gate = new Gate(db, keys);
  if (!gate.ready()) return [-20];
  gate.pruneLapsed();
  const [customer, hold, ...seats] = argv as [string, string, ...string[]];
  const maxPerCustomer = db.hnum(gate.meta, 'maxPerCustomer') ?? 0;
  const holdTtlMs = db.hnum(gate.meta, 'holdTtlMs') ?? 0;
  const owned = db.hnum(gate.owned, customer) ?? 0;
  const entries = seats.map((seat) => gate.read(seat));
  const unknown = seats.filter((_, i) => entries[i] === undefined);
  const reply = (decision: number, expiresAtMs: number, count: number, rest: string[] = []) =>
    buildReply('gateClaim', { decision, expiresAtMs, owned: count, maxPerCustomer }, rest);
  if (unknown.length > 0) return reply(3, 0, owned, unknown);
  const taken = seats.filter((_, i) => gate.taken(entries[i]));
  if (taken.length > 0) return reply(0, 0, owned, taken);
  if (owned + seats.length > maxPerCustomer) return reply(2, 0, owned);
  const expiresAt = gate.nowMs + holdTtlMs;
  seats.forEach((seat, i) => gate.setHeld(seat, entries[i], expiresAt, gate.nowMs, hold, customer));
  return reply(1, expiresAt, owned + seats.length);
};

const gateRelease: Handler = (db, keys, [hold, ...seats]) => {
  const gate = new Gate(db, keys);
  let freed = 0;
  for (const seat of seats) {
    const e = gate.read(seat);
    if (e?.kind === 'held' && e.hold === hold) {
      gate.setFree(seat, e);
      freed++;
    }
  }
  return buildReply('gateRelease', { freed });
};

const gateApply: Handler = (db, keys, argv) => {
  const gate = new Gate(db, keys);
  if (!gate.ready()) return [-20];
  const [eventId = '', graceText] = argv;
  const graceMs = Number(graceText) || 0;
  if (eventId !== '') {
    const seen = db.zset(gate.seen);
    if (seen.score(eventId) !== undefined) return buildReply('gateApply', { changed: 0, duplicate: 1 });
    seen.add(eventId, gate.nowMs);
    seen.removeUpTo(gate.nowMs - DAY_MS);
  }
  gate.pruneLapsed();
  let changed = 0;
  for (let i = 2; i + 4 < argv.length; i += 5) {
    const [op, seat, a, b, c] = argv.slice(i, i + 5) as [string, string, string, string, string];
    const e = gate.read(seat);
    if (e === undefined) continue;
    if (op === 'held') {
      const exp = Number(a) || 0;
      const same = e.kind === 'held' && e.hold === b && e.exp === exp;
      if (exp > gate.nowMs && e.kind !== 'sold' && !same) {
        const at = e.kind === 'held' && e.hold === b ? e.at : gate.nowMs;
        gate.setHeld(seat, e, exp, at, b, c);
        changed++;
      }
    } else if (op === 'sold') {
      if (!(e.kind === 'sold' && e.booking === a)) {
        gate.setSold(seat, e, a, b);
        changed++;
      }
    } else if (op === 'freehold') {
      if (e.kind === 'held' && e.hold === a) {
        gate.setFree(seat, e);
        changed++;
      }
    } else if (op === 'freebooking') {
      if (e.kind === 'sold' && e.booking === a) {
        gate.setFree(seat, e);
        changed++;
      }
    } else if (op === 'free') {
      const pending = e.kind === 'held' && e.exp > gate.nowMs && e.at > gate.nowMs - graceMs;
      if (e.kind !== 'free' && !pending) {
        gate.setFree(seat, e);
        changed++;
      }
    }
  }
  return buildReply('gateApply', { changed, duplicate: 0 });
};

const gateSync: Handler = (db, keys, argv) => {
  const gate = new Gate(db, keys);
  const wasReady = gate.ready();
  if (!wasReady) {
    db.del(gate.seats);
    db.del(gate.lapse);
    db.del(gate.owned);
  }
  const [maxPerCustomer, holdTtlMs, graceText, ttlText] = argv as [string, string, string, string];
  const graceMs = Number(graceText) || 0;
  let changed = 0;
  for (let i = 4; i + 4 < argv.length; i += 5) {
    const [seat, state, a, b, c] = argv.slice(i, i + 5) as [string, string, string, string, string];
    const raw = db.hget(gate.seats, seat);
    const e = parseGateEntry(raw);
    const touched = wasReady && (db.hnum(gate.meta, `t:${seat}`) ?? 0) > gate.nowMs - graceMs;
    let want: string | undefined;
    if (touched) {
      want = raw;
    } else if (state === 'S') {
      want = `S|${a}|${b}`;
    } else if (state === 'H' && (Number(a) || 0) > gate.nowMs) {
      const at = e?.kind === 'held' && e.hold === b ? e.at : gate.nowMs;
      want = `H|${a}|${at}|${b}|${c}`;
    } else {
      want = '0';
    }
    if (want !== undefined && raw !== want) {
      db.hset(gate.seats, seat, want);
      changed++;
    }
  }
  db.del(gate.lapse);
  db.del(gate.owned);
  const all = db.hgetall(gate.seats);
  for (let i = 0; i < all.length; i += 2) {
    const e = parseGateEntry(all[i + 1])!;
    if (e.kind === 'held') {
      if (e.exp > gate.nowMs) {
        db.zset(gate.lapse).add(all[i]!, e.exp);
        gate.addOwned(e.customer, 1);
      } else {
        db.hset(gate.seats, all[i]!, '0');
      }
    } else if (e.kind === 'sold') {
      gate.addOwned(e.customer, 1);
    }
  }
  db.hset(gate.meta, 'ready', '1', 'maxPerCustomer', maxPerCustomer, 'holdTtlMs', holdTtlMs, 'syncedAtMs', gate.nowMs);
  const ttl = Math.floor(Number(ttlText));
  if (ttl > 0) for (const key of keys) db.pexpire(key, ttl);
  return buildReply('gateSync', { changed, wasReady: wasReady ? 1 : 0 });
};

/** Spread into memoryScripts (scripts.ts) beside the room scripts. */
export const gateMemoryScripts = { gateApply, gateClaim, gateRelease, gateSync };
