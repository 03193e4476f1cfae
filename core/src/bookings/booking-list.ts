import type { ListedBookingRow } from './booking-repo';

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
  ...(b.status === 'CONFIRMED' && !b.started
    ? { cancelRefundCents: b.quote_refund_cents, cancelPercent: b.quote_percent }
    : {}),
});
