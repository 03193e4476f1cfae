import { randomUUID } from 'node:crypto';
import type { Sql, TransactionSql } from 'postgres';
import { AppError } from '../../../lib/errors';
import type { Db } from '../db/connect';
import {
  appendOutbox,
  clearSoldOut,
  confirmHold,
  findBookingByPayment,
  holdSeatCodes,
  insertBooking,
  lockPayment,
  markRefundCommandDone,
  markSoldOutIfFull,
  recordPaymentEvent,
  refundBookingAndFreeSeats,
  requestRefund,
  setPaymentEventOutcome,
  setPaymentStatus,
  type PaymentRow,
} from './payment-repo';

export type GatewayOutcome = 'succeeded' | 'failed' | 'refunded';

export type SettlementResult =
  | { kind: 'duplicate' }
  | { kind: 'booked'; bookingId: string }
  | { kind: 'refund_requested'; bookingId: string; reason: string }
  | { kind: 'already_settled'; status: string }
  | { kind: 'payment_failed' }
  | { kind: 'refunded' }
  | { kind: 'ignored'; reason: string };

export interface SettlementInput {
  paymentId: string;
  outcome: GatewayOutcome;
  /** The gateway's event id (webhooks); absent when the reconciler settles from the query API. */
  eventId?: string;
  eventType?: string;
  amountCents?: number;
  currency?: string;
  cause: string;
}

class LostRace extends Error {}

/**
 * The rules that make money and seats agree, shared by the webhook and the reconciler.
 * Everything happens in one transaction holding the payment row lock, so duplicates and
 * racing deliveries for one payment run one after the other:
 * - a webhook event id already seen is a duplicate (answered 2xx, no effect);
 * - succeeded + hold still live → hold CONFIRMED and seats BOOKED in one statement, booking
 *   CONFIRMED; otherwise the booking is FAILED and a refund command is written, and the seats
 *   are left with whoever holds them now;
 * - failed after succeeded changes nothing; refunded settles the refund.
 */
export async function settlePayment(sql: Sql, input: SettlementInput): Promise<SettlementResult> {
  return sql.begin(async (tx) => {
    if (
      input.eventId &&
      !(await recordPaymentEvent(tx, {
        eventId: input.eventId,
        paymentId: input.paymentId,
        type: input.eventType ?? input.outcome,
      }))
    ) {
      return { kind: 'duplicate' } as const;
    }
    const payment = await lockPayment(tx, input.paymentId);
    if (!payment) {
      // Possibly a webhook racing the checkout that is still committing this payment: refuse
      // (nothing recorded) so the gateway delivers it again.
      throw new AppError('PAYMENT_UNKNOWN_YET', 'Unknown payment; deliver again later', { retryAfterSeconds: 5 });
    }
    const result = await applyOutcome(tx, payment, input);
    if (input.eventId) await setPaymentEventOutcome(tx, input.eventId, result.kind);
    return result;
  });
}

async function applyOutcome(
  tx: TransactionSql,
  payment: PaymentRow,
  input: SettlementInput,
): Promise<SettlementResult> {
  switch (input.outcome) {
    case 'succeeded': {
      if (payment.status !== 'PENDING' && payment.status !== 'FAILED')
        return { kind: 'already_settled', status: payment.status };
      await setPaymentStatus(tx, payment.id, 'SUCCEEDED', input.cause);
      const mismatch =
        (input.amountCents !== undefined && input.amountCents !== payment.amount_cents) ||
        (input.currency !== undefined && input.currency.toUpperCase() !== payment.currency);
      if (mismatch) return failBookingAndRefund(tx, payment, 'amount or currency differs from the checkout');
      return bookOrRefund(tx, payment);
    }
    case 'failed': {
      if (payment.status !== 'PENDING') return { kind: 'ignored', reason: `payment is ${payment.status}` };
      await setPaymentStatus(tx, payment.id, 'FAILED', input.cause);
      return { kind: 'payment_failed' };
    }
    case 'refunded': {
      if (payment.status !== 'SUCCEEDED' && payment.status !== 'REFUND_REQUESTED') {
        return { kind: 'ignored', reason: `payment is ${payment.status}` };
      }
      await setPaymentStatus(tx, payment.id, 'REFUNDED', input.cause);
      await markRefundCommandDone(tx, payment.id);
      // Refunded at the gateway while still booked (e.g. from the gateway's dashboard): the
      // seats go back on sale with the refund, never kept for money already returned.
      const booking = await findBookingByPayment(tx, payment.id);
      if (booking?.status === 'CONFIRMED') await refundBookingAndAnnounce(tx, booking.id, 'refunded at the gateway');
      return { kind: 'refunded' };
    }
  }
}

