/**
 * The operator audit log: one row per operator change, on any route, written by `insertAudit`
 * and nowhere else (audit-log.test.ts greps the source for other writers). Each row keeps the
 * real before and after of every field the change moved, who made it and how they signed in,
 * from which address, and the room's version, which every audited change moves on (the edge's
 * copy of a sale is stamped with it, and an entry without a new version could not be told
 * from the one before).
 */
import type { Db } from '../db/connect';

/** How the actor proved who they are: the admin token (API), or a console session. */
export type ActorVia = 'token' | 'console';

/** Who made a change, for the audit log. */
export interface Operator {
  /** The operator's name (the console's sign-in name, an X-Operator label), or "admin-token". */
  actor: string;
  actorVia: ActorVia;
  /** The operator's address, as the edge saw it (null: not known). */
  source: string | null;
}

export interface AuditEntry {
  /** The showtime changed; null for what belongs to no showtime (a venue, a hall: see `subject`). */
  showtimeId: number | null;
  /** What changed when it is not a showtime: 'venue:<id>', 'hall:<id>'. */
  subject?: string;
  operator: Operator;
  /** room.update, showtime.update, fare.update, … */
  action: string;
  /** The changed object before (null: it was created) and after; only moved fields are kept. */
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export interface AuditRow {
  id: number;
  showtime_id: number | null;
  subject: string | null;
  actor: string;
  actor_via: string;
  source: string | null;
  action: string;
  before: unknown;
  after: unknown;
  version: number;
  at: Date;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The fields a change moved, each side with its own value. The version is the row's own
 * column, never a field of the change.
 */
export function changedFields(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): { before: Record<string, unknown> | null; after: Record<string, unknown> | null } {
  if (!before || !after) return { before, after };
  const moved = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (key) => key !== 'version' && !same(before[key], after[key]),
  );
  return {
    before: Object.fromEntries(moved.map((key) => [key, before[key] ?? null])),
    after: Object.fromEntries(moved.map((key) => [key, after[key] ?? null])),
  };
}

/**
 * Locks the showtime's room settings row (every showtime has one, from its creation) and
 * answers the version as it stands, so audited changes of one showtime run one at a time and
 * each moves the version on from the one it read. Null: no such showtime.
 * LOCK ORDER: a change that locks the showtime row takes it before this (sale control, the
 * refund policy), as the sale-state trigger does; the showtime row itself is not locked here,
 * since a buyer's last seat takes its seats and then the showtime (sold_out_at), and a fare
 * change holding the showtime while it waits on seats would deadlock with that buyer.
 */
export async function lockForAudit(tx: Db, showtimeId: number): Promise<{ version: number } | null> {
  const [row] = await tx<{ version: number }[]>`
    SELECT version FROM room_settings WHERE showtime_id = ${showtimeId} FOR UPDATE`;
  return row ? { version: Number(row.version) } : null;
}

/**
 * Writes the audit row of a change in the change's own transaction and answers the version
 * it carries: moved on from `versionBefore` (what lockForAudit read) unless the change itself
 * already moved it (a settings merge, the sale-state trigger). `'created'`: the showtime was
 * created by this transaction, and its first version is the one to record.
 */
export async function insertAudit(tx: Db, entry: AuditEntry, versionBefore: number | 'created'): Promise<number> {
  const [bumped] =
    versionBefore === 'created' || entry.showtimeId === null
      ? []
      : await tx<{ version: number }[]>`
          UPDATE room_settings SET version = version + 1, updated_at = now()
           WHERE showtime_id = ${entry.showtimeId} AND version = ${versionBefore}
           RETURNING version`;
  const version =
    entry.showtimeId === null
      ? 0
      : (bumped?.version ??
        (await tx<{ version: number }[]>`SELECT version FROM room_settings WHERE showtime_id = ${entry.showtimeId}`)[0]
          ?.version ??
        0);
  const { before, after } = changedFields(entry.before, entry.after);
  await tx`
    INSERT INTO operator_audit (showtime_id, subject, actor, actor_via, source, action, before, after, version)
    VALUES (${entry.showtimeId}, ${entry.subject ?? null}, ${entry.operator.actor}, ${entry.operator.actorVia}, ${entry.operator.source},
            ${entry.action}, ${before === null ? null : tx.json(before as never)}::jsonb,
            ${after === null ? null : tx.json(after as never)}::jsonb, ${version})`;
  return Number(version);
}

export async function listAudit(sql: Db, showtimeId: number, limit: number): Promise<AuditRow[]> {
  return sql<AuditRow[]>`
    SELECT id, showtime_id, subject, actor, actor_via, source, action, before, after, version, at
      FROM operator_audit WHERE showtime_id = ${showtimeId}
     ORDER BY id DESC LIMIT ${limit}`;
}

/** An audit row as the operator API shows it. */
export function auditEntryView(row: AuditRow) {
  return {
    actor: row.actor,
    actorVia: row.actor_via,
    source: row.source,
    action: row.action,
    showtimeId: String(row.showtime_id),
    before: row.before,
    after: row.after,
    version: Number(row.version),
    atMs: row.at.getTime(),
    at: row.at.toISOString(),
  };
}
