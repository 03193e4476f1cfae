import type { Sql } from 'postgres';
import { lockPayment } from '../payments/payment-repo';
import { completeSucceededPayment, refundBookingAndAnnounce, requestRefundOf } from '../payments/settlement';

/**
 * Compensation (README, "Background jobs"): finds the cases where money and seats disagree
 * and repairs each by the ordinary rules. Each repair is its own transaction guarded by row
 * locks and state conditions, so two instances running this at once repair each case once.
 */
export async function compensate(sql: Sql, options: { graceMs: number }) {
  const grace = options.graceMs;
  let repaired = 0;

  // Paid but not booked: a SUCCEEDED payment without any booking.
  const unbooked = await sql<{ id: string }[]>`
    SELECT p.id FROM payment p
     WHERE p.status = 'SUCCEEDED' AND p.updated_at <= now() - ${grace} * interval '1 millisecond'
       AND NOT EXISTS (SELECT 1 FROM booking b WHERE b.payment_id = p.id)
     LIMIT 100`;
  for (const { id } of unbooked) {
    const result = await completeSucceededPayment(sql, id);
    if (result.kind === 'booked' || result.kind === 'refund_requested') repaired++;
  }

  // Paid, booking FAILED, but no refund on its way.
  const unrefunded = await sql<{ payment_id: string; booking_id: string }[]>`
    SELECT b.payment_id, b.id AS booking_id FROM booking b JOIN payment p ON p.id = b.payment_id
     WHERE b.status = 'FAILED' AND p.status = 'SUCCEEDED' AND p.updated_at <= now() - ${grace} * interval '1 millisecond'
     LIMIT 100`;
  for (const row of unrefunded) {
    const done = await sql.begin(async (tx) => {
      const payment = await lockPayment(tx, row.payment_id);
      if (payment?.status !== 'SUCCEEDED') return false;
      await requestRefundOf(tx, payment, {
        reason: 'compensation: failed booking without refund',
        bookingId: row.booking_id,
      });
      return true;
    });
    if (done) repaired++;
  }

  // Refunded but not released: money returned while the booking still holds its seats.
  const unreleased = await sql<{ id: string }[]>`
    SELECT b.id FROM booking b JOIN payment p ON p.id = b.payment_id
     WHERE b.status = 'CONFIRMED' AND p.status = 'REFUNDED' AND p.updated_at <= now() - ${grace} * interval '1 millisecond'
     LIMIT 100`;
  for (const { id } of unreleased) {
    if (await sql.begin((tx) => refundBookingAndAnnounce(tx, id, 'compensation: payment refunded at the gateway')))
      repaired++;
  }

  // A REFUNDED booking whose seats are still BOOKED under it (freed and announced together).
  const [stuck] = await sql<{ released: number }[]>`
    WITH locked AS (
      -- LOCK: seats in (showtime, seat code) order, as hold_seats takes them (no deadlock).
      SELECT s.showtime_id, s.seat_code, b.id AS booking_id
        FROM show_seat s JOIN booking b ON s.booking_id = b.id AND s.showtime_id = b.showtime_id
       WHERE s.status = 'BOOKED' AND b.status = 'REFUNDED'
       ORDER BY s.showtime_id, s.seat_code
         FOR UPDATE OF s
    ), freed AS (
      UPDATE show_seat s SET status = 'AVAILABLE', booking_id = NULL, hold_id = NULL, customer_id = NULL
        FROM locked l
       WHERE s.showtime_id = l.showtime_id AND s.seat_code = l.seat_code AND s.booking_id = l.booking_id AND s.status = 'BOOKED'
      -- RETURNING shows the row after the update (booking_id NULL): take the id from the lock.
      RETURNING s.showtime_id, l.booking_id, s.seat_code
    ), announced AS (
      INSERT INTO outbox (type, showtime_id, payload)
      SELECT 'SeatsReleased', showtime_id,
             jsonb_build_object('bookingId', booking_id, 'seats', jsonb_agg(seat_code ORDER BY seat_code), 'reason', 'compensation')
        FROM freed GROUP BY showtime_id, booking_id
      RETURNING 1
    )
    SELECT count(*)::int AS released FROM announced`;
  repaired += stuck!.released;
  return { repaired };
}