async function bookOrRefund(tx: TransactionSql, payment: PaymentRow): Promise<SettlementResult> {
  const bookingId = randomUUID();
  try {
    // A savepoint, so a partial confirmation (a seat retaken after the hold lapsed) is undone
    // without losing the payment's SUCCEEDED state recorded above.
    const seats = await tx.savepoint(async (sp) => {
      const result = await confirmHold(sp, {
        holdId: payment.hold_id,
        showtimeId: payment.showtime_id,
        bookingId,
        paymentId: payment.id,
      });
      if (!result.confirmed || result.seats_booked !== result.seat_count) throw new LostRace();
      const codes = await holdSeatCodes(sp, payment.hold_id, payment.showtime_id);
      await insertBooking(sp, {
        id: bookingId,
        holdId: payment.hold_id,
        paymentId: payment.id,
        showtimeId: payment.showtime_id,
        customerId: payment.customer_id,
        seats: codes,
        amountCents: payment.amount_cents,
        currency: payment.currency,
        status: 'CONFIRMED',
        cause: `paid by ${payment.id}`,
      });
      return codes;
    });
    const common = {
      holdId: payment.hold_id,
      customerId: payment.customer_id,
      bookingId,
      paymentId: payment.id,
      seats,
    };
    await appendOutbox(tx, 'BookingConfirmed', payment.showtime_id, {
      ...common,
      amountCents: payment.amount_cents,
      currency: payment.currency,
    });
    await appendOutbox(tx, 'HoldReleased', payment.showtime_id, { ...common, reason: 'confirmed' });
    if (await markSoldOutIfFull(tx, payment.showtime_id))
      await appendOutbox(tx, 'ShowtimeSoldOut', payment.showtime_id, {});
    return { kind: 'booked', bookingId };
  } catch (error) {
    if (!(error instanceof LostRace)) throw error;
    return failBookingAndRefund(tx, payment, 'the hold was no longer live when the payment arrived');
  }
}

async function failBookingAndRefund(tx: Db, payment: PaymentRow, reason: string): Promise<SettlementResult> {
  const bookingId = randomUUID();
  await insertBooking(tx, {
    id: bookingId,
    holdId: payment.hold_id,
    paymentId: payment.id,
    showtimeId: payment.showtime_id,
    customerId: payment.customer_id,
    seats: await holdSeatCodes(tx, payment.hold_id, payment.showtime_id),
    amountCents: payment.amount_cents,
    currency: payment.currency,
    status: 'FAILED',
    cause: reason,
  });
  await appendOutbox(tx, 'BookingFailed', payment.showtime_id, {
    holdId: payment.hold_id,
    customerId: payment.customer_id,
    bookingId,
    paymentId: payment.id,
    reason,
  });
  await requestRefundOf(tx, { ...payment, status: 'SUCCEEDED' }, { reason, bookingId });
  return { kind: 'refund_requested', bookingId, reason };
}

/**
 * Money owed back, in the caller's transaction (the payment row locked): a SUCCEEDED payment
 * moves to REFUND_REQUESTED, the refund worker gets its command, others get RefundRequested.
 */
export async function requestRefundOf(tx: Db, payment: PaymentRow, args: { reason: string; bookingId: string }) {
  if (payment.status === 'SUCCEEDED') await setPaymentStatus(tx, payment.id, 'REFUND_REQUESTED', args.reason);
  await requestRefund(tx, payment.id, args.reason);
  await appendOutbox(tx, 'RefundRequested', payment.showtime_id, {
    holdId: payment.hold_id,
    customerId: payment.customer_id,
    bookingId: args.bookingId,
    paymentId: payment.id,
    reason: args.reason,
    amountCents: payment.amount_cents,
    currency: payment.currency,
  });
}

/** Booking REFUNDED, seats AVAILABLE, sold-out flag cleared, events written: one transaction. */
export async function refundBookingAndAnnounce(tx: Db, bookingId: string, cause: string) {
  const refunded = await refundBookingAndFreeSeats(tx, bookingId, cause);
  if (!refunded) return null;
  await clearSoldOut(tx, refunded.showtime_id);
  await appendOutbox(tx, 'SeatsReleased', refunded.showtime_id, {
    bookingId,
    customerId: refunded.customer_id,
    paymentId: refunded.payment_id,
    seats: refunded.seats,
    reason: 'refund',
  });
  return refunded;
}

/**
 * Compensation for money taken without a sale recorded: a SUCCEEDED payment with no booking is
 * booked now if its hold is still live, otherwise refunded. Safe to run repeatedly.
 */
export async function completeSucceededPayment(sql: Sql, paymentId: string): Promise<SettlementResult> {
  return sql.begin(async (tx) => {
    const payment = await lockPayment(tx, paymentId);
    if (payment?.status !== 'SUCCEEDED') return { kind: 'ignored', reason: 'not a succeeded payment' } as const;
    if (await findBookingByPayment(tx, paymentId)) return { kind: 'already_settled', status: payment.status } as const;
    return bookOrRefund(tx, payment);
  });
}
