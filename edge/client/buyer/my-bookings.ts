/**
 * data-module="my-bookings": the buyer's bookings from the ticket service (GET /api/bookings
 * with the customer cookie, so bookings from any turn and any showing are there), newest
 * first, each with what cancelling would give back. Cancelling asks first with the refund the
 * policy gives at that moment (GET …/cancellation), then cancels (DELETE) and says what comes
 * back. When the service cannot be reached, the bookings this browser remembers are shown.
 */
import { api, type ApiResult } from '../core/api';
import { createAnnouncer } from '../core/dom';
import { explain } from '../core/explain';
import { localTime, money } from '../core/format';
import { t } from '../core/i18n';
import { storedBookings } from './booking-store';
import { bookingReference } from './confirmation';

interface ListedBooking {
  bookingId: string;
  showtimeId: number;
  title: string;
  startsAt: string;
  status: 'CONFIRMED' | 'CANCELLED' | 'REFUNDED' | 'FAILED';
  seats: string[];
  fareClass?: string;
  quantity?: number;
  amountCents: number;
  currency: string;
  refundCents?: number;
  cancellable: boolean;
  cancelRefundCents?: number;
  cancelPercent?: number;
}

interface Quote {
  cancellable: boolean;
  refundCents: number;
  percent: number;
  amountCents: number;
  currency: string;
}

const what = (b: ListedBooking) =>
  b.seats.length > 0
    ? t('bookings.seats', { n: b.seats.length, seats: b.seats.join(', ') })
    : t('bookings.places', { quantity: b.quantity ?? 0, area: b.fareClass ?? t('bookings.places.default') });

function statusWords(b: ListedBooking): string {
  switch (b.status) {
    case 'CONFIRMED':
      return t('bookings.status.confirmed');
    case 'CANCELLED':
      return b.refundCents
        ? t('bookings.status.cancelledRefund', { amount: money(b.refundCents, b.currency) })
        : t('bookings.status.cancelled');
    case 'REFUNDED':
      return t('bookings.status.refunded');
    default:
      return t('bookings.status.failed');
  }
}

const quoteWords = (q: { refundCents: number; percent: number; amountCents: number; currency: string }) =>
  q.refundCents > 0
    ? t('bookings.quote.refund', {
        refund: money(q.refundCents, q.currency),
        paid: money(q.amountCents, q.currency),
        percent: q.percent,
      })
    : t('bookings.quote.none');

function paragraph(text: string, className?: string) {
  const p = document.createElement('p');
  p.textContent = text;
  if (className) p.className = className;
  return p;
}

function button(text: string, label: string, primary = false) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = primary ? 'button primary' : 'button';
  b.textContent = text;
  b.setAttribute('aria-label', label);
  return b;
}

