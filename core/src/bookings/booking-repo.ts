import type { Db } from '../db/connect';

/**
 * SQL only for bookings: reading them, the buyer's cancellation (cancel_booking) and its quote
 * (booking_refund_quote), a booking's history and the showtime's refund policy. Both functions
 * live in migrations/functions/; rules and views live in booking-routes.ts and booking-list.ts.
 */

export interface BookingRow {
  id: string;
  hold_id: string;
  payment_id: string;
  showtime_id: number;
  customer_id: string;
  seat_codes: string[];
  amount_cents: number;
  currency: string;
  status: string;
  refund_cents: number | null;
  status_cause: string;
  created_at: Date;
  payment_status: string;
}

/** One booking with its payment's status, or null. */
export async function findBooking(sql: Db, bookingId: string): Promise<BookingRow | null> {
  const [row] = await sql<BookingRow[]>`
    SELECT b.*, p.status AS payment_status FROM booking b JOIN payment p ON p.id = b.payment_id WHERE b.id = ${bookingId}::uuid`;
  return row ?? null;
}

/** The payment a booking was paid with (null for no such booking), read before locking it. */
export async function bookingPaymentId(sql: Db, bookingId: string): Promise<string | null> {
  const [row] = await sql<{ payment_id: string }[]>`SELECT payment_id FROM booking WHERE id = ${bookingId}::uuid`;
  return row?.payment_id ?? null;
}

/** What cancelling gives back now, by the database clock and the showtime's policy. */
export async function refundQuote(sql: Db, bookingId: string) {
  const [row] = await sql<{ percent: number; refund_cents: number; starts_at: Date; started: boolean }[]>`
    SELECT percent, refund_cents, starts_at, started FROM booking_refund_quote(${bookingId}::uuid)`;
  return row!;
}

/** The buyer's cancel in one round trip (cancel_booking: refusals are WR-coded SQL errors). */
export async function cancelBooking(sql: Db, args: { bookingId: string; customerId: string; showtimeId: number }) {
  const [row] = await sql<{ refund_cents: number; percent: number; repeated: boolean }[]>`
    SELECT refund_cents, percent, repeated
      FROM cancel_booking(${args.bookingId}::uuid, ${args.customerId}::text, ${args.showtimeId}::bigint)`;
  return row!;
}

/** Every state change of the booking, its hold and its payment, oldest first. */
export async function bookingHistory(sql: Db, booking: Pick<BookingRow, 'id' | 'hold_id' | 'payment_id'>) {
  return sql`
    SELECT entity_type AS "entityType", entity_id AS "entityId", from_state AS "from", to_state AS "to", cause, at
      FROM state_transition
     WHERE (entity_type = 'booking' AND entity_id = ${booking.id}) OR (entity_type = 'hold' AND entity_id = ${booking.hold_id})
        OR (entity_type = 'payment' AND entity_id = ${booking.payment_id})
     ORDER BY at, id`;
}

/** One of a customer's bookings, with its showtime and what cancelling would give back now. */
export interface ListedBookingRow {
  id: string;
  showtime_id: number;
  title: string;
  starts_at: Date;
  status: string;
  seat_codes: string[];
  fare_class: string | null;
  quantity: number | null;
  amount_cents: number;
  currency: string;
  refund_cents: number | null;
  created_at: Date;
  quote_percent: number;
  quote_refund_cents: number;
  started: boolean;
}

export const MAX_LISTED_BOOKINGS = 100;

/** The customer's bookings, newest first (one showtime's only when `showtimeId` is set). */
export async function listCustomerBookings(
  sql: Db,
  customerId: string,
  showtimeId: number | null,
): Promise<ListedBookingRow[]> {
  return sql<ListedBookingRow[]>`
    SELECT b.id, b.showtime_id, t.title, t.starts_at, b.status, b.seat_codes, h.fare_class, h.quantity,
           b.amount_cents, b.currency, b.refund_cents, b.created_at,
           q.percent AS quote_percent, q.refund_cents AS quote_refund_cents, q.started
      FROM booking b
      JOIN showtime t ON t.id = b.showtime_id
      JOIN seat_hold h ON h.id = b.hold_id
      CROSS JOIN LATERAL booking_refund_quote(b.id) q
     WHERE b.customer_id = ${customerId}
       AND (${showtimeId}::bigint IS NULL OR b.showtime_id = ${showtimeId}::bigint)
     ORDER BY b.created_at DESC, b.id
     LIMIT ${MAX_LISTED_BOOKINGS}`;
}

/** The showtime's refund policy (tiers), or null for no such showtime. */
export async function readRefundPolicy(sql: Db, showtimeId: number): Promise<unknown[] | null> {
  const [row] = await sql<{ refund_policy: unknown[] }[]>`SELECT refund_policy FROM showtime WHERE id = ${showtimeId}`;
  return row?.refund_policy ?? null;
}

/**
 * Replaces the refund policy, the showtime row locked first; returns the policy before and
 * whether it was the same (null for no such showtime), for the operator audit.
 */
export async function replaceRefundPolicy(sql: Db, showtimeId: number, tiers: unknown[]) {
  const [before] = await sql<{ refund_policy: unknown[]; same: boolean }[]>`
    SELECT refund_policy, refund_policy = ${sql.json(tiers as never)}::jsonb AS same FROM showtime WHERE id = ${showtimeId} FOR UPDATE`;
  if (!before) return null;
  await sql`UPDATE showtime SET refund_policy = ${sql.json(tiers as never)} WHERE id = ${showtimeId}`;
  return { before: before.refund_policy, same: before.same };
}
