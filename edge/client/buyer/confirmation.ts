/**
 * Back from the payment page at /showtimes/:id?hold=…&status=…. The webhook reaches the core
 * on its own schedule, so the page polls the hold (1 s, then slower) until it is CONFIRMED
 * with a booking id, then shows the booking. A declined payment goes back to the live hold
 * (with a fresh Idempotency-Key for the next attempt).
 */
import { setText, show } from '../core/dom';
import { explain } from '../core/explain';
import { money } from '../core/format';
import { t } from '../core/i18n';
import { bookingCalendar } from '../logic/calendar';
import { rememberBooking } from './booking-store';
import type { SaleFlow } from './flow';
import type { Purchase, SavedHold } from './purchase';

interface Booking {
  bookingId?: string;
  seats?: string[];
  amountCents?: number;
  currency?: string;
}

/** A short reference a person can read out at the door. */
export const bookingReference = (bookingId: string) => `BK-${bookingId.replace(/-/g, '').slice(0, 8).toUpperCase()}`;

export function createConfirmation(flow: SaleFlow, purchase: Purchase) {
  let attempts = 0;

  async function returned(holdId: string, status: string) {
    if (status === 'failed') {
      const result = await purchase.call<SavedHold>('GET', `/api/holds/${holdId}`);
      if (result.ok && result.json?.status === 'ACTIVE') {
        const held: SavedHold = { ...(purchase.savedHold() ?? {}), ...result.json, key: null };
        purchase.saveHold(held);
        purchase.showHold(held);
        flow.alert(t('pay.notCompleted'), true);
        return;
      }
      purchase.saveHold(null);
      return purchase.loadMap(t('pay.holdEnded'));
    }
    flow.go('step-confirm');
    setText('confirm-state', t('confirm.confirming'));
    return check(holdId);
  }

  async function check(holdId: string): Promise<void> {
    attempts++;
    const result = await purchase.call<{ status: string; bookingId?: string }>('GET', `/api/holds/${holdId}`);
    if (result.ok && result.json?.status === 'CONFIRMED' && result.json.bookingId)
      return showBooking(result.json.bookingId);
    if (result.ok && (result.json?.status === 'EXPIRED' || result.json?.status === 'CANCELLED')) {
      purchase.saveHold(null);
      return flow.ended(t('confirm.released.title'), t('confirm.released.text'), true);
    }
    if (!result.ok && result.status !== 0 && result.status < 500 && result.status !== 429) {
      return flow.ended(t('confirm.cannotShow'), explain(result), false);
    }
    if (attempts === 5) setText('confirm-state', t('confirm.stillWaiting'));
    setTimeout(() => void check(holdId), Math.min(5000, 1000 * Math.ceil(attempts / 5)) * (0.8 + Math.random() * 0.4));
  }

  async function showBooking(bookingId: string): Promise<void> {
    const result = await purchase.call<Booking>('GET', `/api/bookings/${bookingId}`);
    if (!result.ok || !result.json) {
      setTimeout(() => void showBooking(bookingId), 1500);
      return;
    }
    const booking = result.json;
    purchase.saveHold(null);
    setText('confirm-state', t('confirm.done'));
    const reference = bookingReference(booking.bookingId ?? bookingId);
    const seats = booking.seats ?? [];
    const paid =
      typeof booking.amountCents === 'number' && booking.currency ? money(booking.amountCents, booking.currency) : '';
    setText('booking-reference', reference);
    setText('booking-seats', seats.join(', '));
    setText('booking-amount', paid);
    const title = flow.root.dataset.title ?? '';
    const startsAt = flow.root.dataset.startsAt ?? '';
    const calendar = document.getElementById('calendar-link') as HTMLAnchorElement | null;
    if (calendar && startsAt)
      calendar.href = URL.createObjectURL(
        new Blob(
          [
            bookingCalendar({
              reference,
              title,
              startsAt,
              seats,
              place: flow.root.dataset.where || undefined,
              description: t('ics.description', { reference, seats: seats.join(', ') }),
            }),
          ],
          { type: 'text/calendar' },
        ),
      );
    rememberBooking({
      reference,
      showtimeId: flow.showtimeId,
      title,
      startsAt,
      seats,
      paid,
      bookedAt: new Date().toISOString(),
    });
    show('booking-details', true);
    flow.title(t('confirm.doneTitle'));
    flow.announce(t('confirm.doneSpoken'));
    document.getElementById('booking-reference')?.focus();
    void offerCancel(booking.bookingId ?? bookingId);
  }

  /**
   * What cancelling would give back, said before the buyer confirms (the showtime's policy, by the
   * server's clock); then the cancel itself. Shown only while the booking can still be cancelled.
   */
  async function offerCancel(bookingId: string) {
    const quote = await purchase.call<{
      cancellable: boolean;
      refundCents: number;
      percent: number;
      amountCents: number;
      currency: string;
    }>('GET', `/api/bookings/${bookingId}/cancellation`);
    if (!quote.ok || !quote.json?.cancellable) return;
    const q = quote.json;
    setText(
      'cancel-quote',
      q.refundCents > 0
        ? t('bookings.quote.refund', {
            refund: money(q.refundCents, q.currency),
            paid: money(q.amountCents, q.currency),
            percent: q.percent,
          })
        : t('bookings.quote.none'),
    );
    show('cancel-booking', true);
    const confirmRow = document.getElementById('cancel-confirm')!;
    document.getElementById('cancel-booking-button')!.onclick = () => {
      confirmRow.hidden = false;
      document.getElementById('cancel-booking-keep')?.focus();
    };
    document.getElementById('cancel-booking-keep')!.onclick = () => {
      confirmRow.hidden = true;
    };
    document.getElementById('cancel-booking-yes')!.onclick = async () => {
      const result = await purchase.call<{ refundCents: number; currency: string }>(
        'DELETE',
        `/api/bookings/${bookingId}`,
      );
      if (!result.ok || !result.json) return flow.alert(explain(result, { action: true }), true);
      show('cancel-booking', false);
      const back =
        result.json.refundCents > 0
          ? t('bookings.refundBack', { amount: money(result.json.refundCents, result.json.currency) })
          : '';
      setText('confirm-state', t('confirm.cancelled', { back }));
      flow.title(t('confirm.cancelledTitle'));
      flow.announce(t('confirm.cancelledSpoken', { back }));
    };
  }

  return { returned };
}
