/**
 * Rooms in Redis are copies of what PostgreSQL holds (the core's sale control), stamped with
 * its version. These functions bring copies up to date from a list of controls, whoever
 * fetched it (the edge through its core client, the ticker over HTTP); the engine ignores a
 * copy older than the room's, so several writers may race safely.
 */
import type { RestoredTurn, RoomEngine } from './room-engine';
import type { RoomSettingsPatch } from './settings';

/** What the core's sale control answers for one showtime (GET /admin/rooms is a list of these). */
export interface SaleControl {
  showtimeId: number;
  version: number;
  saleState: string;
  saleSetting: string;
  opensAt: string;
  startsAt: string;
  settings: Record<string, number>;
  /** The complete settings the room must have, engine units, state and version included. */
  room: RoomSettingsPatch & { version: number };
  /** The opening draw's seed kept with the showtime in PostgreSQL (absent from older cores: the room draws its own). */
  draw?: { seed: string; commitment: string };
}

export interface SyncLogger {
  warn(object: object, message?: string): void;
}

/** Copies one control into Redis; returns false when the room refused it (logged). */
export async function applySaleControl(
  engine: RoomEngine,
  control: SaleControl,
  logger?: SyncLogger,
): Promise<boolean> {
  const result = await engine.configure(
    String(control.showtimeId),
    control.room,
    control.draw ? { seed: control.draw.seed } : {},
  );
  if (result.ok) return true;
  // The database says "scheduled" for a room Redis has already opened (the opening time was
  // moved after the fact): the line that formed stays; say so and carry on.
  logger?.warn(
    { showtimeId: control.showtimeId, version: control.version, refusal: result.code },
    'room copy not updated',
  );
  return false;
}

/** A room Redis lost, from the core's answer for it: its settings, then the turns still live. */
export async function restoreRoom(
  engine: RoomEngine,
  control: SaleControl & { turns?: RestoredTurn[] },
  logger?: SyncLogger,
): Promise<void> {
  await applySaleControl(engine, control, logger);
  // They keep working until they expire and count against the capacity: the cap holds after a loss.
  if (control.turns && control.turns.length > 0) await engine.restoreTurns(String(control.showtimeId), control.turns);
}

/**
 * Restores rooms Redis lost (unless their sale is over: a join restores those on demand, to
 * say so) and brings older copies up to date. One Redis read per room. A lost room is
 * restored by `restoreLost` (settings and the turns it had granted); without one, from the
 * control alone. Returns rooms written.
 */
export async function syncRooms(
  engine: RoomEngine,
  controls: SaleControl[],
  logger?: SyncLogger,
  restoreLost?: (showtimeId: string) => Promise<void>,
): Promise<number> {
  let written = 0;
  for (const control of controls) {
    const showtimeId = String(control.showtimeId);
    const held = await engine.getSettings(showtimeId);
    const missing = !held.ok && held.code === 'unknown_room';
    if (missing && control.room.state === 'closed') continue;
    if (missing && restoreLost) {
      await restoreLost(showtimeId);
      written++;
    } else if (missing || (held.ok && held.settings.version < control.version)) {
      if (await applySaleControl(engine, control, logger)) written++;
    }
  }
  return written;
}

/** The core's sale control over HTTP (the standalone ticker's way in). */
export function coreSaleControl(options: {
  coreUrl: string;
  adminToken: string;
  serviceToken?: string | null;
  timeoutMs?: number;
}) {
  const headers: Record<string, string> = { authorization: `Bearer ${options.adminToken}`, accept: 'application/json' };
  if (options.serviceToken) headers['x-service-token'] = options.serviceToken;
  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${options.coreUrl.replace(/\/+$/, '')}${path}`, {
      headers,
      signal: AbortSignal.timeout(options.timeoutMs ?? 5_000),
    });
    if (!response.ok) throw new Error(`core answered ${response.status} for ${path}`);
    return (await response.json()) as T;
  };
  return {
    list: () => get<SaleControl[]>('/admin/rooms'),
    /** One room with the turns still live, for a room Redis lost. */
    async restore(engine: RoomEngine, showtimeId: string, logger?: SyncLogger): Promise<void> {
      await restoreRoom(
        engine,
        await get<SaleControl & { turns?: RestoredTurn[] }>(`/admin/showtimes/${showtimeId}/room`),
        logger,
      );
    },
  };
}
