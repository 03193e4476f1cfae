/**
 * The TypeScript twin of lua/includes/room.lua for the in-process store (describe.lua's is
 * describe.ts).
 * Kept line for line close to the Lua so a change in one is easy to carry to the other;
 * the shared contract suite fails when they drift apart.
 */
import type { MiniRedis } from './mini-redis';
import { FIRST_CLAIM_MS, firstClaimMs } from '../settings';

export const RATE_WINDOW_MS = 60_000;

/** The one-minute window's cap as a count: ceil of a fractional rate, 0 at rate 0 (room.lua windowCap). */
export const windowCap = (s: { admitPerMinute: number }): number =>
  s.admitPerMinute <= 0 ? 0 : Math.ceil(s.admitPerMinute);
const MAX_SKIPS_PER_TICK = 500;
const TURN_DECAY_MS = 600_000;
const BUSY_DECAY_MS = 30_000;
const FRESH_MS = 4_000;
const OUTCOME_DECAY_MS = 120_000;
const MAX_NO_SHOW = 0.5;
const MIN_OUTCOMES = 10;
const MAX_RUNNING_READ = 100;
/** room.lua MIN_TURNS: ended turns before their mean is believed (estimate.ts MIN_TURNS). */
const MIN_TURNS = 3;

export interface Settings {
  state: string;
  capacity: number;
  admitPerMinute: number;
  admitBurst: number;
  sessionTtlMs: number;
  offerWindowMs: number;
  abandonGraceMs: number;
  opensAtMs: number | undefined;
  tickGapMs: number;
  /** cfg fairnessJournal is not '0' (room.lua journal). */
  journal: boolean;
}

export class RoomContext {
  readonly cfg: string;
  readonly pre: string;
  readonly line: string;
  readonly offers: string;
  readonly active: string;
  readonly who: string;
  readonly beat: string;
  readonly admits: string;
  readonly stats: string;
  readonly journalKey: string;
  readonly nowMs: number;

  constructor(
    readonly db: MiniRedis,
    keys: string[],
  ) {
    [
      this.cfg,
      this.pre,
      this.line,
      this.offers,
      this.active,
      this.who,
      this.beat,
      this.admits,
      this.stats,
      this.journalKey,
    ] = keys as [string, string, string, string, string, string, string, string, string, string];
    this.nowMs = db.now();
  }

  loadSettings(): Settings | null {
    const { db, cfg } = this;
    const state = db.hget(cfg, 'state');
    if (state === undefined) return null;
    const n = (field: string) => db.hnum(cfg, field);
    const s: Settings = {
      state,
      capacity: n('capacity')!,
      admitPerMinute: n('admitPerMinute')!,
      admitBurst: n('admitBurst')!,
      sessionTtlMs: n('sessionTtlMs')!,
      offerWindowMs: n('offerWindowMs')!,
      abandonGraceMs: n('abandonGraceMs')!,
      opensAtMs: n('opensAtMs'),
      tickGapMs: n('tickGapMs') ?? 0,
      journal: db.hget(cfg, 'fairnessJournal') !== '0',
    };
    this.governed(s, db.hget(cfg, 'adaptiveAdmission'), n('ctlRate'), n('ctlCap'), n('ctlUntilMs'));
    return s;
  }

  /** The closed loop's rate and cap on turns, while valid and switched on (room.lua governed). */
  governed(
    s: Settings,
    adaptive: string | undefined,
    rate: number | undefined,
    cap: number | undefined,
    untilMs: number | undefined,
  ): void {
    if (adaptive === '0' || untilMs === undefined || untilMs <= this.nowMs) return;
    if (rate !== undefined && rate !== s.admitPerMinute) {
      s.admitBurst = rate <= 0 ? 0 : Math.max(1, Math.floor((s.admitBurst * rate) / s.admitPerMinute + 0.5));
      s.admitPerMinute = Math.max(0, rate);
    }
    if (cap !== undefined && cap >= 0 && cap < s.capacity) s.capacity = cap;
  }

  freezeIfDue(s: Settings): void {
    if (s.state !== 'scheduled' || s.opensAtMs === undefined || s.opensAtMs > this.nowMs) return;
    const { db } = this;
    const n = db.zset(this.pre).size;
    const base = db.hincrby(this.stats, 'seq', n) - n;
    db.hset(this.stats, 'drawBase', base, 'openedAtMs', this.nowMs);
    if (n === 0) {
      db.hset(this.cfg, 'state', 'open', 'seedRevealed', '1');
      s.state = 'open';
    } else {
      db.hset(this.cfg, 'state', 'opening');
      s.state = 'opening';
    }
  }

