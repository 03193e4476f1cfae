/**
 * The seat gate in front of hold_seats: a Redis script claims every requested seat plus the
 * customer's count, all or nothing, before the database is asked, so a crowd on one seat is
 * answered from Redis and one buyer at a time goes on to PostgreSQL.
 *
 * The database stays the arbiter:
 * - a gate "yes" is only permission to try; whatever the database answers decides, and a
 *   database "no" undoes the claim (release) and writes the database's state of the refused
 *   seats into the gate (repair), so the gate does not say yes to them again;
 * - a gate "no" is only given for seats the gate has seen held or sold by the database, or
 *   claimed by an attempt in flight, and for a customer past the showtime's limit;
 * - without Redis (an error, a timeout) the gate is skipped and the database decides alone;
 *   `core_seat_gate_skipped_total{reason}` counts it;
 * - a gate Redis lost (not built) is rebuilt from the database before it answers; a gate that
 *   disagrees is brought back by a periodic check (every `checkEveryMs` for every showtime
 *   it served lately; seats the gate wrote within `pendingGraceMs` are left to the next one) and
 *   by the repairs above. Booking events (gate-events.ts) keep it in step
 *   between checks: holds created and ended, bookings confirmed, seats released.
 */
import type { Sql } from 'postgres';
import { conflict, unprocessable } from '../../../lib/errors';
import { createSeatGateScripts, type GateOp, type ScriptStore } from '../../../queue/src/index';
import { readGateSource, readSeatStates } from './gate-repo';
import { createSeatGateMetrics, type SeatGateMetrics } from './gate-metrics';
import type { Registry } from 'prom-client';

export interface SeatGateSettings {
  /** How often the showtimes the gate served lately are compared with the database. */
  checkEveryMs: number;
  /** A showtime not served for this long is no longer checked. */
  activeForMs: number;
  /**
   * A seat the gate wrote within this long (a claim in flight, a release, an event, a repair) is
   * left alone by a check, whose read of the database may be older than that write.
   */
  pendingGraceMs: number;
  /** Gate keys live this long after their last check (a showtime long over leaves nothing behind). */
  keyTtlMs: number;
}

export const DEFAULT_SEAT_GATE_SETTINGS: SeatGateSettings = {
  checkEveryMs: 5_000,
  activeForMs: 10 * 60_000,
  pendingGraceMs: 5_000,
  keyTtlMs: 24 * 3_600_000,
};

/** What the hold path does after the gate: go on to the database, with or without a claim to settle. */
export type GatePass = { claimed: boolean };

export interface SeatGateLogger {
  warn(object: object, message?: string): void;
}

