import type { Db } from '../db/connect';

/** SQL only for payments, bookings and their side effects; rules live in settlement.ts. */

export type PaymentStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED' | 'REFUND_REQUESTED' | 'REFUNDED';

export interface PaymentRow {
  id: string;
  hold_id: string;
  showtime_id: number;
  customer_id: string;
  amount_cents: number;
  currency: string;
  status: PaymentStatus;
  checkout_url: string;
  expires_at: Date;
  created_at: Date;
}

export async function insertPayment(sql: Db, p: Omit<PaymentRow, 'status' | 'created_at'>) {
  await sql`
    INSERT INTO payment (id, hold_id, showtime_id, customer_id, amount_cents, currency, checkout_url, expires_at)
    VALUES (${p.id}, ${p.hold_id}::uuid, ${p.showtime_id}, ${p.customer_id}, ${p.amount_cents}, ${p.currency},
            ${p.checkout_url}, ${p.expires_at})
    ON CONFLICT (id) DO NOTHING`;
}

export async function lockPayment(sql: Db, paymentId: string): Promise<PaymentRow | null> {
  const [row] = await sql<PaymentRow[]>`SELECT * FROM payment WHERE id = ${paymentId} FOR UPDATE`;
  return row ?? null;
}

export async function setPaymentStatus(sql: Db, paymentId: string, status: PaymentStatus, cause: string) {
  await sql`UPDATE payment SET status = ${status}, status_cause = ${cause}, updated_at = now() WHERE id = ${paymentId}`;
}

/** Records a webhook event id; false when it was seen before (a duplicate). */
export async function recordPaymentEvent(sql: Db, e: { eventId: string; paymentId: string; type: string }) {
  const rows = await sql`
    INSERT INTO payment_event (event_id, payment_id, type, outcome) VALUES (${e.eventId}, ${e.paymentId}, ${e.type}, 'received')
    ON CONFLICT (event_id) DO NOTHING RETURNING event_id`;
  return rows.length === 1;
}

export async function setPaymentEventOutcome(sql: Db, eventId: string, outcome: string) {
  await sql`UPDATE payment_event SET outcome = ${outcome} WHERE event_id = ${eventId}`;
}

/**
 * The confirmation: the hold goes ACTIVE → CONFIRMED and its seats HELD → BOOKED in ONE
 * statement, and only while the hold is live by the database clock. The caller compares
 * `seats_booked` with the hold's seat count: fewer means a seat was taken by someone after the
 * hold lapsed, and the whole attempt must be rolled back.
 */
export async function confirmHold(
  sql: Db,
  args: { holdId: string; showtimeId: number; bookingId: string; paymentId: string },
) {
  const [row] = await sql<{ confirmed: boolean; seat_count: number; seats_booked: number }[]>`
    WITH confirmed AS (
      UPDATE seat_hold SET status = 'CONFIRMED', status_cause = ${`paid by ${args.paymentId}`}, ended_at = now()
       WHERE showtime_id = ${args.showtimeId} AND id = ${args.holdId}::uuid AND status = 'ACTIVE' AND expires_at > now()
      RETURNING id, showtime_id, seat_codes
    ), locked AS (
      -- LOCK: seats in seat-code order, as hold_seats and endHold take them (no deadlock).
      -- Keyed by the parameters and a one-row subquery, not a join with the CTE (seat-repo.ts,
      -- endHold, says why).
      SELECT s.seat_code FROM show_seat s
       WHERE s.showtime_id = ${args.showtimeId}
         AND s.seat_code = ANY ((SELECT c.seat_codes FROM confirmed c)::text[])
       ORDER BY s.seat_code
         FOR UPDATE
    ), booked AS (
      UPDATE show_seat s SET status = 'BOOKED', booking_id = ${args.bookingId}::uuid, hold_expires_at = NULL
       WHERE s.showtime_id = ${args.showtimeId}
         AND s.seat_code = ANY ((SELECT array_agg(l.seat_code) FROM locked l)::text[])
         AND s.hold_id = ${args.holdId}::uuid AND s.status = 'HELD'
      RETURNING s.seat_code
    )
    SELECT EXISTS (SELECT 1 FROM confirmed) AS confirmed,
           coalesce((SELECT cardinality(seat_codes) FROM confirmed), 0)::int AS seat_count,
           (SELECT count(*) FROM booked)::int AS seats_booked`;
  return row!;
}

