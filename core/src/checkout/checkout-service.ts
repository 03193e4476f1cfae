import { createHash } from 'node:crypto';
import type { Sql } from 'postgres';
import { AppError, conflict, unprocessable } from '../../../lib/errors';
import type { AccessClaims } from '../../../lib/access-token';
import type { TraceContext } from '../../../lib/trace-context';
import { findShowtime } from '../catalog/showtime-repo';
import type { PaymentGateway } from '../payments/gateway-client';
import { insertPayment } from '../payments/payment-repo';
import { holdAmountCents } from '../fares/fare-repo';
import type { HoldService } from '../seats/hold-service';
import { crashPoint } from '../payments/crash-point';
import { oneSessionPerHold, type CheckoutSession, type SessionGuard } from './one-session-per-hold';

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
 * point of the hold's life (8/10 of its TTL), not "now + something". What the pay page shows
 * (film, time, place, seats) is read from the showtime like the price: an operator who renames
 * the showing between a crash and its retry changes the body, as a price change would.
 */
export function paymentSessionRequest(
  hold: PurchasedHold & { id: string; created_at: Date; expires_at: Date },
  args: {
    customerId: string;
    idempotencyKey: string;
    amountCents: number;
    currency: string;
    returnUrl: string;
    showing: Showing;
  },
) {
  const ttlMs = hold.expires_at.getTime() - hold.created_at.getTime();
  return {
    idempotencyKey: `checkout-${hold.id}-${createHash('sha256').update(`${args.customerId}/${args.idempotencyKey}`).digest('hex').slice(0, 32)}`,
    amountCents: args.amountCents,
    currency: args.currency,
    reference: hold.id,
    expiresAt: new Date(hold.created_at.getTime() + Math.floor(ttlMs * PAYMENT_SHARE_OF_HOLD)),
    returnUrl: args.returnUrl,
    metadata: {
      showtimeId: String(hold.showtime_id),
      seats: hold.seat_codes.join(' '),
      description: purchaseDescription(hold, args.showing),
    },
  };
}

/** What the showing is, as the gateway's pay page tells the buyer (the showtime as sold). */
export interface Showing {
  title: string;
  startsAt: Date;
  venue: string;
  city: string;
  hall: string;
}

type PurchasedHold = {
  showtime_id: number;
  seat_codes: string[];
  fare_class?: string | null;
  quantity?: number | null;
};

/** The gateway keeps at most 500 characters per metadata value. */
const DESCRIPTION_MAX = 500;
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');

/** "Wed 2 Jan 2030, 19:30 UTC": spelled out here, not by Intl, whose wording changes between ICU versions (the body must not). */
function whenWords(at: Date): string {
  return `${WEEKDAYS[at.getUTCDay()]} ${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()}, ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())} UTC`;
}

/**
 * The purchase in words for the gateway's pay page, one line each: the film, when (with its
 * time zone), where, and the seats (or the places of a general-admission class). No ids.
 */
export function purchaseDescription(hold: PurchasedHold, showing: Showing): string {
  const where = [[showing.venue, showing.city].filter(Boolean).join(', '), showing.hall].filter(Boolean).join(' · ');
  const what =
    hold.seat_codes.length > 0
      ? `${hold.seat_codes.length === 1 ? 'Seat' : 'Seats'} ${hold.seat_codes.join(', ')}`
      : `${hold.quantity ?? 0} ${hold.quantity === 1 ? 'place' : 'places'}${hold.fare_class ? ` (${hold.fare_class})` : ''}`;
  const lines = [showing.title, whenWords(showing.startsAt), where, what].filter(Boolean);
  return lines.join('\n').slice(0, DESCRIPTION_MAX);
}

export interface CheckoutConfig {
  /** Where the hosted pay page sends the buyer back (the edge's sale page by default). */
  publicBaseUrl: string;
}

const holdExpired = () =>
  new AppError('HOLD_EXPIRED', 'This hold has expired, or too little of it is left to pay; choose your seats again');

