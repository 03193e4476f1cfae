import { createHash } from 'node:crypto';
import type { Sql } from 'postgres';
import { AppError, conflict, unprocessable } from '../../../lib/errors';
import type { AccessClaims } from '../../../lib/access-token';
import { findShowtime } from '../catalog/showtime-repo';
import type { PaymentGateway } from '../payments/gateway-client';
import { insertPayment } from '../payments/payment-repo';
import type { HoldService } from '../seats/hold-service';

/**
 * The payment session ends before the hold does (8 of 10 minutes), so most callbacks arrive
 * while the seats are still held (README, "Checkout, payments and the order lifecycle").
 */
export const PAYMENT_SHARE_OF_REMAINING_HOLD = 0.8;
/** Below this, there is no time left to pay; the buyer should pick seats again. */
export const MIN_REMAINING_HOLD_MS = 5_000;

export interface CheckoutConfig {
  /** Where the hosted pay page sends the buyer back (the edge's sale page by default). */
  publicBaseUrl: string;
}

const holdExpired = () => new AppError(410, 'HOLD_EXPIRED', 'This hold has expired; choose your seats again');

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
    if (!hold.live || hold.remaining_ms < MIN_REMAINING_HOLD_MS) throw holdExpired();
    const showtime = await findShowtime(deps.sql, hold.showtime_id);
    if (!showtime) throw holdExpired();

    const returnUrl = resolveReturnUrl(hold.showtime_id, hold.id, input.returnUrl);
    const expiresAt = new Date(Date.now() + Math.floor(hold.remaining_ms * PAYMENT_SHARE_OF_REMAINING_HOLD));
    const amountCents = showtime.price_cents * hold.seat_codes.length;
    const gatewayKey = `checkout-${hold.id}-${createHash('sha256').update(`${input.access.customerId}/${input.idempotencyKey}`).digest('hex').slice(0, 32)}`;
    const payment = await deps.gateway.createPayment({
      idempotencyKey: gatewayKey,
      amountCents,
      currency: showtime.currency,
      reference: hold.id,
      expiresAt,
      returnUrl,
      metadata: { showtimeId: String(hold.showtime_id), seats: hold.seat_codes.join(' ') },
    });
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
