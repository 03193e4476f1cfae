import type { Db } from '../db/connect';

/** SQL only: one function per statement. Rules and error mapping live in hold-service.ts. */

export interface HoldRow {
  id: string;
  showtime_id: number;
  customer_id: string;
  seat_codes: string[];
  status: 'ACTIVE' | 'CANCELLED' | 'EXPIRED' | 'CONFIRMED';
  live: boolean;
  /** Milliseconds until expiry by the database clock (negative once lapsed). */
  remaining_ms: number;
  expires_at: Date;
  created_at: Date;
  booking_id: string | null;
  /** General-admission holds: the class and the number of places (no seats). */
  fare_class: string | null;
  quantity: number | null;
}

export interface SeatRow {
  seat_code: string;
  row_label: string;
  row_number: number;
  column_number: number;
  label: string;
  seat_type: 'standard' | 'couple' | 'accessible';
  fare_class: string;
  status: 'AVAILABLE' | 'HELD' | 'BOOKED';
}

/** The arbiter: see migrations/functions/hold_seats.sql (guards, ordered row locks, one conditional UPDATE). */
export async function holdSeats(
  sql: Db,
  args: { showtimeId: number; customerId: string; seatCodes: string[]; holdId: string },
): Promise<{ hold_id: string; expires_at: Date; seat_codes: string[] }> {
  const [row] = await sql<{ hold_id: string; expires_at: Date; seat_codes: string[] }[]>`
    SELECT hold_id, expires_at, seat_codes
      FROM hold_seats(${args.showtimeId}::bigint, ${args.customerId}::text,
                      ${sql.array(args.seatCodes)}::text[], ${args.holdId}::uuid)`;
  return row!;
}

/**
 * Best available: the database picks the best `count` seats (adjacent in one row when
 * `together`) and holds them in the same statement (migrations/functions/hold_best_seats.sql).
 */
export async function holdBestSeats(
  sql: Db,
  args: {
    showtimeId: number;
    customerId: string;
    count: number;
    together: boolean;
    accessible: boolean;
    fareClass: string | null;
    holdId: string;
  },
): Promise<{ hold_id: string; expires_at: Date; seat_codes: string[] }> {
  const [row] = await sql<{ hold_id: string; expires_at: Date; seat_codes: string[] }[]>`
    SELECT hold_id, expires_at, seat_codes
      FROM hold_best_seats(${args.showtimeId}::bigint, ${args.customerId}::text, ${args.count}::int,
                           ${args.together}::boolean, ${args.accessible}::boolean, ${args.fareClass}::text, ${args.holdId}::uuid)`;
  return row!;
}

/** Every seat of the showtime; a lapsed hold reads as AVAILABLE, before any sweeper ran. */
export async function listShowSeats(sql: Db, showtimeId: number): Promise<SeatRow[]> {
  return sql<SeatRow[]>`
    SELECT h.seat_code, h.row_label, h.row_number, h.column_number, h.label, h.seat_type, s.fare_class,
           CASE WHEN s.status = 'HELD' AND s.hold_expires_at <= now() THEN 'AVAILABLE'
                ELSE s.status END AS status
      FROM show_seat s
      JOIN showtime t ON t.id = s.showtime_id
      JOIN hall_seat h ON h.hall_id = t.hall_id AND h.seat_code = s.seat_code
     WHERE s.showtime_id = ${showtimeId}
     ORDER BY h.row_number, h.column_number`;
}

/**
 * A hold with `live` decided by the database clock; booking id once it was confirmed. Holds are
 * keyed by (showtime, id) (seat_hold is partitioned by showtime): one partition is read.
 */
/** The showtime's couple seats with their places, for pairing (the hall does not change once on sale). */
export async function listCoupleSeats(sql: Db, showtimeId: number) {
  return sql<{ code: string; row: number; column: number }[]>`
    SELECT hs.seat_code AS code, hs.row_number AS row, hs.column_number AS column
      FROM showtime s
      JOIN hall_seat hs ON hs.hall_id = s.hall_id
     WHERE s.id = ${showtimeId} AND hs.seat_type = 'couple'`;
}

