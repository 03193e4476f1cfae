/** SQL of sale control: the room settings row, its version, and the operator audit log. */
import type { Db } from '../db/connect';
import type { OperatorSettings } from '../../../queue/src/room-update';

export interface RoomSettingsRow {
  showtime_id: number;
  settings: OperatorSettings;
  version: number;
}

export interface AuditRow {
  id: number;
  showtime_id: number;
  actor: string;
  source: string | null;
  action: string;
  before: unknown;
  after: unknown;
  version: number;
  at: Date;
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

/** Merges the given settings into the stored ones and moves the version on. */
export async function mergeRoomSettings(tx: Db, showtimeId: number, settings: OperatorSettings): Promise<void> {
  await tx`
    UPDATE room_settings
       SET settings = settings || ${tx.json(settings as Record<string, number>)}::jsonb,
           version = version + 1, updated_at = now()
     WHERE showtime_id = ${showtimeId}`;
}

export async function insertAudit(
  tx: Db,
  entry: {
    showtimeId: number;
    actor: string;
    source: string | null;
    action: string;
    before: unknown;
    after: unknown;
    version: number;
  },
): Promise<void> {
  await tx`
    INSERT INTO operator_audit (showtime_id, actor, source, action, before, after, version)
    VALUES (${entry.showtimeId}, ${entry.actor}, ${entry.source}, ${entry.action},
            ${tx.json(entry.before as never)}::jsonb, ${tx.json(entry.after as never)}::jsonb, ${entry.version})`;
}

export async function listAudit(sql: Db, showtimeId: number, limit: number): Promise<AuditRow[]> {
  return sql<AuditRow[]>`
    SELECT id, showtime_id, actor, source, action, before, after, version, at
      FROM operator_audit WHERE showtime_id = ${showtimeId}
     ORDER BY id DESC LIMIT ${limit}`;
}

export async function listRoomSettings(sql: Db, showtimeIds: number[]): Promise<RoomSettingsRow[]> {
  if (showtimeIds.length === 0) return [];
  return sql<RoomSettingsRow[]>`
    SELECT showtime_id, settings, version FROM room_settings WHERE showtime_id = ANY (${showtimeIds}::bigint[])`;
}
