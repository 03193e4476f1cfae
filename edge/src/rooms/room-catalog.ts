/**
 * Rooms exist with their showtimes: PostgreSQL (the core's sale control) holds each room's
 * settings, sale state and version, and Redis a copy stamped with that version. A copy that
 * is missing (Redis restarted empty, keys flushed) or older than the database's is restored
 * from the core, never from defaults; until then the room admits nobody, because admission
 * only happens inside a room's own scripts.
 */
import { AppError, notFound, unavailable } from '../../../lib/errors';
import type { RestoredTurn, RoomEngine } from '../../../queue/src/index';
import { applySaleControl, restoreRoom, syncRooms, type SaleControl } from '../../../queue/src/room-sync';
import type { CoreClient } from '../core-client';

export type { SaleControl };

export interface RoomCatalogLogger {
  warn(object: object, message?: string): void;
}

/** Leaves the core missed, kept to tell it again (bounded: the oldest go first, their turns expire anyway). */
const MAX_PENDING_TURN_ENDS = 100_000;

export function createRoomCatalog(options: {
  core: CoreClient;
  engine: RoomEngine;
  logger?: RoomCatalogLogger;
  now?: () => number;
}) {
  const { core, engine } = options;
  const now = options.now ?? Date.now;
  const restoring = new Map<string, Promise<void>>();
  // A buyer who leaves while the core is away is gone from Redis at once; the ledger hears of
  // it later. Left stale, such a turn would come back with a room Redis lost, and the ledger
  // would count more live turns than the room's capacity. Keyed by showtime and customer: the
  // latest leave is the one that counts.
  const pendingTurnEnds = new Map<string, { showtimeId: string; customerId: string; leftAtMs: number }>();

  async function tellTurnEnded(showtimeId: string, customerId: string, leftAtMs: number): Promise<void> {
    const { status } = await core.adminJson('POST', `/admin/showtimes/${showtimeId}/turns/end`, {
      body: { customerId, grantedBefore: new Date(leftAtMs).toISOString() },
    });
    // 404: the showtime is gone, and its turns with it.
    if (status !== 200 && status !== 404)
      throw new AppError('CORE_UNAVAILABLE', `core answered ${status} for a turn's end`);
  }

  /** Tells the core of the leaves it missed; the ones it still misses stay for the next pass. */
  async function retryTurnEnds(): Promise<void> {
    for (const [key, pending] of [...pendingTurnEnds]) {
      try {
        await tellTurnEnded(pending.showtimeId, pending.customerId, pending.leftAtMs);
        if (pendingTurnEnds.get(key) === pending) pendingTurnEnds.delete(key);
      } catch {
        return; // the core is still away: the rest wait for the next pass
      }
    }
  }

  const apply = async (control: SaleControl): Promise<void> => {
    await applySaleControl(engine, control, options.logger);
  };

  async function fetchControl(showtimeId: string): Promise<SaleControl & { turns?: RestoredTurn[] }> {
    const { status, body } = await core.adminJson<SaleControl & { turns?: RestoredTurn[] }>(
      'GET',
      `/admin/showtimes/${showtimeId}/room`,
    );
    if (status === 404) throw notFound('SHOWTIME_NOT_FOUND', 'No such showtime');
    if (status !== 200 || !body)
      throw unavailable('CORE_UNAVAILABLE', 'The seat service is not answering; try again shortly', 2);
    return body;
  }

  async function restore(showtimeId: string): Promise<void> {
    await restoreRoom(engine, await fetchControl(showtimeId), options.logger);
  }

  /** Brings one room in Redis up to the database's copy (single-flight per showtime). */
  function ensureRoom(showtimeId: string): Promise<void> {
    const running = restoring.get(showtimeId);
    if (running) return running;
    const started = restore(showtimeId).finally(() => restoring.delete(showtimeId));
    restoring.set(showtimeId, started);
    return started;
  }

  return {
    ensureRoom,

    /** Applies a control the core has just answered with (after an operator's change). */
    apply,

    /**
     * Writes a granted turn into the core's ledger before the buyer hears "admitted", so a
     * Redis that loses the room can be given it back. No ledger, no admission: 503.
     */
    async recordTurn(showtimeId: string, turn: RestoredTurn): Promise<void> {
      const { status } = await core.adminJson('POST', `/admin/showtimes/${showtimeId}/turns`, { body: turn });
      if (status === 404) throw notFound('SHOWTIME_NOT_FOUND', 'No such showtime');
      if (status !== 204)
        throw unavailable(
          'CORE_UNAVAILABLE',
          'Admissions are paused while the seat service is unavailable; your place is kept',
          2,
        );
    },

    /**
     * The buyer left: their turn is over in the ledger too. Leaving works while the core is
     * away: a leave it misses is kept and told again on every sync pass (only turns granted
     * before the leave end, so a turn the buyer got since is kept). Throws when not told now.
     */
    async endTurns(showtimeId: string, customerId: string): Promise<void> {
      const leftAtMs = now();
      const key = `${showtimeId}/${customerId}`;
      try {
        await tellTurnEnded(showtimeId, customerId, leftAtMs);
        pendingTurnEnds.delete(key);
      } catch (error) {
        pendingTurnEnds.delete(key);
        if (pendingTurnEnds.size >= MAX_PENDING_TURN_ENDS)
          pendingTurnEnds.delete(pendingTurnEnds.keys().next().value as string);
        pendingTurnEnds.set(key, { showtimeId, customerId, leftAtMs });
        throw error;
      }
    },

    /** Leaves the core has not heard of yet. */
    pendingTurnEnds: () => pendingTurnEnds.size,

    /**
     * One pass over every current showtime (after telling the core of leaves it missed): rooms Redis lost are restored with their turns
     * (unless their sale is over: a join restores those on demand, to say so), older copies
     * are brought up to date. Returns how many rooms it wrote.
     */
    async syncAll(): Promise<number> {
      // First the leaves the core missed, so a room restored below does not bring their turns back.
      await retryTurnEnds();
      const { status, body } = await core.adminJson<SaleControl[]>('GET', '/admin/rooms');
      if (status !== 200 || !Array.isArray(body))
        throw new AppError('CORE_UNAVAILABLE', `core answered ${status} for the room list`);
      return syncRooms(engine, body, options.logger, ensureRoom);
    },
  };
}

export type RoomCatalog = ReturnType<typeof createRoomCatalog>;