export function createSeatGate(deps: {
  sql: Sql;
  store: ScriptStore;
  keyPrefix?: string;
  registry: Registry;
  settings?: Partial<SeatGateSettings>;
  logger?: SeatGateLogger;
}) {
  const settings = { ...DEFAULT_SEAT_GATE_SETTINGS, ...(deps.settings ?? {}) };
  const scripts = createSeatGateScripts({ store: deps.store, keyPrefix: deps.keyPrefix ?? '' });
  const metrics: SeatGateMetrics = createSeatGateMetrics(deps.registry);
  /** Showtime id -> when the gate last served it; the periodic check covers these. */
  const active = new Map<number, number>();
  const syncing = new Map<number, Promise<boolean>>();
  /** When each showtime was last synced: requests for unknown seats trigger at most one sync a second. */
  const syncedAt = new Map<number, number>();
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  /** Builds or re-checks one showtime's gate from the database; one at a time per showtime. */
  function sync(showtimeId: number, why: 'not_built' | 'periodic' | 'unknown_seats' | 'requested'): Promise<boolean> {
    const running = syncing.get(showtimeId);
    if (running) return running;
    const task = (async () => {
      const source = await readGateSource(deps.sql, showtimeId);
      if (!source) return false;
      const result = await scripts.sync(String(showtimeId), {
        ...source,
        pendingGraceMs: settings.pendingGraceMs,
        keyTtlMs: settings.keyTtlMs,
      });
      syncedAt.set(showtimeId, Date.now());
      metrics.syncs.inc({ why });
      // A built gate that had to change disagreed with the database.
      if (result.wasBuilt && result.changed > 0) metrics.corrections.inc({ why }, result.changed);
      return true;
    })().finally(() => syncing.delete(showtimeId));
    syncing.set(showtimeId, task);
    return task;
  }

  /**
   * Before the database: claim the seats (sorted, distinct) under the hold id the database
   * hold will carry. Throws the database's own refusal (409 SEATS_UNAVAILABLE, 422
   * SEAT_LIMIT_EXCEEDED) when the gate says no; otherwise says whether a claim must be settled.
   */
  async function admit(input: {
    showtimeId: number;
    customerId: string;
    holdId: string;
    seats: string[];
  }): Promise<GatePass> {
    active.set(input.showtimeId, Date.now());
    const show = String(input.showtimeId);
    let decision;
    try {
      decision = await scripts.claim(show, input.customerId, input.holdId, input.seats);
      if (decision.kind === 'not_built') {
        if (!(await sync(input.showtimeId, 'not_built'))) return skip('not_built');
        decision = await scripts.claim(show, input.customerId, input.holdId, input.seats);
      }
    } catch (error) {
      deps.logger?.warn(
        { err: error, showtimeId: input.showtimeId },
        'seat gate unavailable: the database decides alone',
      );
      return skip('store_down');
    }
    metrics.decisions.inc({ decision: decision.kind });
    switch (decision.kind) {
      case 'claimed':
        return { claimed: true };
      case 'taken':
        throw conflict('SEATS_UNAVAILABLE', 'Some seats are no longer available', { seats: decision.seats });
      case 'over_limit':
        throw unprocessable(
          'SEAT_LIMIT_EXCEEDED',
          `A customer may hold or own at most ${decision.maxPerCustomer} seats of this showtime`,
          {
            limit: decision.maxPerCustomer,
            owned: decision.owned,
            requested: input.seats.length,
          },
        );
      case 'unknown_seats':
        // Not in the hall (the database says 422), or part of the gate lost: look again, at
        // most once a second, so a flood of made-up seat codes cannot turn into a flood of syncs.
        if (Date.now() - (syncedAt.get(input.showtimeId) ?? 0) > 1_000)
          void sync(input.showtimeId, 'unknown_seats').catch(() => {});
        return skip('unknown_seats');
      default:
        return skip('not_built');
    }
  }

  function skip(reason: 'store_down' | 'not_built' | 'unknown_seats'): GatePass {
    metrics.skipped.inc({ reason });
    return { claimed: false };
  }

  /**
   * After the database said no: undo our claim, and when seats were refused, write the
   * database's state of those seats into the gate. Never throws: a claim left behind lapses
   * with its hold time or is dropped by the next check.
   */
  async function refused(input: {
    showtimeId: number;
    holdId: string;
    seats: string[];
    pass: GatePass;
    code: string | undefined;
    refusedSeats: string[];
  }) {
    const show = String(input.showtimeId);
    if (input.pass.claimed) {
      try {
        await scripts.release(show, input.holdId, input.seats);
        metrics.released.inc();
      } catch {
        metrics.releaseFailed.inc();
      }
    }
    if (input.code === 'SEATS_UNAVAILABLE' && input.refusedSeats.length > 0) {
      try {
        const states = await readSeatStates(deps.sql, input.showtimeId, input.refusedSeats);
        const result = await scripts.apply(show, states.map(toOp), { pendingGraceMs: settings.pendingGraceMs });
        metrics.repairs.inc();
        if (result.changed > 0) metrics.corrections.inc({ why: 'refused' }, result.changed);
      } catch {
        // The next check repairs it.
      }
    }
  }

  /** A hold ended by its buyer: its seats are free at the gate at once (the event follows anyway). */
  async function holdEnded(showtimeId: number, holdId: string, seats: string[]) {
    if (seats.length === 0) return;
    try {
      await scripts.apply(
        String(showtimeId),
        seats.map((seat) => ({ op: 'freehold', seat, holdId })),
      );
    } catch {
      // The HoldReleased event or the next check frees them.
    }
  }

  /** A hold the database chose the seats of (best available): held at the gate at once (the event follows anyway). */
  async function holdCreated(
    showtimeId: number,
    hold: { holdId: string; customerId: string; seats: string[]; expiresAtMs: number },
  ) {
    try {
      await scripts.apply(
        String(showtimeId),
        hold.seats.map((seat) => ({
          op: 'held',
          seat,
          holdId: hold.holdId,
          customerId: hold.customerId,
          expiresAtMs: hold.expiresAtMs,
        })),
      );
    } catch {
      // The HoldCreated event or the next check marks them.
    }
  }

  /** Applies booking events' operations for one showtime (gate-events.ts maps events to operations). */
  async function applyOps(showtimeId: number, ops: GateOp[], eventId: string): Promise<void> {
    if (ops.length === 0) return;
    const result = await scripts.apply(String(showtimeId), ops, { eventId, pendingGraceMs: settings.pendingGraceMs });
    metrics.events.inc({ outcome: !result.built ? 'not_built' : result.duplicate ? 'duplicate' : 'applied' });
  }

  /** One pass of the periodic check over the showtimes served lately. */
  async function checkNow(): Promise<number> {
    const now = Date.now();
    let checked = 0;
    for (const [showtimeId, lastMs] of active) {
      if (now - lastMs > settings.activeForMs) {
        active.delete(showtimeId);
        continue;
      }
      try {
        await sync(showtimeId, 'periodic');
        checked++;
      } catch (error) {
        metrics.checkFailed.inc();
        deps.logger?.warn({ err: error, showtimeId }, 'seat gate check failed');
      }
    }
    return checked;
  }

  function schedule() {
    if (stopped) return;
    timer = setTimeout(async () => {
      await checkNow().catch(() => {});
      schedule();
    }, settings.checkEveryMs);
    timer.unref?.();
  }

  return {
    settings,
    scripts,
    admit,
    refused,
    holdEnded,
    holdCreated,
    applyOps,
    sync,
    checkNow,
    /** Marks a showtime as served (the periodic check covers it). */
    touch: (showtimeId: number) => void active.set(showtimeId, Date.now()),
    start() {
      stopped = false;
      if (!timer) schedule();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await Promise.allSettled([...syncing.values()]);
    },
  };
}

function toOp(state: Awaited<ReturnType<typeof readSeatStates>>[number]): GateOp {
  if (state.state === 'S')
    return { op: 'sold', seat: state.seat, bookingId: state.bookingId, customerId: state.customerId };
  if (state.state === 'H')
    return {
      op: 'held',
      seat: state.seat,
      expiresAtMs: state.expiresAtMs,
      holdId: state.holdId,
      customerId: state.customerId,
    };
  return { op: 'free', seat: state.seat };
}

export type SeatGate = ReturnType<typeof createSeatGate>;
