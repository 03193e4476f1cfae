/** SQL of sale control: the room settings row and its version (the audit log: audit/audit-log.ts). */
import type { Db } from '../db/connect';
import type { OperatorSettings } from '../../../queue/src/room-update';

export interface RoomSettingsRow {
  showtime_id: number;
  settings: OperatorSettings;
  version: number;
}

/** Locks the showtime row for the rest of the transaction: changes of one sale run one at a time. */
export async function lockShowtime(tx: Db, showtimeId: number): Promise<boolean> {
  const rows = await tx`SELECT id FROM showtime WHERE id = ${showtimeId} FOR UPDATE`;
  return rows.length === 1;
}

export async function findRoomSettings(sql: Db, showtimeId: number): Promise<RoomSettingsRow | null> {
  const [row] = await sql<RoomSettingsRow[]>`
    SELECT showtime_id, settings, version FROM room_settings WHERE showtime_id = ${showtimeId}`;
  return row ?? null;
}

/** Merges the given settings into the stored ones (insertAudit moves the version on). */
export async function mergeRoomSettings(tx: Db, showtimeId: number, settings: OperatorSettings): Promise<void> {
  await tx`
    UPDATE room_settings
       SET settings = settings || ${tx.json(settings as Record<string, number>)}::jsonb, updated_at = now()
     WHERE showtime_id = ${showtimeId}`;
}

export async function listRoomSettings(sql: Db, showtimeIds: number[]): Promise<RoomSettingsRow[]> {
  if (showtimeIds.length === 0) return [];
  return sql<RoomSettingsRow[]>`
    SELECT showtime_id, settings, version FROM room_settings WHERE showtime_id = ANY (${showtimeIds}::bigint[])`;
}
