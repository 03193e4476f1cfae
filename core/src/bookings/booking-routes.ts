import { insertAudit, lockForAudit } from '../audit/audit-log';
import { Hono } from 'hono';
import type { Sql } from 'postgres';
import { conflict, forbidden, notFound } from '../../../lib/errors';
import type { VerifyAccessToken } from '../../../lib/access-token';
import { requireAdminToken } from '../http/auth';
import { requireBuyer, type Buyer, type BuyerVariables } from '../http/buyer-auth';
import type { VerifyCustomerAccess } from '../../../lib/customer-access-token';
import { listedBookingView } from './booking-list';
import {
  bookingHistory,
  bookingPaymentId,
  cancelBooking,
  findBooking,
  listCustomerBookings,
  readRefundPolicy,
  refundQuote,
  replaceRefundPolicy,
  type BookingRow,
} from './booking-repo';
import { operatorOf } from '../sale/sale-routes';
import { showtimeIdParam, uuidParam } from '../http/params';
import { z } from 'zod';
import { readJsonBody } from '../../../lib/http';
import { isTransientDatabaseError, mapDatabaseError } from '../db/sql-errors';
import { lockPayment } from '../payments/payment-repo';
import { refundBookingAndAnnounce, requestRefundOf } from '../payments/settlement';

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
  ...(b.refund_cents !== null ? { refundCents: b.refund_cents } : {}),
});

const ATTEMPTS = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The buyer's bookings: with the access token of a turn (that showtime's bookings) or, after the
 * turn ended, with the customer access token the edge signs once it verified the customer token
 * (any showtime of that customer). Someone else's booking is refused the same way with either.
 */
export function bookingRoutes(deps: {
  sql: Sql;
  verifyAccessToken: VerifyAccessToken;
  verifyCustomerAccess?: VerifyCustomerAccess | null;
}) {
  const app = new Hono<{ Variables: BuyerVariables }>();
  const buyerAuth = requireBuyer({
    verifyAccessToken: deps.verifyAccessToken,
    verifyCustomerAccess: deps.verifyCustomerAccess ?? null,
  });

  /** The buyer's own booking (403 for anyone else's, and for another showtime's with a turn's token). */
  async function ownBooking(bookingId: string, buyer: Buyer) {
    const booking = await findBooking(deps.sql, bookingId);
    if (!booking) throw notFound('BOOKING_NOT_FOUND', 'No such booking');
    if (
      booking.customer_id !== buyer.customerId ||
      (buyer.showtimeId !== null && booking.showtime_id !== buyer.showtimeId)
    ) {
      throw forbidden('NOT_YOUR_BOOKING', 'This booking belongs to someone else');
    }
    return booking;
  }

  // The customer's bookings, newest first, each with what cancelling it would give back now.
  app.get('/bookings', buyerAuth, async (c) => {
    const buyer = c.get('buyer');
    const rows = await listCustomerBookings(deps.sql, buyer.customerId, buyer.showtimeId);
    return c.json({ customerId: buyer.customerId, bookings: rows.map(listedBookingView) });
  });

  app.get('/bookings/:bookingId', buyerAuth, async (c) => {
    const booking = await ownBooking(
      uuidParam(c.req.param('bookingId'), 'BOOKING_NOT_FOUND', 'booking'),
      c.get('buyer'),
    );
    return c.json(bookingView(booking));
  });

  // What the buyer would get back, shown before they confirm the cancellation.
  app.get('/bookings/:bookingId/cancellation', buyerAuth, async (c) => {
    const booking = await ownBooking(
      uuidParam(c.req.param('bookingId'), 'BOOKING_NOT_FOUND', 'booking'),
      c.get('buyer'),
    );
    const quote = await refundQuote(deps.sql, booking.id);
    return c.json({
      bookingId: booking.id,
      status: booking.status,
      cancellable: booking.status === 'CONFIRMED' && !quote.started,
      refundCents: booking.status === 'CANCELLED' ? booking.refund_cents : quote.refund_cents,
      percent: quote.percent,
      amountCents: booking.amount_cents,
      currency: booking.currency,
      startsAt: quote.starts_at.toISOString(),
    });
  });

  /**
   * The buyer cancels: 200 with the refund the showtime's policy gives (cancel_booking in
   * migrations/functions/cancel_booking.sql). Repeating answers the same; after the start, 409.
   */
  app.delete('/bookings/:bookingId', buyerAuth, async (c) => {
    const buyer = c.get('buyer');
    const booking = await ownBooking(uuidParam(c.req.param('bookingId'), 'BOOKING_NOT_FOUND', 'booking'), buyer);
    for (let attempt = 1; ; attempt++) {
      try {
        // The booking's own showtime: ownBooking has checked it against a turn's token.
        const row = await cancelBooking(deps.sql, {
          bookingId: booking.id,
          customerId: buyer.customerId,
          showtimeId: booking.showtime_id,
        });
        return c.json({
          bookingId: booking.id,
          status: 'CANCELLED',
          refundCents: row.refund_cents,
          percent: row.percent,
          currency: booking.currency,
          seats: booking.seat_codes,
        });
      } catch (error) {
        if (isTransientDatabaseError(error) && attempt < ATTEMPTS) {
          await sleep(5 + Math.random() * 20 * attempt);
          continue;
        }
        throw mapDatabaseError(error);
      }
    }
  });
  return app;
}