  learnTurns(count: number, totalMs: number): void {
    if (count <= 0) return;
    const { db, nowMs } = this;
    const keep = Math.exp(-Math.max(0, nowMs - (db.hnum(this.stats, 'lrnTurnAtMs') ?? nowMs)) / TURN_DECAY_MS);
    db.hset(
      this.stats,
      'lrnTurnAtMs',
      nowMs,
      'lrnTurns',
      (db.hnum(this.stats, 'lrnTurns') ?? 0) * keep + count,
      'lrnTurnMs',
      (db.hnum(this.stats, 'lrnTurnMs') ?? 0) * keep + Math.max(0, totalMs),
    );
  }

  learnEarlyEnd(s: Settings, customer: string): void {
    const session = this.db.zset(this.active).score(customer);
    if (session !== undefined) {
      this.learnTurns(1, s.sessionTtlMs - (session - this.nowMs));
      return;
    }
    const offer = this.db.zset(this.offers).score(customer);
    if (offer !== undefined) this.learnTurns(1, firstClaimMs(s) - (offer - this.nowMs));
  }

  /** room.lua learnClaim: the offer-to-claim part of the slot, from the offer's expiry. */
  learnClaim(s: Settings, offerExpiresAt: number): void {
    const { db, nowMs } = this;
    const gap = firstClaimMs(s) - (offerExpiresAt - nowMs);
    if (gap < 0) return;
    const keep = Math.exp(-Math.max(0, nowMs - (db.hnum(this.stats, 'lrnClaimAtMs') ?? nowMs)) / TURN_DECAY_MS);
    db.hset(
      this.stats,
      'lrnClaimAtMs',
      nowMs,
      'lrnClaims',
      (db.hnum(this.stats, 'lrnClaims') ?? 0) * keep + 1,
      'lrnClaimMs',
      (db.hnum(this.stats, 'lrnClaimMs') ?? 0) * keep + gap,
    );
  }

  /** room.lua learnRunning: running turns older than the ended ones' mean, oldest first; before MIN_TURNS ended, every running turn. */
  learnRunning(s: Settings): void {
    const { db, nowMs } = this;
    const n = db.hnum(this.stats, 'lrnTurns') ?? 0;
    const total = db.hnum(this.stats, 'lrnTurnMs') ?? 0;
    let count = 0;
    let ageMs = 0;
    if (n < MIN_TURNS) {
      const active = db.zset(this.active);
      for (let i = 0; i < MAX_RUNNING_READ; i++) {
        const entry = active.at(i);
        if (!entry) break;
        count++;
        ageMs += Math.max(0, s.sessionTtlMs - (entry.score - nowMs));
      }
    } else if (n > 0) {
      const before = Math.floor(nowMs - total / n + s.sessionTtlMs);
      const active = db.zset(this.active);
      for (let i = 0; i < MAX_RUNNING_READ; i++) {
        const entry = active.at(i);
        if (!entry || entry.score >= before) break;
        const age = s.sessionTtlMs - (entry.score - nowMs);
        if (age * (n + count) <= total + ageMs) break;
        count++;
        ageMs += age;
      }
    }
    db.hset(this.stats, 'lrnRunN', count, 'lrnRunMs', ageMs, 'lrnRunAtMs', nowMs);
  }

  /** room.lua predictedPerMinute: the rate in force, or the capacity over the mean turn. */
  predictedPerMinute(rate: number, capacity: number): number {
    const n = this.db.hnum(this.stats, 'lrnTurns') ?? 0;
    const total = this.db.hnum(this.stats, 'lrnTurnMs') ?? 0;
    if (n >= MIN_TURNS && total > 0) return Math.min(rate, (capacity * RATE_WINDOW_MS * n) / total);
    return rate;
  }

