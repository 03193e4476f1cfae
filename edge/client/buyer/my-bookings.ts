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
  b.seats.length > 0 ? `${b.seats.length === 1 ? 'seat' : 'seats'} ${b.seats.join(', ')}` : `${b.quantity ?? 0} × ${b.fareClass ?? 'places'}`;

function statusWords(b: ListedBooking): string {
  switch (b.status) {
    case 'CONFIRMED':
      return 'Confirmed';
    case 'CANCELLED':
      return b.refundCents ? `Cancelled: ${money(b.refundCents, b.currency)} is refunded to your payment method` : 'Cancelled, with no refund';
    case 'REFUNDED':
      return 'Refunded in full';
    default:
      return 'Not completed: the payment is refunded';
  }
}

const quoteWords = (q: { refundCents: number; percent: number; amountCents: number; currency: string }) =>
  q.refundCents > 0
    ? `If you cancel now, you get ${money(q.refundCents, q.currency)} back of the ${money(q.amountCents, q.currency)} paid (${q.percent} %).`
    : 'If you cancel now, nothing is refunded (the refund policy gives no money back this close to the showing).';

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
    head.append(strong, ' · ', link, `, ${localTime(new Date(b.startsAt), true)} · ${what(b)} · paid ${money(b.amountCents, b.currency)}`);
    li.append(head, paragraph(statusWords(b), 'booking-status'));
    if (b.cancellable) offerCancel(li, b, reference);
    return li;
  }

  /** The refund first, asked again with the server's figure of this moment, then the cancel. */
  function offerCancel(li: HTMLLIElement, b: ListedBooking, reference: string) {
    const quote = paragraph(quoteWords({ refundCents: b.cancelRefundCents ?? 0, percent: b.cancelPercent ?? 0, amountCents: b.amountCents, currency: b.currency }), 'muted');
    const start = button('Cancel this booking', `Cancel this booking, ${reference}`);
    const actions = document.createElement('p');
    actions.className = 'actions';
    actions.append(start);
    li.append(quote, actions);
    start.addEventListener('click', async () => {
      start.disabled = true;
      const fresh = await api<Quote>('GET', `/api/bookings/${b.bookingId}/cancellation`);
      start.disabled = false;
      if (!fresh.ok || !fresh.json) return alert(explain(fresh));
      if (!fresh.json.cancellable) {
        alert(`${reference} can no longer be cancelled.`);
        return void reload();
      }
      quote.textContent = quoteWords(fresh.json);
      const yes = button('Yes, cancel it', `Yes, cancel it: ${reference}`, true);
      const keep = button('Keep my booking', `Keep my booking ${reference}`);
      const ask = paragraph(`Cancel ${reference}? ${quoteWords(fresh.json)}`);
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
          return alert(explain(result));
        }
        alert(null);
        const back = result.json.refundCents > 0 ? ` ${money(result.json.refundCents, result.json.currency)} will be refunded to your payment method.` : ' Nothing is refunded.';
        announcer.say(`Booking ${reference} is cancelled and its places are released.${back}`);
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
    announcer.say(`${explain(result)} Showing the bookings this browser remembers.`);
    if (remembered.length === 0) return;
    list.textContent = '';
    for (const booking of remembered) {
      const li = document.createElement('li');
      const link = document.createElement('a');
      link.href = `/showtimes/${encodeURIComponent(booking.showtimeId)}`;
      link.textContent = booking.title;
      const reference = document.createElement('strong');
      reference.textContent = booking.reference;
      li.append(reference, ' · ', link, `, ${localTime(new Date(booking.startsAt), true)} · seats ${booking.seats.join(', ')} · paid ${booking.paid}`);
      list.appendChild(li);
    }
  }

  async function reload() {
    const result = await api<{ bookings: ListedBooking[] }>('GET', '/api/bookings');
    if (result.status === 401) {
      list.replaceChildren(Object.assign(document.createElement('li'), { textContent: 'No bookings yet. Bookings appear here once you have bought tickets in this browser.' }));
      return announcer.say('No bookings yet.');
    }
    if (!result.ok || !result.json) return showRemembered(result);
    const bookings = result.json.bookings;
    if (bookings.length === 0) {
      list.replaceChildren(Object.assign(document.createElement('li'), { textContent: 'No bookings yet.' }));
      return announcer.say('No bookings yet.');
    }
    list.replaceChildren(...bookings.map(item));
    announcer.say(`${bookings.length} ${bookings.length === 1 ? 'booking' : 'bookings'}.`);
  }

  void reload();
}