const refundTier = z
  .object({ beforeStartMinutes: z.number().int().min(0).max(525_600), percent: z.number().int().min(0).max(100) })
  .strict();
/**
 * Tiers of "at least this many minutes before the start: this percent back". Each time once
 * (two answers for one moment would be ambiguous), and a later cancellation never gets more back
 * than an earlier one.
 */
export const refundPolicySchema = z
  .object({ tiers: z.array(refundTier).max(10) })
  .strict()
  .refine((p) => new Set(p.tiers.map((t) => t.beforeStartMinutes)).size === p.tiers.length, {
    message: 'each time before the start may appear only once',
  })
  .refine(
    (p) =>
      [...p.tiers]
        .sort((a, b) => b.beforeStartMinutes - a.beforeStartMinutes)
        .every((t, i, all) => i === 0 || t.percent <= all[i - 1]!.percent),
    { message: 'a cancellation closer to the start cannot give back more than an earlier one' },
  );

/** Operator: read a booking with its whole history, and refund it after purchase (README, "States"). */
export function adminBookingRoutes(deps: { sql: Sql; adminToken: string }) {
  const app = new Hono();
  app.use('*', requireAdminToken(deps.adminToken));

  app.get('/bookings/:bookingId', async (c) => {
    const booking = await findBooking(deps.sql, uuidParam(c.req.param('bookingId'), 'BOOKING_NOT_FOUND', 'booking'));
    if (!booking) throw notFound('BOOKING_NOT_FOUND', 'No such booking');
    const history = await bookingHistory(deps.sql, booking);
    return c.json({ ...bookingView(booking), customerId: booking.customer_id, history });
  });

  // The showtime's refund policy for buyer cancellations: tiers of minutes before the start.
  app.get('/showtimes/:showtimeId/refund-policy', async (c) => {
    const tiers = await readRefundPolicy(deps.sql, showtimeIdParam(c.req.param('showtimeId')));
    if (!tiers) throw notFound('SHOWTIME_NOT_FOUND', 'No such showtime');
    return c.json({ tiers });
  });
  app.put('/showtimes/:showtimeId/refund-policy', async (c) => {
    const showtimeId = showtimeIdParam(c.req.param('showtimeId'));
    const body = await readJsonBody(c, refundPolicySchema);
    const tiers = [...body.tiers].sort((a, b) => b.beforeStartMinutes - a.beforeStartMinutes);
    const operator = operatorOf(c);
    // Audited like every operator change: the policy before and after, in the same transaction.
    const found = await deps.sql.begin(async (tx) => {
      // LOCK: the showtime (replaceRefundPolicy), then its settings, as sale control does.
      const before = await replaceRefundPolicy(tx, showtimeId, tiers);
      if (!before) return false;
      const locked = (await lockForAudit(tx, showtimeId))!;
      if (!before.same) {
        await insertAudit(
          tx,
          {
            showtimeId,
            operator,
            action: 'refund-policy.update',
            before: { tiers: before.before },
            after: { tiers },
          },
          locked.version,
        );
      }
      return true;
    });
    if (!found) throw notFound('SHOWTIME_NOT_FOUND', 'No such showtime');
    return c.json({ tiers });
  });

  /** Seats AVAILABLE and booking REFUNDED in one transaction, with the refund command and events. */
  app.post('/bookings/:bookingId/refund', async (c) => {
    const bookingId = uuidParam(c.req.param('bookingId'), 'BOOKING_NOT_FOUND', 'booking');
    const result = await deps.sql.begin(async (tx) => {
      // LOCK: the payment before the booking, the order of a gateway event's settlement and of
      // the buyer's cancel, so an operator refund racing either waits instead of deadlocking.
      const paymentId = await bookingPaymentId(tx, bookingId);
      const payment = paymentId ? await lockPayment(tx, paymentId) : null;
      const refunded = await refundBookingAndAnnounce(tx, bookingId, 'refunded by operator');
      if (!refunded) return null;
      if (payment) await requestRefundOf(tx, payment, { reason: 'refunded by operator', bookingId });
      // An operator's refund is an operator change like any other: audited with the booking.
      const audit = await lockForAudit(tx, refunded.showtime_id);
      if (audit) {
        await insertAudit(
          tx,
          {
            showtimeId: refunded.showtime_id,
            operator: operatorOf(c),
            action: 'booking.refund',
            before: { bookingId, status: 'CONFIRMED', seats: refunded.seats },
            after: { bookingId, status: 'REFUNDED', seats: [] },
          },
          audit.version,
        );
      }
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
