import { Hono } from 'hono';
import type { Sql } from 'postgres';
import { conflict, forbidden, notFound } from '../../../lib/errors';
import type { VerifyAccessToken } from '../../../lib/access-token';
import { requireAccessToken, requireAdminToken, type AccessVariables } from '../http/auth';
import { uuidParam } from '../http/params';
import { lockPayment } from '../payments/payment-repo';
import { refundBookingAndAnnounce, requestRefundOf } from '../payments/settlement';

interface BookingRow {
  id: string;
  hold_id: string;
  payment_id: string;
  showtime_id: number;
  customer_id: string;
  seat_codes: string[];
  amount_cents: number;
  currency: string;
  status: string;
  status_cause: string;
  created_at: Date;
  payment_status: string;
}

async function findBooking(sql: Sql, bookingId: string): Promise<BookingRow | null> {
  const [row] = await sql<BookingRow[]>`
    SELECT b.*, p.status AS payment_status FROM booking b JOIN payment p ON p.id = b.payment_id WHERE b.id = ${bookingId}::uuid`;
  return row ?? null;
}

const bookingView = (b: BookingRow) => ({
  bookingId: b.id,
  showtimeId: b.showtime_id,
  holdId: b.hold_id,
  paymentId: b.payment_id,
  status: b.status,
  seats: b.seat_codes,
  amountCents: b.amount_cents,
  currency: b.currency,
  paymentStatus: b.payment_status,
  createdAt: b.created_at.toISOString(),
});

/** GET /bookings/:id for its buyer (access token for the showtime). */
export function bookingRoutes(deps: { sql: Sql; verifyAccessToken: VerifyAccessToken }) {
  const app = new Hono<{ Variables: AccessVariables }>();
  app.get('/bookings/:bookingId', requireAccessToken(deps.verifyAccessToken), async (c) => {
    const booking = await findBooking(deps.sql, uuidParam(c.req.param('bookingId'), 'BOOKING_NOT_FOUND', 'booking'));
    if (!booking) throw notFound('BOOKING_NOT_FOUND', 'No such booking');
    const access = c.get('access');
    if (booking.customer_id !== access.customerId || booking.showtime_id !== access.showtimeId) {
      throw forbidden('NOT_YOUR_BOOKING', 'This booking belongs to someone else');
    }
    return c.json(bookingView(booking));
  });
  return app;
}

/** Operator: read a booking with its whole history, and refund it after purchase (README, "States"). */
export function adminBookingRoutes(deps: { sql: Sql; adminToken: string }) {
  const app = new Hono();
  app.use('*', requireAdminToken(deps.adminToken));

  app.get('/bookings/:bookingId', async (c) => {
    const booking = await findBooking(deps.sql, uuidParam(c.req.param('bookingId'), 'BOOKING_NOT_FOUND', 'booking'));
    if (!booking) throw notFound('BOOKING_NOT_FOUND', 'No such booking');
    const history = await deps.sql`
      SELECT entity_type AS "entityType", entity_id AS "entityId", from_state AS "from", to_state AS "to", cause, at
        FROM state_transition
       WHERE (entity_type = 'booking' AND entity_id = ${booking.id}) OR (entity_type = 'hold' AND entity_id = ${booking.hold_id})
          OR (entity_type = 'payment' AND entity_id = ${booking.payment_id})
       ORDER BY at, id`;
    return c.json({ ...bookingView(booking), customerId: booking.customer_id, history });
  });

  /** Seats AVAILABLE and booking REFUNDED in one transaction, with the refund command and events. */
  app.post('/bookings/:bookingId/refund', async (c) => {
    const bookingId = uuidParam(c.req.param('bookingId'), 'BOOKING_NOT_FOUND', 'booking');
    const result = await deps.sql.begin(async (tx) => {
      const refunded = await refundBookingAndAnnounce(tx, bookingId, 'refunded by operator');
      if (!refunded) return null;
      const payment = await lockPayment(tx, refunded.payment_id);
      if (payment) await requestRefundOf(tx, payment, { reason: 'refunded by operator', bookingId });
      return refunded;
    });
    if (!result) {
      const booking = await findBooking(deps.sql, bookingId);
      if (!booking) throw notFound('BOOKING_NOT_FOUND', 'No such booking');
      if (booking.status === 'REFUNDED') return c.json(bookingView(booking));
      throw conflict('BOOKING_NOT_REFUNDABLE', `A ${booking.status} booking cannot be refunded`);
    }
    return c.json(bookingView((await findBooking(deps.sql, bookingId))!));
  });

  return app;
}
