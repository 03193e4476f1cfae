import { createHash } from 'node:crypto';
import type { Sql } from 'postgres';
import { AppError, conflict, unprocessable } from '../../../lib/errors';
import type { AccessClaims } from '../../../lib/access-token';
import { findShowtime } from '../catalog/showtime-repo';
import type { PaymentGateway } from '../payments/gateway-client';
import { insertPayment } from '../payments/payment-repo';
import { holdAmountCents } from '../fares/fare-repo';
import type { HoldService } from '../seats/hold-service';

/**
 * The payment session ends before the hold does (at 8 of its 10 minutes), so most callbacks
 * arrive while the seats are still held (README, "Checkout, payments and the order lifecycle").
 */
export const PAYMENT_SHARE_OF_HOLD = 0.8;
/** Below this much payment time, there is no time left to pay; the buyer should pick seats again. */
export const MIN_REMAINING_HOLD_MS = 5_000;

/**
 * The gateway request as a pure function of the hold and the buyer's key: the same key for
 * the same hold always sends the same body, so a retry after a crash between the gateway's
 * answer and our insert gets the session the first attempt opened (the gateway replays it),
 * never a refusal for a changed body and never a second session. The session ends at a fixed
 * point of the hold's life (8/10 of its TTL), not "now + something".
 */
export function paymentSessionRequest(
  hold: { id: string; showtime_id: number; seat_codes: string[]; created_at: Date; expires_at: Date },
  args: { customerId: string; idempotencyKey: string; amountCents: number; currency: string; returnUrl: string },
) {
  const ttlMs = hold.expires_at.getTime() - hold.created_at.getTime();
  return {
    idempotencyKey: `checkout-${hold.id}-${createHash('sha256').update(`${args.customerId}/${args.idempotencyKey}`).digest('hex').slice(0, 32)}`,
    amountCents: args.amountCents,
    currency: args.currency,
    reference: hold.id,
    expiresAt: new Date(hold.created_at.getTime() + Math.floor(ttlMs * PAYMENT_SHARE_OF_HOLD)),
    returnUrl: args.returnUrl,
    metadata: { showtimeId: String(hold.showtime_id), seats: hold.seat_codes.join(' ') },
  };
}

export interface CheckoutConfig {
  /** Where the hosted pay page sends the buyer back (the edge's sale page by default). */
  publicBaseUrl: string;
}

const holdExpired = () => new AppError(410, 'HOLD_EXPIRED', 'This hold has expired, or too little of it is left to pay; choose your seats again');

/**
 * Checkout turns a live hold of this buyer into a payment session at the gateway. The gateway
 * call is itself idempotent (a key derived from the hold and the buyer's key), so a retry after
 * a crash reuses the same session instead of opening a second one.
 */
export function createCheckoutService(deps: { sql: Sql; holds: HoldService; gateway: PaymentGateway; config: CheckoutConfig }) {
  const publicOrigin = new URL(deps.config.publicBaseUrl).origin;

  function resolveReturnUrl(showtimeId: number, holdId: string, requested: string | undefined): string {
    const fallback = new URL(`/showtimes/${showtimeId}?hold=${holdId}`, deps.config.publicBaseUrl).toString();
    if (!requested) return fallback;
    const url = new URL(requested, deps.config.publicBaseUrl);
    // Only back to our own pages: a checkout must not become an open redirect.
    if (url.origin !== publicOrigin) throw unprocessable('RETURN_URL_NOT_ALLOWED', `returnUrl must be on ${publicOrigin}`);
    return url.toString();
  }

  async function checkout(input: { holdId: string; access: AccessClaims; idempotencyKey: string; returnUrl?: string }) {
    const hold = await deps.holds.loadOwnHold(input.holdId, input.access);
    if (hold.status === 'CONFIRMED') throw conflict('HOLD_CONFIRMED', 'This hold has already been paid for');
    if (hold.status === 'CANCELLED') throw conflict('HOLD_CANCELLED', 'This hold was cancelled');
    if (!hold.live) throw holdExpired();
    const showtime = await findShowtime(deps.sql, hold.showtime_id);
    if (!showtime) throw holdExpired();

    const request = paymentSessionRequest(hold, {
      customerId: input.access.customerId,
      idempotencyKey: input.idempotencyKey,
      // Each seat at its fare class's price, general-admission places at theirs.
      amountCents: await holdAmountCents(deps.sql, hold.id, hold.showtime_id),
      currency: showtime.currency,
      returnUrl: resolveReturnUrl(hold.showtime_id, hold.id, input.returnUrl),
    });
    // The payment window, measured with the database's clock (remaining_ms) like the hold.
    const paymentWindowMs = hold.remaining_ms - (hold.expires_at.getTime() - request.expiresAt.getTime());
    if (paymentWindowMs < MIN_REMAINING_HOLD_MS) throw holdExpired();
    const amountCents = request.amountCents;
    const payment = await deps.gateway.createPayment(request);
    await insertPayment(deps.sql, {
      id: payment.id,
      hold_id: hold.id,
      showtime_id: hold.showtime_id,
      customer_id: hold.customer_id,
      amount_cents: amountCents,
      currency: showtime.currency,
      checkout_url: payment.checkoutUrl,
      expires_at: new Date(payment.expiresAt),
    });
    return {
      paymentId: payment.id,
      checkoutUrl: payment.checkoutUrl,
      expiresAt: new Date(payment.expiresAt).toISOString(),
      amountCents,
      currency: showtime.currency,
      holdId: hold.id,
    };
  }

  return { checkout };
}

export type CheckoutService = ReturnType<typeof createCheckoutService>;
