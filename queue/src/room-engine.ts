/**
 * The waiting-room engine: one object per store, every operation one or two script calls.
 * Decisions come back as values (`{ ok: true, … }` or a `Refused`), never as exceptions;
 * only store failures (Redis down) throw.
 */
import { invalidInput, refusalFromCode, RefusalCode, type Refused } from './codes';
import { admissionRatePerMs, type RoomSnapshot } from './estimate';
import { drawOrder, newSeed, seedCommitment } from './fair-draw';
import { createKeyBuilder, isValidCustomerId, isValidShowtimeId } from './keys';
import { roomViewFromReply, standingFromReply, type Standing } from './replies';
import { scripts } from './scripts.gen';
import { roomSettingsPatchSchema, settingsToPairs, type RoomSettings, type RoomSettingsPatch, type RoomState } from './settings';
import { runScript, type ScriptStore } from './store';
import type { LuaScript } from './script-types';

export interface RoomEngineOptions {
  store: ScriptStore;
  /** Goes in front of every key (`t:run:ns:` in tests). */
  keyPrefix?: string;
  /** Jitter source, replaceable in tests. */
  random?: () => number;
}

export interface Claimed {
  ok: true;
  sessionId: string;
  sessionExpiresAtMs: number;
  /** True when this customer was already admitted: the same session is returned. */
  alreadyAdmitted: boolean;
}

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
  offersExpired: number;
  sessionsExpired: number;
  released: number;
  left: number;
  lastPosition: number;
  etaLastMs: number | null;
  seedHash: string | null;
  /** Revealed after the opening draw, null before. */
  seed: string | null;
}

const MAX_DRAW_ATTEMPTS = 5;

