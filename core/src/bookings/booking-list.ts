import type { Db } from '../db/connect';

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
export async function listCustomerBookings(sql: Db, customerId: string, showtimeId: number | null): Promise<ListedBookingRow[]> {
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

export const listedBookingView = (b: ListedBookingRow) => ({
  bookingId: b.id,
  showtimeId: b.showtime_id,
  title: b.title,
  startsAt: b.starts_at.toISOString(),
  status: b.status,
  seats: b.seat_codes,
  ...(b.fare_class !== null ? { fareClass: b.fare_class, quantity: b.quantity } : {}),
  amountCents: b.amount_cents,
  currency: b.currency,
  createdAt: b.created_at.toISOString(),
  ...(b.refund_cents !== null ? { refundCents: b.refund_cents } : {}),
  /** Whether the buyer may cancel now, and what the policy would give back. */
  cancellable: b.status === 'CONFIRMED' && !b.started,
  ...(b.status === 'CONFIRMED' && !b.started ? { cancelRefundCents: b.quote_refund_cents, cancelPercent: b.quote_percent } : {}),
});
