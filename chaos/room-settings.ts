/**
 * The room's operator settings before and after a fault, as the settings check compares them
 * (chaos/checks/room.ts). The other checks live in chaos/checks/.
 */
import type { Sql } from 'postgres';

/** The operator's settings as the edge's admin API shows them (the fields an operator sets). */
export type RoomSettings = Record<string, unknown>;

/**
 * Settings that changed without an operator. A room whose every seat was sold during the run
 * (`soldOut`: the database says so) is told `sold_out` by the sale itself, not by a fault.
 */
export function settingsDifferences(
  before: RoomSettings | null,
  after: RoomSettings | null,
  { soldOut = false } = {},
): string[] {
  if (!before || !after)
    return [before ? 'room settings unreadable after the fault' : 'room settings unreadable before the fault'];
  const fields = ['capacity', 'admitPerMinute', 'sessionTtlSeconds', 'state', 'powDifficulty'];
  const endedBySale = (field: string) => field === 'state' && soldOut && after.state === 'sold_out';
  return fields
    .filter(
      (field) =>
        field in before && JSON.stringify(before[field]) !== JSON.stringify(after[field]) && !endedBySale(field),
    )
    .map((field) => `${field}: ${JSON.stringify(before[field])} → ${JSON.stringify(after[field])}`);
}

/** Whether every seat of the showtime is booked (the core marks the moment on the showtime). */
export async function showtimeSoldOut(sql: Sql, showtimeId: number): Promise<boolean> {
  const [row] = await sql<
    { soldOut: boolean }[]
  >`SELECT sold_out_at IS NOT NULL AS "soldOut" FROM showtime WHERE id = ${showtimeId}`;
  return row?.soldOut ?? false;
}

/** Durable room settings, when the schema has them (a `room_settings` table); null otherwise. */
export async function durableRoomSettings(sql: Sql, showtimeId: number): Promise<Record<string, unknown> | null> {
  const [exists] = await sql<{ present: boolean }[]>`SELECT to_regclass('room_settings') IS NOT NULL AS present`;
  if (!exists?.present) return null;
  // The operator's values and their version; updated_at alone may move when a copy is restored.
  const [row] = await sql<
    Record<string, unknown>[]
  >`SELECT settings, version FROM room_settings WHERE showtime_id = ${showtimeId}`;
  return row ?? null;
}