export async function insertBooking(
  sql: Db,
  b: {
    id: string;
    holdId: string;
    paymentId: string;
    showtimeId: number;
    customerId: string;
    seats: string[];
    amountCents: number;
    currency: string;
    status: 'CONFIRMED' | 'FAILED';
    cause: string;
  },
) {
  await sql`
    INSERT INTO booking (id, hold_id, payment_id, showtime_id, customer_id, seat_codes, amount_cents, currency, status, status_cause)
    VALUES (${b.id}::uuid, ${b.holdId}::uuid, ${b.paymentId}, ${b.showtimeId}, ${b.customerId},
            ${sql.array(b.seats)}::varchar(8)[], ${b.amountCents}, ${b.currency}, ${b.status}, ${b.cause})`;
}

export async function findBookingByPayment(sql: Db, paymentId: string) {
  const [row] = await sql<
    { id: string; status: string }[]
  >`SELECT id, status FROM booking WHERE payment_id = ${paymentId}`;
  return row ?? null;
}

export async function holdSeatCodes(sql: Db, holdId: string, showtimeId: number): Promise<string[]> {
  const [row] = await sql<{ seat_codes: string[] }[]>`
    SELECT seat_codes FROM seat_hold WHERE showtime_id = ${showtimeId} AND id = ${holdId}::uuid`;
  return row?.seat_codes ?? [];
}

export async function requestRefund(sql: Db, paymentId: string, reason: string) {
  await sql`
    INSERT INTO refund_command (payment_id, reason) VALUES (${paymentId}, ${reason})
    ON CONFLICT (payment_id) DO NOTHING`;
}

/** The gateway says the refund is made: the pending refund command is done. */
export async function markRefundCommandDone(sql: Db, paymentId: string) {
  await sql`UPDATE refund_command SET state = 'DONE', done_at = now() WHERE payment_id = ${paymentId} AND state = 'PENDING'`;
}

/** A seat came back on sale: the showtime is no longer sold out. */
export async function clearSoldOut(sql: Db, showtimeId: number) {
  await sql`UPDATE showtime SET sold_out_at = NULL WHERE id = ${showtimeId} AND sold_out_at IS NOT NULL`;
}

export async function appendOutbox(sql: Db, type: string, showtimeId: number, payload: Record<string, unknown>) {
  await sql`INSERT INTO outbox (type, showtime_id, payload) VALUES (${type}, ${showtimeId}, ${sql.json(payload as never)})`;
}

/** Marks the showtime sold out once every seat is BOOKED and every general-admission place sold; true only for the call that did it. */
export async function markSoldOutIfFull(sql: Db, showtimeId: number): Promise<boolean> {
  const rows = await sql`
    UPDATE showtime t SET sold_out_at = now()
     WHERE t.id = ${showtimeId} AND t.sold_out_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM show_seat s WHERE s.showtime_id = t.id AND s.status <> 'BOOKED')
       AND NOT EXISTS (SELECT 1 FROM fare_inventory f WHERE f.showtime_id = t.id AND NOT f.seated AND f.sold < f.capacity + f.overbook_limit)
    RETURNING t.id`;
  return rows.length === 1;
}

/**
 * Refund after purchase (README, "States"): booking CONFIRMED → REFUNDED and its seats back to
 * AVAILABLE in one statement. Returns the freed seats, or null if the booking was not CONFIRMED.
 */
export async function refundBookingAndFreeSeats(sql: Db, bookingId: string, cause: string) {
  const [row] = await sql<
    { showtime_id: number; customer_id: string; payment_id: string; hold_id: string; seats: string[] }[]
  >`
    WITH refunded AS (
      UPDATE booking SET status = 'REFUNDED', status_cause = ${cause}
       WHERE id = ${bookingId}::uuid AND status = 'CONFIRMED'
      RETURNING id, showtime_id, customer_id, payment_id, hold_id, seat_codes
    ), locked AS (
      -- LOCK: seats in seat-code order, as hold_seats and endHold take them (no deadlock).
      SELECT s.showtime_id, s.seat_code
        FROM show_seat s JOIN refunded r ON s.showtime_id = r.showtime_id AND s.seat_code = ANY (r.seat_codes)
       ORDER BY s.showtime_id, s.seat_code
         FOR UPDATE OF s
    ), freed AS (
      UPDATE show_seat s SET status = 'AVAILABLE', booking_id = NULL, hold_id = NULL, customer_id = NULL
        FROM locked l, refunded r
       WHERE s.showtime_id = l.showtime_id AND s.seat_code = l.seat_code
         AND s.booking_id = r.id AND s.status = 'BOOKED'
      RETURNING s.seat_code
    )
    SELECT r.showtime_id, r.customer_id, r.payment_id, r.hold_id,
           coalesce((SELECT array_agg(seat_code::text ORDER BY seat_code) FROM freed), '{}') AS seats
      FROM refunded r`;
  return row ?? null;
}
