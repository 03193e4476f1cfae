/** SQL of the admission-turn ledger (see migrations/0004_sale_control.sql). */
import type { Db } from '../db/connect';

export interface LiveTurn {
  customerId: string;
  ticket: number;
  expiresAtMs: number;
}

/** Records a granted turn (idempotent); false when the showtime does not exist. */
export async function recordTurn(sql: Db, showtimeId: number, turn: LiveTurn): Promise<boolean> {
  const rows = await sql`
    INSERT INTO admission_turn (showtime_id, customer_id, ticket, expires_at)
    SELECT id, ${turn.customerId}, ${turn.ticket}, to_timestamp(${turn.expiresAtMs}::float8 / 1000)
      FROM showtime WHERE id = ${showtimeId}
    ON CONFLICT (showtime_id, customer_id, ticket) DO UPDATE SET expires_at = EXCLUDED.expires_at
    RETURNING 1`;
  return rows.length === 1;
}

/** Ends the customer's live turns (left the line); `ticket` null ends every one. */
export async function endTurns(
  sql: Db,
  showtimeId: number,
  customerId: string | null,
  grantedBefore: Date | null = null,
): Promise<number> {
  const rows = await sql`
    UPDATE admission_turn SET ended_at = now()
     WHERE showtime_id = ${showtimeId} AND ended_at IS NULL
       AND (${customerId}::text IS NULL OR customer_id = ${customerId})
       AND (${grantedBefore}::timestamptz IS NULL OR created_at <= ${grantedBefore}::timestamptz)
    RETURNING 1`;
  return rows.length;
}

/**
 * Turns still live by the database clock: not ended, not expired, and not followed by a
 * confirmed booking of the same customer (a booking completes the turn).
 */
export async function listLiveTurns(sql: Db, showtimeId: number): Promise<LiveTurn[]> {
  const rows = await sql<{ customer_id: string; ticket: number; expires_at: Date }[]>`
    SELECT t.customer_id, t.ticket, t.expires_at
      FROM admission_turn t
     WHERE t.showtime_id = ${showtimeId} AND t.ended_at IS NULL AND t.expires_at > now()
       AND NOT EXISTS (SELECT 1 FROM booking b
                        WHERE b.showtime_id = t.showtime_id AND b.customer_id = t.customer_id
                          AND b.status = 'CONFIRMED' AND b.created_at >= t.created_at)
     ORDER BY t.ticket`;
  return rows.map((row) => ({
    customerId: row.customer_id,
    ticket: row.ticket,
    expiresAtMs: row.expires_at.getTime(),
  }));
}
