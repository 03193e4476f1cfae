import type { Db } from '../db/connect';
import type { GateSeatState } from '../../../queue/src/index';

/** SQL only: what the seat gate is built and repaired from. Rules live in seat-gate.ts. */

interface SeatStateRow {
  seat_code: string;
  state: 'A' | 'H' | 'S';
  hold_id: string | null;
  customer_id: string | null;
  booking_id: string | null;
  expires_ms: string | null;
}

/** A lapsed hold reads as available, by the database clock, as hold_seats treats it. */
function toGateSeat(row: SeatStateRow): GateSeatState {
  if (row.state === 'S')
    return { seat: row.seat_code, state: 'S', bookingId: row.booking_id ?? '', customerId: row.customer_id ?? '' };
  if (row.state === 'H') {
    return {
      seat: row.seat_code,
      state: 'H',
      expiresAtMs: Number(row.expires_ms),
      holdId: row.hold_id ?? '',
      customerId: row.customer_id ?? '',
    };
  }
  return { seat: row.seat_code, state: 'A' };
}

/** The showtime's limit and hold time with every seat's state, or null for an unknown showtime. */
export async function readGateSource(
  sql: Db,
  showtimeId: number,
): Promise<{ maxPerCustomer: number; holdTtlMs: number; seats: GateSeatState[] } | null> {
  const [show] = await sql<{ max_seats_per_customer: number; hold_ttl_ms: number }[]>`
    SELECT max_seats_per_customer, hold_ttl_ms FROM showtime WHERE id = ${showtimeId}`;
  if (!show) return null;
  const rows = await readSeatStates(sql, showtimeId, null);
  return { maxPerCustomer: show.max_seats_per_customer, holdTtlMs: show.hold_ttl_ms, seats: rows };
}

/** The database's state of some seats (all when `seats` is null). */
export async function readSeatStates(sql: Db, showtimeId: number, seats: string[] | null): Promise<GateSeatState[]> {
  const rows = await sql<SeatStateRow[]>`
    SELECT seat_code,
           CASE WHEN status = 'BOOKED' THEN 'S'
                WHEN status = 'HELD' AND hold_expires_at > now() THEN 'H'
                ELSE 'A' END AS state,
           hold_id::text AS hold_id, customer_id, booking_id::text AS booking_id,
           (extract(epoch FROM hold_expires_at) * 1000)::bigint::text AS expires_ms
      FROM show_seat
     WHERE showtime_id = ${showtimeId}
       ${seats === null ? sql`` : sql`AND seat_code = ANY (${sql.array(seats)}::text[])`}`;
  return rows.map(toGateSeat);
}
