import type { Sql } from 'postgres';

/**
 * Sweeper: lapsed holds back to AVAILABLE, with HoldReleased/SeatsReleased events. This is the
 * seat map's tidiness and the room's early release, never correctness: the hold UPDATE already
 * treats a lapsed hold as free. SKIP LOCKED lets several instances sweep at once without
 * waiting on each other or on a hold being confirmed right now.
 */
export async function sweepExpiredHolds(sql: Sql, batchSize = 500): Promise<number> {
  const [row] = await sql<{ expired: number }[]>`
    WITH lapsed AS (
      -- ended_at IS NULL says nothing status does not (a CHECK ties them); it is what lets
      -- this query, and no other, use seat_hold_lapsing_idx (migration 0019).
      SELECT showtime_id, id FROM seat_hold
       WHERE status = 'ACTIVE' AND ended_at IS NULL AND expires_at <= now()
       ORDER BY expires_at
       LIMIT ${batchSize}
         FOR UPDATE SKIP LOCKED
    ), ended AS (
      UPDATE seat_hold h SET status = 'EXPIRED', status_cause = 'hold time ran out', ended_at = now()
        FROM lapsed l WHERE h.showtime_id = l.showtime_id AND h.id = l.id
      RETURNING h.id, h.showtime_id, h.customer_id, h.seat_codes
    ), locked AS (
      -- LOCK: every seat of the batch in (showtime, seat code) order, the order hold_seats
      -- takes them in, so a sweep never deadlocks with a buyer holding a lapsed seat.
      SELECT s.showtime_id, s.seat_code, e.id AS hold_id
        FROM show_seat s JOIN ended e ON s.showtime_id = e.showtime_id AND s.seat_code = ANY (e.seat_codes)
       ORDER BY s.showtime_id, s.seat_code
         FOR UPDATE OF s
    ), freed AS (
      -- Only seats still carrying this hold: one retaken by another buyer is left alone.
      UPDATE show_seat s SET status = 'AVAILABLE', hold_id = NULL, customer_id = NULL, hold_expires_at = NULL
        FROM locked l
       WHERE s.showtime_id = l.showtime_id AND s.seat_code = l.seat_code
         AND s.hold_id = l.hold_id AND s.status = 'HELD'
      -- RETURNING shows the row after the update (hold_id NULL): take the id from the lock.
      RETURNING l.hold_id, s.seat_code
    ), announced AS (
      INSERT INTO outbox (type, showtime_id, payload)
      SELECT 'HoldReleased', e.showtime_id,
             jsonb_build_object('holdId', e.id, 'customerId', e.customer_id, 'reason', 'expired',
                                'seats', coalesce((SELECT jsonb_agg(f.seat_code ORDER BY f.seat_code) FROM freed f WHERE f.hold_id = e.id), '[]'))
        FROM ended e
    )
    SELECT count(*)::int AS expired FROM ended`;
  return row!.expired;
}

/** Idempotency records are kept 24 hours, then removed. */
export async function purgeExpiredIdempotencyKeys(sql: Sql, batchSize = 1000): Promise<number> {
  const rows = await sql`
    DELETE FROM idempotency_key WHERE ctid IN (
      SELECT ctid FROM idempotency_key WHERE expires_at <= now() LIMIT ${batchSize})
    RETURNING 1`;
  return rows.length;
}

/**
 * Announces ShowtimeSoldOut for showtimes whose last seat got booked by bookings that committed
 * together (each saw the other's seat still HELD, so neither announced it).
 */
export async function announceSoldOutShowtimes(sql: Sql): Promise<number> {
  const rows = await sql`
    WITH sold_out AS (
      UPDATE showtime t SET sold_out_at = now()
       WHERE t.sold_out_at IS NULL AND t.starts_at > now()
         AND EXISTS (SELECT 1 FROM show_seat s WHERE s.showtime_id = t.id)
         AND NOT EXISTS (SELECT 1 FROM show_seat s WHERE s.showtime_id = t.id AND s.status <> 'BOOKED')
         -- general-admission places still unsold keep the showtime on sale
         AND NOT EXISTS (SELECT 1 FROM fare_inventory f WHERE f.showtime_id = t.id AND NOT f.seated AND f.sold < f.capacity + f.overbook_limit)
      RETURNING t.id
    )
    INSERT INTO outbox (type, showtime_id, payload) SELECT 'ShowtimeSoldOut', id, '{}'::jsonb FROM sold_out
    RETURNING 1`;
  return rows.length;
}

/** Published outbox rows are kept a day for inspection, then removed. */
export async function purgePublishedOutbox(sql: Sql, retention = '1 day', batchSize = 5000): Promise<number> {
  const rows = await sql`
    DELETE FROM outbox WHERE id IN (
      SELECT id FROM outbox WHERE published_at < now() - ${retention}::interval ORDER BY id LIMIT ${batchSize})
    RETURNING 1`;
  return rows.length;
}