export function myBookings(list: HTMLElement) {
  const announcer = createAnnouncer(document.getElementById('bookings-status'));
  const alertBox = document.getElementById('bookings-alert');

  function alert(message: string | null) {
    if (!alertBox) return;
    alertBox.textContent = message ?? '';
    alertBox.hidden = !message;
    if (message) {
      alertBox.tabIndex = -1;
      alertBox.focus();
    }
  }

  function item(b: ListedBooking): HTMLLIElement {
    const li = document.createElement('li');
    li.dataset.bookingId = b.bookingId;
    const reference = bookingReference(b.bookingId);
    const head = document.createElement('p');
    const strong = document.createElement('strong');
    strong.textContent = reference;
    const link = document.createElement('a');
    link.href = `/showtimes/${encodeURIComponent(String(b.showtimeId))}`;
    link.textContent = b.title;
    head.append(
      strong,
      ' · ',
      link,
      t('bookings.line', {
        time: localTime(new Date(b.startsAt), true),
        what: what(b),
        paid: money(b.amountCents, b.currency),
      }),
    );
    li.append(head, paragraph(statusWords(b), 'booking-status'));
    if (b.cancellable) offerCancel(li, b, reference);
    return li;
  }

  /** The refund first, asked again with the server's figure of this moment, then the cancel. */
  function offerCancel(li: HTMLLIElement, b: ListedBooking, reference: string) {
    const quote = paragraph(
      quoteWords({
        refundCents: b.cancelRefundCents ?? 0,
        percent: b.cancelPercent ?? 0,
        amountCents: b.amountCents,
        currency: b.currency,
      }),
      'muted',
    );
    const start = button(t('sale.confirm.cancel'), t('bookings.cancelFor', { reference }));
    const actions = document.createElement('p');
    actions.className = 'actions';
    actions.append(start);
    li.append(quote, actions);
    start.addEventListener('click', async () => {
      start.disabled = true;
      const fresh = await api<Quote>('GET', `/api/bookings/${b.bookingId}/cancellation`);
      start.disabled = false;
      if (!fresh.ok || !fresh.json) return alert(explain(fresh, { action: true }));
      if (!fresh.json.cancellable) {
        alert(t('bookings.notCancellable', { reference }));
        return void reload();
      }
      quote.textContent = quoteWords(fresh.json);
      const yes = button(t('sale.confirm.cancelYes'), t('bookings.yesFor', { reference }), true);
      const keep = button(t('sale.confirm.cancelKeep'), t('bookings.keepFor', { reference }));
      const ask = paragraph(t('bookings.ask', { reference, quote: quoteWords(fresh.json) }));
      ask.id = `confirm-${b.bookingId}`;
      quote.hidden = true;
      actions.replaceChildren(yes, keep);
      actions.before(ask);
      keep.focus();
      keep.addEventListener('click', () => {
        ask.remove();
        quote.hidden = false;
        actions.replaceChildren(start);
        start.focus();
      });
      yes.addEventListener('click', async () => {
        yes.disabled = true;
        const result = await api<{ refundCents: number; currency: string }>('DELETE', `/api/bookings/${b.bookingId}`);
        if (!result.ok || !result.json) {
          yes.disabled = false;
          return alert(explain(result, { action: true }));
        }
        alert(null);
        const back =
          result.json.refundCents > 0
            ? t('bookings.refundBack', { amount: money(result.json.refundCents, result.json.currency) })
            : t('bookings.nothingBack');
        announcer.say(t('bookings.cancelled', { reference, back }));
        const updated = item({ ...b, status: 'CANCELLED', refundCents: result.json.refundCents, cancellable: false });
        li.replaceWith(updated);
        updated.tabIndex = -1;
        updated.focus();
      });
    });
  }

  /** This browser's memo, when the service cannot say (offline, busy). */
  function showRemembered(result: ApiResult<unknown>) {
    const remembered = storedBookings().sort((a, b) => Date.parse(a.startsAt) - Date.parse(b.startsAt));
    announcer.say(t('bookings.remembered', { reason: explain(result) }));
    if (remembered.length === 0) return;
    list.textContent = '';
    for (const booking of remembered) {
      const li = document.createElement('li');
      const link = document.createElement('a');
      link.href = `/showtimes/${encodeURIComponent(booking.showtimeId)}`;
      link.textContent = booking.title;
      const reference = document.createElement('strong');
      reference.textContent = booking.reference;
      li.append(
        reference,
        ' · ',
        link,
        t('bookings.line', {
          time: localTime(new Date(booking.startsAt), true),
          what: t('bookings.seats', { n: booking.seats.length, seats: booking.seats.join(', ') }),
          paid: booking.paid,
        }),
      );
      list.appendChild(li);
    }
  }

  async function reload() {
    const result = await api<{ bookings: ListedBooking[] }>('GET', '/api/bookings');
    if (result.status === 401) {
      list.replaceChildren(Object.assign(document.createElement('li'), { textContent: t('bookings.none') }));
      return announcer.say(t('bookings.noneSpoken'));
    }
    if (!result.ok || !result.json) return showRemembered(result);
    const bookings = result.json.bookings;
    if (bookings.length === 0) {
      list.replaceChildren(Object.assign(document.createElement('li'), { textContent: t('bookings.none') }));
      return announcer.say(t('bookings.noneSpoken'));
    }
    list.replaceChildren(...bookings.map(item));
    announcer.say(t('bookings.count', { n: bookings.length }));
  }

  void reload();
}