/**
 * Checkout turns a live hold of this buyer into a payment session at the gateway. The gateway
 * call is itself idempotent (a key derived from the hold and the buyer's key), so a retry after
 * a crash reuses the same session instead of opening a second one; and a hold has at most one
 * payable session whatever keys its checkouts carry (`sessionGuard`, one-session-per-hold.ts;
 * replaced only by the test that shows what happens without it).
 */
export function createCheckoutService(deps: {
  sql: Sql;
  holds: HoldService;
  gateway: PaymentGateway;
  config: CheckoutConfig;
  sessionGuard?: SessionGuard;
  /** This process's instance number on the hold leases it takes (claim-owner.ts). */
  claimOwner?: number | null;
}) {
  const sessionGuard = deps.sessionGuard ?? oneSessionPerHold;
  const publicOrigin = new URL(deps.config.publicBaseUrl).origin;

  /**
   * The buyer's returnUrl, resolved against our own site; 422 when it is not a URL or leads off
   * the site (a checkout must not become an open redirect). Pure, so the route checks it before
   * the Idempotency-Key is taken: a refused body stores nothing.
   */
  function checkReturnUrl(requested: string): string {
    const url = URL.canParse(requested, deps.config.publicBaseUrl)
      ? new URL(requested, deps.config.publicBaseUrl)
      : null;
    if (url?.origin !== publicOrigin)
      throw unprocessable('RETURN_URL_NOT_ALLOWED', `returnUrl must be a page on ${publicOrigin}`);
    return url.toString();
  }

  function resolveReturnUrl(showtimeId: number, holdId: string, requested: string | undefined): string {
    if (requested) return checkReturnUrl(requested);
    return new URL(`/showtimes/${showtimeId}?hold=${holdId}`, deps.config.publicBaseUrl).toString();
  }

  async function checkout(input: {
    holdId: string;
    access: AccessClaims;
    idempotencyKey: string;
    returnUrl?: string;
    /** The request's trace, passed on to the gateway (none: the call starts no trace). */
    trace?: TraceContext | null;
  }) {
    const hold = await deps.holds.loadOwnHold(input.holdId, input.access);
    if (hold.status === 'CONFIRMED') throw conflict('HOLD_CONFIRMED', 'This hold has already been paid for');
    if (hold.status === 'CANCELLED') throw conflict('HOLD_CANCELLED', 'This hold was cancelled');
    if (!hold.live) throw holdExpired();
    const showtime = await findShowtime(deps.sql, hold.showtime_id);
    if (!showtime) throw holdExpired();
    return sessionGuard(deps.sql, hold.id, () => openSession(input, hold, showtime), deps.claimOwner ?? null);
  }

  async function openSession(
    input: { access: AccessClaims; idempotencyKey: string; returnUrl?: string; trace?: TraceContext | null },
    hold: Awaited<ReturnType<HoldService['loadOwnHold']>>,
    showtime: NonNullable<Awaited<ReturnType<typeof findShowtime>>>,
  ): Promise<CheckoutSession> {
    const request = paymentSessionRequest(hold, {
      customerId: input.access.customerId,
      idempotencyKey: input.idempotencyKey,
      // Each seat at its fare class's price, general-admission places at theirs.
      amountCents: await holdAmountCents(deps.sql, hold.id, hold.showtime_id),
      currency: showtime.currency,
      returnUrl: resolveReturnUrl(hold.showtime_id, hold.id, input.returnUrl),
      showing: {
        title: showtime.title,
        startsAt: showtime.starts_at,
        venue: showtime.venue_name,
        city: showtime.venue_city,
        hall: showtime.hall_name,
      },
    });
    // The payment window, measured with the database's clock (remaining_ms) like the hold.
    const paymentWindowMs = hold.remaining_ms - (hold.expires_at.getTime() - request.expiresAt.getTime());
    if (paymentWindowMs < MIN_REMAINING_HOLD_MS) throw holdExpired();
    const amountCents = request.amountCents;
    const payment = await deps.gateway.createPayment(request, { trace: input.trace ?? null });
    // The fault suite kills the core here: the gateway has opened the session, the core has not recorded it.
    crashPoint('after-gateway-session');
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

  return { checkout, checkReturnUrl };
}

export type CheckoutService = ReturnType<typeof createCheckoutService>;
