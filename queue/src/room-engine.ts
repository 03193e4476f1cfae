/**
 * The waiting-room engine: one object per store, every operation one or two script calls.
 * Decisions come back as values (`{ ok: true, … }` or a `Refused`), never as exceptions;
 * only store failures (Redis down) throw.
 */
import { invalidInput, refusalFromCode, RefusalCode, type Refused } from './codes';
import { etaForPositionMs, serviceRatePerMs, snapshotBucket, turnStats, type RoomSnapshot } from './estimate';
import { drawOrder, newSeed, seedCommitment } from './fair-draw';
import { createKeyBuilder, isValidCustomerId, isValidShowtimeId } from './keys';
import { readReply } from './reply-fields';
import { placeFromReply, roomViewFromReply, standingFromReply, type Place, type Standing } from './replies';
import { createTurnHistory } from './turn-history';
import { admissionView, governedSettings, type AdmissionView } from './room-control';
import { scripts } from './scripts.gen';
import {
  roomSettingsPatchSchema,
  settingsToPairs,
  type RoomSettings,
  type RoomSettingsPatch,
  type RoomState,
} from './settings';
import { runScript, type ScriptStore } from './store';
import type { LuaScript } from './script-types';

export interface RoomEngineOptions {
  store: ScriptStore;
  /** Goes in front of every key (`t:run:ns:` in tests). */
  keyPrefix?: string;
  /** Jitter source, replaceable in tests. */
  random?: () => number;
  /** Pre-queue members per script call in the opening draw (DRAW_CHUNK); small in tests. */
  drawChunk?: number;
  /**
   * The window over which one address's new places are counted against churn (at most four
   * times placesPerAddress per window; lua/includes/join.lua). An hour; short in tests.
   */
  addressChurnWindowMs?: number;
}

export interface Claimed {
  ok: true;
  sessionId: string;
  sessionExpiresAtMs: number;
  /** True when this customer was already admitted: the same session is returned. */
  alreadyAdmitted: boolean;
}

/** A turn from the core's ledger: who, which ticket, until when. */
export interface RestoredTurn {
  customerId: string;
  ticket: number;
  expiresAtMs: number;
}

/** Turns restored per script call: bounded work inside Redis for a room of any capacity. */
const RESTORE_CHUNK = 500;

export interface TickResult {
  ok: true;
  offered: number;
  skipped: number;
  state: RoomState;
}

export interface RoomStats {
  ok: true;
  state: RoomState;
  waiting: number;
  prequeue: number;
  offered: number;
  active: number;
  admittedLastMinute: number;
  admittedPerMinute: number;
  joined: number;
  admitted: number;
  abandoned: number;
  /** Passed over at the head, not seen for a few seconds (walked away?), and how many came back. */
  parked: number;
  unparked: number;
  offersExpired: number;
  sessionsExpired: number;
  released: number;
  left: number;
  lastPosition: number;
  etaLastMs: number | null;
  /** How long a turn lasts as the estimate takes it (claim to end), and whose turns say so: null until known. */
  turnMs: number | null;
  turnFrom: 'room' | 'history' | null;
  seedHash: string | null;
  /** Revealed after the opening draw, null before. */
  seed: string | null;
  /** Target against effective admission rate, and why (room-control.ts). */
  admission: AdmissionView;
}

const finiteOrNull = (ms: number): number | null => (Number.isFinite(ms) ? ms : null);

const MAX_DRAW_ATTEMPTS = 5;
/** Pre-queue members read, or placed, per script call during the opening draw. */
export const DRAW_CHUNK = 1_000;

