/**
 * Rooms in Redis are copies of what PostgreSQL holds (the core's sale control), stamped with
 * its version. These functions bring copies up to date from a list of controls, whoever
 * fetched it (the edge through its core client, the ticker over HTTP); the engine ignores a
 * copy older than the room's, so several writers may race safely.
 */
import type { RoomEngine } from './room-engine';
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
}

export interface SyncLogger {
  warn(object: object, message?: string): void;
}

/** Copies one control into Redis; returns false when the room refused it (logged). */
export async function applySaleControl(engine: RoomEngine, control: SaleControl, logger?: SyncLogger): Promise<boolean> {
  const result = await engine.configure(String(control.showtimeId), control.room);
  if (result.ok) return true;
  // The database says "scheduled" for a room Redis has already opened (the opening time was
  // moved after the fact): the line that formed stays; say so and carry on.
  logger?.warn({ showtimeId: control.showtimeId, version: control.version, refusal: result.code }, 'room copy not updated');
  return false;
}

/**
 * Restores rooms Redis lost (unless their sale is over: a join restores those on demand, to
 * say so) and brings older copies up to date. One Redis read per room. Returns rooms written.
 */
export async function syncRooms(engine: RoomEngine, controls: SaleControl[], logger?: SyncLogger): Promise<number> {
  let written = 0;
  for (const control of controls) {
    const held = await engine.getSettings(String(control.showtimeId));
    const missing = !held.ok && held.code === 'unknown_room';
    if (missing && control.room.state === 'closed') continue;
    if (missing || (held.ok && held.settings.version < control.version)) {
      if (await applySaleControl(engine, control, logger)) written++;
    }
  }
  return written;
}

/** Fetches the room list from the core over HTTP (the standalone ticker's way in). */
export function coreRoomList(options: { coreUrl: string; adminToken: string; serviceToken?: string | null; timeoutMs?: number }) {
  return async function fetchRoomList(): Promise<SaleControl[]> {
    const headers: Record<string, string> = { authorization: `Bearer ${options.adminToken}`, accept: 'application/json' };
    if (options.serviceToken) headers['x-service-token'] = options.serviceToken;
    const response = await fetch(`${options.coreUrl.replace(/\/+$/, '')}/admin/rooms`, { headers, signal: AbortSignal.timeout(options.timeoutMs ?? 5_000) });
    if (!response.ok) throw new Error(`core answered ${response.status} for the room list`);
    return (await response.json()) as SaleControl[];
  };
}