  learnBusy(s: Settings, offered: number): void {
    const { db, nowMs } = this;
    let busyMs = db.hnum(this.stats, 'lrnBusyMs') ?? 0;
    let busyAdmits = db.hnum(this.stats, 'lrnBusyAdm') ?? 0;
    if (db.hget(this.stats, 'lrnBusy') === '1') {
      const dt = Math.max(0, nowMs - (db.hnum(this.stats, 'lrnAtMs') ?? nowMs));
      const keep = Math.exp(-dt / BUSY_DECAY_MS);
      busyMs = busyMs * keep + dt;
      busyAdmits = busyAdmits * keep + offered;
    }
    const rate = s.admitPerMinute;
    const was = db.hnum(this.stats, 'lrnRate');
    let holdUntil = db.hnum(this.stats, 'lrnHoldMs') ?? 0;
    if (was !== undefined && rate !== was) {
      const before = this.predictedPerMinute(was, s.capacity);
      if (before > 0) busyAdmits = (busyAdmits * this.predictedPerMinute(rate, s.capacity)) / before;
      else [busyMs, busyAdmits] = [0, 0];
      if (rate < was) holdUntil = nowMs + RATE_WINDOW_MS;
    }
    const busy = s.state === 'open' && rate > 0 && nowMs >= holdUntil && db.zset(this.line).size > 0;
    db.hset(
      this.stats,
      'lrnAtMs',
      nowMs,
      'lrnBusy',
      busy ? '1' : '0',
      'lrnBusyMs',
      busyMs,
      'lrnBusyAdm',
      busyAdmits,
      'lrnRate',
      rate,
      'lrnHoldMs',
      holdUntil,
    );
  }

  learnOutcomes(claimed: number, noShows: number): void {
    const { db, nowMs } = this;
    const keep = Math.exp(-Math.max(0, nowMs - (db.hnum(this.stats, 'lrnOutAtMs') ?? nowMs)) / OUTCOME_DECAY_MS);
    db.hset(
      this.stats,
      'lrnOutAtMs',
      nowMs,
      'lrnOutcomes',
      (db.hnum(this.stats, 'lrnOutcomes') ?? 0) * keep + claimed + noShows,
      'lrnNoShows',
      (db.hnum(this.stats, 'lrnNoShows') ?? 0) * keep + noShows,
    );
  }

  noShowRate(): number {
    const outcomes = this.db.hnum(this.stats, 'lrnOutcomes') ?? 0;
    if (outcomes < MIN_OUTCOMES) return 0;
    return Math.min(MAX_NO_SHOW, (this.db.hnum(this.stats, 'lrnNoShows') ?? 0) / outcomes);
  }

  /** room.lua journal: the entries of one call as one element, `<epoch>.<first seq>` then a line each. */
  journal(s: Settings, entries: string[]): void {
    if (entries.length === 0 || !s.journal) return;
    const { db } = this;
    const last = db.hincrby(this.stats, 'jSeq', entries.length);
    let epoch: string;
    if (last === entries.length) {
      epoch = `${this.nowMs}${Math.floor(Math.random() * 1000)}`;
      db.hset(this.stats, 'jEpoch', epoch);
    } else {
      epoch = db.hget(this.stats, 'jEpoch') ?? '0';
    }
    db.list(this.journalKey).push(`${epoch}.${last - entries.length + 1}\n${entries.join('\n')}`);
  }

  entry(kind: string, customer: string, rank: string | number): string {
    return `${kind}|${customer}|${rank}|${this.nowMs}`;
  }

  expire(s: Settings): void {
    const { db } = this;
    const sessions = db.zset(this.active).removeUpTo(this.nowMs);
    const lapsed = db.zset(this.offers).membersUpTo(this.nowMs);
    const offers = lapsed.length;
    if (offers > 0) {
      db.zset(this.offers).removeUpTo(this.nowMs);
      const park = s.offerWindowMs > FIRST_CLAIM_MS;
      const entries: string[] = [];
      for (const customer of lapsed) {
        const ticket = db.hget(this.who, customer);
        if (ticket !== undefined) {
          db.zset(this.admits).remove(ticket);
          if (park && Number(ticket) > 0) {
            db.hset(this.who, customer, -Number(ticket));
            entries.push(this.entry('p', customer, ticket));
          }
        }
      }
      this.journal(s, entries);
      if (park) db.hincrby(this.stats, 'parked', offers);
      const tokens = db.hnum(this.stats, 'bucketTokens');
      if (tokens !== undefined) db.hset(this.stats, 'bucketTokens', tokens + offers);
      db.hincrby(this.stats, 'offersExpired', offers);
      this.learnOutcomes(0, offers);
    }
    if (sessions > 0) db.hincrby(this.stats, 'sessionsExpired', sessions);
    this.learnTurns(sessions + offers, sessions * s.sessionTtlMs + offers * firstClaimMs(s));
  }