export function createRoomEngine(options: RoomEngineOptions) {
  const { store, random } = options;
  const keys = createKeyBuilder(options.keyPrefix ?? '');
  const churnWindowMs = options.addressChurnWindowMs ?? 3_600_000;

  const call = (script: LuaScript, showtimeId: string, args: (string | number)[] = []) =>
    runScript(store, script, keys.forShowtime(showtimeId).room, args);

  const turnHistory = createTurnHistory(store, keys.turnHistory);
  const turnPrior = turnHistory.prior;

  const isRefusal = (reply: unknown[]) => Number(reply[0]) < 0;
  const refused = (reply: unknown[]): Refused => refusalFromCode(Number(reply[0]));

  function checkIds(showtimeId: string, customerId?: string): Refused | null {
    if (!isValidShowtimeId(showtimeId)) return invalidInput('showtime id must be 1-64 of [A-Za-z0-9_-]');
    if (customerId !== undefined && !isValidCustomerId(customerId)) {
      return invalidInput('customer id must be 1-128 of [A-Za-z0-9_.:@-]');
    }
    return null;
  }

  /**
   * The opening draw in bounded steps: the frozen pre-queue is read in pages, shuffled with
   * the committed seed, and applied in chunks, so no single script call grows with the
   * pre-queue (100,000 members are 100 reads and 100 writes of 1,000, each a few ms), and leaves during the
   * opening cannot invalidate it (the set stays frozen; leavers are skipped). Several
   * processes may draw at once: they compute the same order, and a chunk applies only where
   * the draw stands. One draw per showtime at a time in this process.
   */
  const drawChunk = options.drawChunk ?? DRAW_CHUNK;
  const drawing = new Map<string, Promise<void>>();
  function runDraw(showtimeId: string): Promise<void> {
    let running = drawing.get(showtimeId);
    if (!running) {
      running = drawOnce(showtimeId).finally(() => drawing.delete(showtimeId));
      drawing.set(showtimeId, running);
    }
    return running;
  }

  async function drawOnce(showtimeId: string): Promise<void> {
    for (let attempt = 0; attempt < MAX_DRAW_ATTEMPTS; attempt++) {
      const firstReply = await call(scripts.prequeue, showtimeId, [0, drawChunk]);
      if (isRefusal(firstReply)) return;
      const first = readReply('prequeue', firstReply);
      if (String(first.roomState) !== 'opening') return;
      const seed = String(first.seed);
      const total = Number(first.total);
      const members = first.rest.map(String);
      while (members.length < total) {
        const pageReply = await call(scripts.prequeue, showtimeId, [members.length, drawChunk]);
        if (isRefusal(pageReply)) return;
        const page = readReply('prequeue', pageReply);
        if (String(page.roomState) !== 'opening') return;
        if (Number(page.total) !== total || page.rest.length === 0) break; // changed under us: start over
        members.push(...page.rest.map(String));
      }
      if (members.length !== total) continue;
      const order = await drawOrder(seed, members);
      let next = Number(first.drawNext);
      while (next < total) {
        const reply = await call(scripts.draw, showtimeId, [next, total, ...order.slice(next, next + drawChunk)]);
        if (isRefusal(reply)) {
          // -9: the draw is over (another process finished it); -8: read again.
          if (Number(reply[0]) === RefusalCode.NotOpening) return;
          break;
        }
        const applied = readReply('draw', reply);
        if (Number(applied.done) === 1) return;
        next = Number(applied.drawNext);
      }
      if (next >= total) return;
    }
  }

  async function tick(showtimeId: string): Promise<TickResult | Refused> {
    const bad = checkIds(showtimeId);
    if (bad) return bad;
    let reply = await call(scripts.tick, showtimeId);
    if (isRefusal(reply)) return refused(reply);
    if (String(readReply('tick', reply).roomState) === 'opening') {
      await runDraw(showtimeId);
      reply = await call(scripts.tick, showtimeId);
      if (isRefusal(reply)) return refused(reply);
    }
    const ticked = readReply('tick', reply);
    return {
      ok: true,
      offered: Number(ticked.offered),
      skipped: Number(ticked.skipped),
      state: String(ticked.roomState) as RoomState,
    };
  }

  async function standing(
    script: LuaScript,
    showtimeId: string,
    customerId: string,
    address?: string | null,
  ): Promise<Standing | Refused> {
    const bad = checkIds(showtimeId, customerId);
    if (bad) return bad;
    let reply =
      script === scripts.join
        ? await runScript(store, script, keys.forShowtime(showtimeId).joining(address ?? ''), [
            customerId,
            address ?? '',
            churnWindowMs,
          ])
        : await call(script, showtimeId, [customerId]);
    if (isRefusal(reply)) return refused(reply);
    if (String(readReply('poll', reply).roomState) === 'opening') {
      await runDraw(showtimeId);
      reply = await call(scripts.poll, showtimeId, [customerId]);
      if (isRefusal(reply)) return refused(reply);
    }
    return standingFromReply(reply, random, turnPrior.current());
  }

  async function inspect(showtimeId: string) {
    const reply = await call(scripts.inspect, showtimeId);
    if (isRefusal(reply)) return refused(reply);
    const view = roomViewFromReply(showtimeId, reply);
    view.snapshot.learning.priorTurnMs = turnPrior.current();
    return view;
  }

  return {
    keys,

    /**
     * Applies a settings patch live; creates the room (with defaults) on first use. A patch whose
     * `version` is older than the room's changes nothing (`applied: false`).
     */
    async configure(
      showtimeId: string,
      patch: RoomSettingsPatch,
      options: { seed?: string } = {},
    ): Promise<{ ok: true; state: RoomState; applied: boolean } | Refused> {
      const bad = checkIds(showtimeId);
      if (bad) return bad;
      const parsed = roomSettingsPatchSchema.safeParse(patch);
      if (!parsed.success)
        return invalidInput(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      // The room keeps the first seed it was given (HSETNX): the one kept with the showtime in
      // PostgreSQL when the sale control hands it over, else one of its own.
      const seed = options.seed && /^[0-9a-f]{64}$/.test(options.seed) ? options.seed : newSeed();
      const { set, defaults } = settingsToPairs(parsed.data);
      const args = [seed, await seedCommitment(seed), parsed.data.state ?? '', set.length / 2, ...set, ...defaults];
      const reply = await call(scripts.configure, showtimeId, args);
      if (isRefusal(reply)) return refused(reply);
      const configured = readReply('configure', reply);
      const state = String(configured.state) as RoomState;
      if (Number(configured.applied) === 0) return { ok: true, state, applied: false };
      const driven = state !== 'closed' && state !== 'sold_out';
      await runScript(store, scripts.registry, [keys.registry], [driven ? 'add' : 'remove', showtimeId]);
      if (state === 'opening') {
        await runDraw(showtimeId);
        const deferred = parsed.data.state;
        if (deferred === 'paused') await call(scripts.configure, showtimeId, [seed, '', deferred, 0]);
      }
      const ticked = await tick(showtimeId);
      return { ok: true, state: ticked.ok ? ticked.state : state, applied: true };
    },

    async getSettings(showtimeId: string): Promise<{ ok: true; settings: RoomSettings } | Refused> {
      const bad = checkIds(showtimeId);
      if (bad) return bad;
      const view = await inspect(showtimeId);
      return 'snapshot' in view ? { ok: true, settings: view.snapshot.settings } : view;
    },

    /** The sale is over: waiters are told, no more offers; admitted buyers keep their session. */
    markSoldOut(showtimeId: string) {
      return this.configure(showtimeId, { state: 'sold_out' });
    },

    /**
     * One place per customer per showtime; joining again returns the same place. A new place
     * counts against `address`'s cap in this room (null: not counted).
     */
    join: (showtimeId: string, customerId: string, address: string | null = null) =>
      standing(scripts.join, showtimeId, customerId, address),

    /**
     * `join`, answered with the buyer's own place only (state, ticket, exact position): for a
     * caller holding a recent snapshot of the room, which works the wait out from it. Most of
     * a join's work inside Redis is the room-wide half of the answer this leaves out. An
     * `opening` room's place is not final until the draw has run: ask `poll` then.
     */
    async enter(showtimeId: string, customerId: string, address: string | null = null): Promise<Place | Refused> {
      const bad = checkIds(showtimeId, customerId);
      if (bad) return bad;
      const reply = await runScript(store, scripts.enter, keys.forShowtime(showtimeId).joining(address ?? ''), [
        customerId,
        address ?? '',
        churnWindowMs,
      ]);
      return isRefusal(reply) ? refused(reply) : placeFromReply(reply);
    },

    /** Heartbeat plus state, exact position, ETA and a jittered next poll time. */
    poll: (showtimeId: string, customerId: string) => standing(scripts.poll, showtimeId, customerId),

    tick,

    /** Turns an open offer into an admission session; idempotent for the admitted customer. */
    async claim(showtimeId: string, customerId: string): Promise<Claimed | Refused> {
      const bad = checkIds(showtimeId, customerId);
      if (bad) return bad;
      const reply = await call(scripts.claim, showtimeId, [customerId]);
      if (isRefusal(reply)) return refused(reply);
      const claimed = readReply('claim', reply);
      return {
        ok: true,
        sessionId: `${showtimeId}.${Number(claimed.ticket)}`,
        sessionExpiresAtMs: Number(claimed.sessionExpiresAtMs),
        alreadyAdmitted: Number(claimed.alreadyAdmitted) === 1,
      };
    },

    /**
     * Puts back turns a lost copy of the room had granted (from the core's ledger), so they keep
     * working and count against the capacity; customers the room already knows are left alone.
     */
    async restoreTurns(
      showtimeId: string,
      turns: readonly RestoredTurn[],
    ): Promise<{ ok: true; restored: number } | Refused> {
      const bad = checkIds(showtimeId);
      if (bad) return bad;
      let restored = 0;
      for (let i = 0; i < turns.length; i += RESTORE_CHUNK) {
        const args = turns
          .slice(i, i + RESTORE_CHUNK)
          .flatMap((turn) => [turn.customerId, turn.ticket, turn.expiresAtMs]);
        const reply = await call(scripts.restore, showtimeId, args);
        if (isRefusal(reply)) return refused(reply);
        restored += Number(readReply('restore', reply).restored);
      }
      return { ok: true, restored };
    },

    /** Gives the admission (or offer) back at once: booking done or buyer left (a released hold keeps the turn). */
    async release(showtimeId: string, customerId: string): Promise<{ ok: true; freed: boolean } | Refused> {
      const bad = checkIds(showtimeId, customerId);
      if (bad) return bad;
      const reply = await call(scripts.release, showtimeId, [customerId]);
      return isRefusal(reply) ? refused(reply) : { ok: true, freed: Number(readReply('release', reply).freed) > 0 };
    },

    /** Removes the customer from wherever they stand (page closed). */
    async leave(showtimeId: string, customerId: string): Promise<{ ok: true; removed: boolean } | Refused> {
      const bad = checkIds(showtimeId, customerId);
      if (bad) return bad;
      const reply = await call(scripts.leave, showtimeId, [customerId]);
      return isRefusal(reply) ? refused(reply) : { ok: true, removed: Number(readReply('leave', reply).removed) > 0 };
    },

    /** One read for the edge's per-showtime cache (see `estimateFromSnapshot`). */
    async snapshot(showtimeId: string): Promise<{ ok: true; snapshot: RoomSnapshot } | Refused> {
      const bad = checkIds(showtimeId);
      if (bad) return bad;
      const view = await inspect(showtimeId);
      return 'snapshot' in view ? { ok: true, snapshot: view.snapshot } : view;
    },

    async stats(showtimeId: string): Promise<RoomStats | Refused> {
      const bad = checkIds(showtimeId);
      if (bad) return bad;
      const view = await inspect(showtimeId);
      if (!('snapshot' in view)) return view;
      const { snapshot: s, counters, seed } = view;
      const count = (field: string) => Number(counters.get(field) ?? 0);
      const governed = governedSettings(s.settings, s.control);
      const rate = serviceRatePerMs({ ...governed, learning: s.learning });
      const lastPosition = s.lineLength + (s.state === 'opening' || s.state === 'scheduled' ? s.preLength : 0);
      return {
        ok: true,
        state: s.state,
        waiting: s.lineLength + s.preLength,
        prequeue: s.preLength,
        offered: s.offered,
        active: s.active,
        admittedLastMinute: s.admitsInWindow,
        admittedPerMinute: Math.round(rate * 60_000),
        joined: count('joined'),
        admitted: count('admitted'),
        abandoned: count('abandoned'),
        parked: count('parked'),
        unparked: count('unparked'),
        offersExpired: count('offersExpired'),
        sessionsExpired: count('sessionsExpired'),
        released: count('released'),
        left: count('left'),
        lastPosition,
        etaLastMs:
          s.state === 'open' && lastPosition > 0
            ? finiteOrNull(
                etaForPositionMs(lastPosition, {
                  ratePerMs: rate,
                  headStart: s.headStart,
                  admitsInWindow: s.admitsInWindow,
                  admitPerMinute: governed.admitPerMinute,
                  bucket: snapshotBucket(s, governed),
                }),
              )
            : null,
        ...turnStats(s.learning),
        seedHash: s.seedHash,
        seed,
        admission: admissionView(s.settings, s.control, s.active + s.offered),
      };
    },

    /**
     * Support's lookup: the customer waiting in line with this ticket and their place, or
     * `customerId: null` when no one waits with it (admitted, left, passed over, or unknown).
     */
    async findTicket(
      showtimeId: string,
      ticket: number,
    ): Promise<{ ok: true; customerId: string | null; position: number | null; lineLength: number } | Refused> {
      const bad = checkIds(showtimeId);
      if (bad) return bad;
      if (!Number.isSafeInteger(ticket) || ticket < 1) return invalidInput('ticket must be a positive integer');
      const reply = await call(scripts.find, showtimeId, [ticket]);
      if (isRefusal(reply)) return refused(reply);
      const found = readReply('find', reply);
      const customerId = String(found.customer) || null;
      return {
        ok: true,
        customerId,
        position: customerId ? Number(found.position) : null,
        lineLength: Number(found.lineLength) + Number(found.preLength),
      };
    },

    /**
     * Writes the closed loop's decision into the room (only `ctl…` fields; admission-governor.ts).
     * An unknown room is refused, never created.
     */
    async govern(showtimeId: string, fields: Record<string, string | number>): Promise<{ ok: true } | Refused> {
      const bad = checkIds(showtimeId);
      if (bad) return bad;
      const reply = await call(
        scripts.govern,
        showtimeId,
        Object.entries(fields).flatMap(([field, value]) => [field, value]),
      );
      return isRefusal(reply) ? refused(reply) : { ok: true };
    },

    /**
     * Puts how long this room's turns last into the cinema's turn history (turn-history.ts),
     * once it has seen enough of them; the ticker calls it now and then. Recording again
     * replaces the room's entry.
     */
    async recordTurns(showtimeId: string): Promise<{ ok: true; recorded: boolean } | Refused> {
      const bad = checkIds(showtimeId);
      if (bad) return bad;
      const view = await inspect(showtimeId);
      if (!('snapshot' in view)) return view;
      return { ok: true, recorded: await turnHistory.record(showtimeId, view.snapshot.learning) };
    },

    /** The turn length the cinema's recent rooms suggest, read now (null: none recorded). */
    async turnPrior(): Promise<number | null> {
      await turnPrior.refresh();
      return turnPrior.current();
    },

    /** Showtime ids the ticker drives (rooms not closed or sold out). */
    async listRooms(): Promise<string[]> {
      const reply = await runScript(store, scripts.registry, [keys.registry], ['list']);
      return readReply('registry', reply).rest.map(String);
    },
  };
}

export type RoomEngine = ReturnType<typeof createRoomEngine>;