export async function findHold(sql: Db, holdId: string, showtimeId: number): Promise<HoldRow | null> {
  const [row] = await sql<HoldRow[]>`
    SELECT h.id, h.showtime_id, h.customer_id, h.seat_codes, h.status,
           (h.status = 'ACTIVE' AND h.expires_at > now()) AS live,
           (extract(epoch FROM (h.expires_at - now())) * 1000)::float8 AS remaining_ms,
           h.expires_at, h.created_at, h.fare_class, h.quantity,
           coalesce((SELECT s.booking_id FROM show_seat s
                      WHERE s.showtime_id = h.showtime_id AND s.hold_id = h.id AND s.status = 'BOOKED'
                      LIMIT 1),
                    -- general admission has no seats to carry the booking id
                    (SELECT b.id FROM booking b WHERE h.fare_class IS NOT NULL AND b.hold_id = h.id AND b.showtime_id = h.showtime_id AND b.status = 'CONFIRMED'
                      LIMIT 1)) AS booking_id
      FROM seat_hold h
     WHERE h.showtime_id = ${showtimeId} AND h.id = ${holdId}::uuid`;
  return row ?? null;
}

/**
 * Ends an ACTIVE hold of this customer and frees its seats in one statement. Lock order, here
 * and in every statement that locks several seats: the owning row first (hold or booking),
 * then the show_seat rows in (showtime_id, seat_code) order, as hold_seats does. The seat_hold row
 * is the hold's lock: a concurrent confirmation that got there first leaves 0 rows here.
 * Seats are freed only where they still carry this hold id, so a seat someone else took after
 * this hold lapsed is never touched. The trigger logs the transition; the outbox announces it.
 */
export async function endHold(
  sql: Db,
  args: { holdId: string; customerId: string; showtimeId: number; cause: string },
): Promise<{ ended_as: 'CANCELLED' | 'EXPIRED'; seats_freed: number; seats: string[] } | null> {
  const [row] = await sql<{ ended_as: 'CANCELLED' | 'EXPIRED'; seats_freed: number; seats: string[] }[]>`
    WITH ended AS (
      UPDATE seat_hold
         SET status = CASE WHEN expires_at <= now() THEN 'EXPIRED' ELSE 'CANCELLED' END,
             status_cause = ${args.cause}, ended_at = now()
       WHERE id = ${args.holdId}::uuid AND customer_id = ${args.customerId}
         AND showtime_id = ${args.showtimeId} AND status = 'ACTIVE'
      RETURNING id, showtime_id, customer_id, status, seat_codes
    ), locked AS (
      -- LOCK: the seats in seat-code order, the order hold_seats takes them in, so a cancel
      -- racing a new hold on the same seats waits instead of deadlocking. Keys come from the
      -- parameters and a one-row subquery, never a join with the CTE: a generic plan then
      -- looks the seats up by primary key in one pruned partition (a join let the planner
      -- scan every held seat of the partition).
      SELECT s.seat_code FROM show_seat s
       WHERE s.showtime_id = ${args.showtimeId}
         AND s.seat_code = ANY ((SELECT e.seat_codes FROM ended e)::text[])
       ORDER BY s.seat_code
         FOR UPDATE
    ), freed AS (
      UPDATE show_seat s
         SET status = 'AVAILABLE', hold_id = NULL, customer_id = NULL, hold_expires_at = NULL
       WHERE s.showtime_id = ${args.showtimeId}
         AND s.seat_code = ANY ((SELECT array_agg(l.seat_code) FROM locked l)::text[])
         AND s.hold_id = ${args.holdId}::uuid AND s.status = 'HELD'
      RETURNING s.seat_code
    ), announced AS (
      INSERT INTO outbox (type, showtime_id, payload)
      SELECT 'HoldReleased', e.showtime_id,
             jsonb_build_object('holdId', e.id, 'customerId', e.customer_id, 'reason', lower(e.status),
                                'seats', (SELECT coalesce(jsonb_agg(seat_code ORDER BY seat_code), '[]') FROM freed))
        FROM ended e
    )
    SELECT e.status AS ended_as, (SELECT count(*) FROM freed)::int AS seats_freed,
           (SELECT coalesce(array_agg(seat_code::text ORDER BY seat_code), '{}') FROM freed) AS seats
      FROM ended e`;
  return row ?? null;
}