  offerToHead(s: Settings): [number, number, number] {
    if (s.state !== 'open') return [0, 0, 0];
    const { db, nowMs } = this;
    const offers = db.zset(this.offers);
    const shows = 1 - this.noShowRate();
    const free = Math.floor((s.capacity - db.zset(this.active).size) / shows + 1e-9) - offers.size;
    if (free <= 0) return [0, 0, 0];
    let tokens = db.hnum(this.stats, 'bucketTokens') ?? s.admitBurst;
    const at = db.hnum(this.stats, 'bucketAtMs') ?? nowMs;
    tokens = Math.min(s.admitBurst, tokens + (Math.max(0, nowMs - at) * s.admitPerMinute) / RATE_WINDOW_MS);
    const admits = db.zset(this.admits);
    admits.removeUpTo(nowMs - RATE_WINDOW_MS);
    const windowLeft = windowCap(s) - admits.size;
    const budget = Math.min(free, Math.floor(tokens), windowLeft);
    let offered = 0;
    const skipped = 0; // nobody is dropped at the head: a quiet buyer is parked (room.lua says why)
    let parked = 0;
    const staleBefore = Math.max(nowMs - FRESH_MS, nowMs - s.abandonGraceMs);
    const line = db.zset(this.line);
    const entries: string[] = [];
    while (offered < budget && skipped + parked < MAX_SKIPS_PER_TICK) {
      const head = line.popMin();
      if (!head) break;
      const beat = db.hnum(this.beat, head.member);
      if (beat !== undefined && beat < staleBefore) {
        // Parked, the grace to come back counting from now (room.lua says why).
        parked++;
        db.hset(this.who, head.member, -head.score);
        db.hset(this.beat, head.member, nowMs);
        if (s.journal) entries.push(this.entry('p', head.member, head.score));
      } else {
        offers.add(head.member, nowMs + firstClaimMs(s));
        admits.add(String(head.score), nowMs);
        offered++;
        if (s.journal) entries.push(this.entry('a', head.member, head.score));
      }
    }
    this.journal(s, entries);
    db.hset(this.stats, 'bucketTokens', tokens - offered, 'bucketAtMs', nowMs);
    if (offered > 0) db.hincrby(this.stats, 'offered', offered);
    if (skipped > 0) db.hincrby(this.stats, 'abandoned', skipped);
    if (parked > 0) db.hincrby(this.stats, 'parked', parked);
    return [offered, skipped, parked];
  }

  restoreIfParked(s: Settings, customer: string): void {
    const { db, nowMs } = this;
    const ticket = db.hnum(this.who, customer);
    if (ticket === undefined || ticket >= 0) return;
    const beat = db.hnum(this.beat, customer);
    db.hset(this.who, customer, -ticket);
    if (beat !== undefined && beat >= nowMs - s.abandonGraceMs) {
      db.zset(this.line).add(customer, -ticket);
      db.hincrby(this.stats, 'unparked', 1);
      this.journal(s, [this.entry('r', customer, -ticket)]);
    } else {
      db.hdel(this.beat, customer);
      db.hincrby(this.stats, 'abandoned', 1);
    }
  }

  advance(s: Settings): [number, number] {
    this.freezeIfDue(s);
    this.expire(s);
    const [offered, skipped, parked] = this.offerToHead(s);
    this.learnBusy(s, offered + skipped + parked);
    this.learnRunning(s);
    this.db.hset(this.stats, 'lastTickMs', this.nowMs);
    return [offered, skipped];
  }

  advanceIfDue(s: Settings): void {
    const lastTick = this.db.hnum(this.stats, 'lastTickMs') ?? 0;
    if (this.nowMs - lastTick >= s.tickGapMs) this.advance(s);
  }

  /** A pre-queue member has `who` 0; from the opening on the pre-queue set is frozen for the draw. */
  inPrequeue(customer: string): boolean {
    return this.db.zset(this.pre).score(customer) !== undefined && this.db.hget(this.who, customer) === '0';
  }

  holdsPlace(customer: string): boolean {
    const { db } = this;
    return (
      [this.active, this.offers, this.line].some((key) => db.zset(key).score(customer) !== undefined) ||
      this.inPrequeue(customer)
    );
  }

  /** Pre-queue members the opening draw has not placed yet. */
  undrawnCount(s: Settings): number {
    const n = this.db.zset(this.pre).size;
    return s.state === 'opening' ? n - (this.db.hnum(this.stats, 'drawNext') ?? 0) : n;
  }
}