export function createRoomEngine(options: RoomEngineOptions) {
  const { store, random } = options;
  const keys = createKeyBuilder(options.keyPrefix ?? '');

  const call = (script: LuaScript, showtimeId: string, args: (string | number)[] = []) =>
    runScript(store, script, keys.forShowtime(showtimeId).room, args);

  const isRefusal = (reply: unknown[]) => Number(reply[0]) < 0;
  const refused = (reply: unknown[]): Refused => refusalFromCode(Number(reply[0]));

  function checkIds(showtimeId: string, customerId?: string): Refused | null {
    if (!isValidShowtimeId(showtimeId)) return invalidInput('showtime id must be 1-64 of [A-Za-z0-9_-]');
    if (customerId !== undefined && !isValidCustomerId(customerId)) {
      return invalidInput('customer id must be 1-128 of [A-Za-z0-9_.:@-]');
    }
    return null;
  }

  /** Shuffles the frozen pre-queue with the committed seed and opens the room. */
  async function runDraw(showtimeId: string): Promise<void> {
    for (let attempt = 0; attempt < MAX_DRAW_ATTEMPTS; attempt++) {
      const reply = await call(scripts.prequeue, showtimeId);
      if (isRefusal(reply) || String(reply[1]) !== 'opening') return;
      const seed = String(reply[2]);
      const order = await drawOrder(seed, reply.slice(3).map(String));
      const applied = await call(scripts.draw, showtimeId, order);
      // -9: another process applied the draw first; -8: someone left meanwhile, read again.
      if (!isRefusal(applied) || Number(applied[0]) === RefusalCode.NotOpening) return;
    }
  }

  async function tick(showtimeId: string): Promise<TickResult | Refused> {
    const bad = checkIds(showtimeId);
    if (bad) return bad;
    let reply = await call(scripts.tick, showtimeId);
    if (isRefusal(reply)) return refused(reply);
    if (String(reply[3]) === 'opening') {
      await runDraw(showtimeId);
      reply = await call(scripts.tick, showtimeId);
      if (isRefusal(reply)) return refused(reply);
    }
    return { ok: true, offered: Number(reply[1]), skipped: Number(reply[2]), state: String(reply[3]) as RoomState };
  }

  async function standing(script: LuaScript, showtimeId: string, customerId: string): Promise<Standing | Refused> {
    const bad = checkIds(showtimeId, customerId);
    if (bad) return bad;
    let reply = await call(script, showtimeId, [customerId]);
    if (isRefusal(reply)) return refused(reply);
    if (String(reply[10]) === 'opening') {
      await runDraw(showtimeId);
      reply = await call(scripts.poll, showtimeId, [customerId]);
      if (isRefusal(reply)) return refused(reply);
    }
    return standingFromReply(reply, random);
  }

  async function inspect(showtimeId: string) {
    const reply = await call(scripts.inspect, showtimeId);
    return isRefusal(reply) ? refused(reply) : roomViewFromReply(showtimeId, reply);
  }

  return {
    keys,

    /** Applies a settings patch live; creates the room (with defaults) on first use. */
    async configure(showtimeId: string, patch: RoomSettingsPatch): Promise<{ ok: true; state: RoomState } | Refused> {
      const bad = checkIds(showtimeId);
      if (bad) return bad;
      const parsed = roomSettingsPatchSchema.safeParse(patch);
      if (!parsed.success) return invalidInput(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      const seed = newSeed();
      const { set, defaults } = settingsToPairs(parsed.data);
      const args = [seed, await seedCommitment(seed), parsed.data.state ?? '', set.length / 2, ...set, ...defaults];
      const reply = await call(scripts.configure, showtimeId, args);
      if (isRefusal(reply)) return refused(reply);
      const state = String(reply[1]) as RoomState;
      const driven = state !== 'closed' && state !== 'sold_out';
      await runScript(store, scripts.registry, [keys.registry], [driven ? 'add' : 'remove', showtimeId]);
      if (state === 'opening') {
        await runDraw(showtimeId);
        const deferred = parsed.data.state;
        if (deferred === 'paused') await call(scripts.configure, showtimeId, [seed, '', deferred, 0]);
      }
      const ticked = await tick(showtimeId);
      return { ok: true, state: ticked.ok ? ticked.state : state };
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

    /** One place per customer per showtime; joining again returns the same place. */
    join: (showtimeId: string, customerId: string) => standing(scripts.join, showtimeId, customerId),

    /** Heartbeat plus state, exact position, ETA and a jittered next poll time. */
    poll: (showtimeId: string, customerId: string) => standing(scripts.poll, showtimeId, customerId),

    tick,

    /** Turns an open offer into an admission session; idempotent for the admitted customer. */
    async claim(showtimeId: string, customerId: string): Promise<Claimed | Refused> {
      const bad = checkIds(showtimeId, customerId);
      if (bad) return bad;
      const reply = await call(scripts.claim, showtimeId, [customerId]);
      if (isRefusal(reply)) return refused(reply);
      return {
        ok: true,
        sessionId: `${showtimeId}.${Number(reply[1])}`,
        sessionExpiresAtMs: Number(reply[2]),
        alreadyAdmitted: Number(reply[3]) === 1,
      };
    },

    /** Gives the admission (or offer) back at once: booking done or buyer left (a released hold keeps the turn). */
    async release(showtimeId: string, customerId: string): Promise<{ ok: true; freed: boolean } | Refused> {
      const bad = checkIds(showtimeId, customerId);
      if (bad) return bad;
      const reply = await call(scripts.release, showtimeId, [customerId]);
      return isRefusal(reply) ? refused(reply) : { ok: true, freed: Number(reply[1]) > 0 };
    },

    /** Removes the customer from wherever they stand (page closed). */
    async leave(showtimeId: string, customerId: string): Promise<{ ok: true; removed: boolean } | Refused> {
      const bad = checkIds(showtimeId, customerId);
      if (bad) return bad;
      const reply = await call(scripts.leave, showtimeId, [customerId]);
      return isRefusal(reply) ? refused(reply) : { ok: true, removed: Number(reply[1]) > 0 };
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
      const rate = admissionRatePerMs({ ...s, admitPerMinute: s.settings.admitPerMinute });
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
        offersExpired: count('offersExpired'),
        sessionsExpired: count('sessionsExpired'),
        released: count('released'),
        left: count('left'),
        lastPosition,
        etaLastMs: s.state === 'open' && lastPosition > 0 ? Math.round(lastPosition / rate) : null,
        seedHash: s.seedHash,
        seed,
      };
    },

    /** Showtime ids the ticker drives (rooms not closed or sold out). */
    async listRooms(): Promise<string[]> {
      const reply = await runScript(store, scripts.registry, [keys.registry], ['list']);
      return reply.slice(1).map(String);
    },
  };
}

export type RoomEngine = ReturnType<typeof createRoomEngine>;
