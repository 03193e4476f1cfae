/**
 * The buyer's two pages. `/` lists what is on sale or opening soon; `/showtimes/:id` is one
 * page with a section per step of the sale (only one visible at a time), driven by the
 * components under edge/client/buyer/. The server renders everything a buyer needs to read before any
 * script runs; the scripts only switch sections and fill in live numbers.
 */
import { formatMoney, html, layout, timeElement, type Html } from './html';

export interface PublicShowtime {
  id: number;
  title: string;
  startsAt: string;
  saleState: string;
  opensAt: string;
  seatsAvailable: number;
  seatsTotal?: number;
  priceCents?: number;
  currency?: string;
  venue?: { name: string; city?: string };
  hall?: { name: string };
}

/** "Odeon, Lyon · Salle 1": where the showing is, as much as the core says. */
export function whereWords(s: PublicShowtime): string {
  const venue = s.venue?.name ? [s.venue.name, s.venue.city].filter(Boolean).join(', ') : '';
  return [venue, s.hall?.name ?? ''].filter(Boolean).join(' · ');
}

function wherePara(s: PublicShowtime): Html | string {
  const where = whereWords(s);
  return where ? html`<p class="where">${where}</p>` : '';
}

const SALE_STATE_WORDS: Record<string, string> = {
  on_sale: 'On sale now',
  opening_soon: 'Opening soon',
  sold_out: 'Sold out',
  paused: 'Sales paused',
  closed: 'Sales closed',
  started: 'Already started',
};

export const saleStateWords = (state: string) => SALE_STATE_WORDS[state] ?? state;

function showtimeCard(s: PublicShowtime): Html {
  const seats = s.seatsTotal ? `${s.seatsAvailable} of ${s.seatsTotal} seats left` : `${s.seatsAvailable} ${s.seatsAvailable === 1 ? 'seat' : 'seats'} left`;
  const action = s.saleState === 'on_sale' ? 'Buy tickets' : 'Details';
  return html`<li class="card" data-showtime-id="${s.id}" data-title="${s.title}" data-opens-at="${s.opensAt}">
  <h2><a href="/showtimes/${s.id}">${s.title}</a></h2>
  ${wherePara(s)}
  <p class="when">Starts ${timeElement(s.startsAt)}</p>
  <p><span class="badge badge-${s.saleState}" data-role="badge" data-state="${s.saleState}">${saleStateWords(s.saleState)}</span>
     <span data-role="opening"${s.saleState === 'opening_soon' ? '' : html` hidden`}> · tickets from ${timeElement(s.opensAt)}</span></p>
  <p class="seats-left"><span data-role="seats">${seats}</span>${s.priceCents !== undefined && s.currency ? ` · ${formatMoney(s.priceCents, s.currency)} a seat` : ''}</p>
  <p><a class="button${s.saleState === 'on_sale' ? ' primary' : ''}" data-role="action" href="/showtimes/${s.id}" aria-label="${action} for ${s.title}">${action}</a></p>
</li>`;
}

export function showtimeListPage(showtimes: PublicShowtime[]): Html {
  return layout(
    { title: 'Showtimes · Premiere Tickets', scripts: ['buyer.js'] },
    html`<h1>Showtimes</h1>
${showtimes.length === 0
  ? html`<p class="panel">Nothing is on sale right now. Check back soon.</p>`
  : html`<ul class="cards" data-module="showtime-list" aria-label="Showtimes on sale or opening soon">${showtimes.map(showtimeCard)}</ul>`}`,
  );
}

export interface SalePageState {
  /** The buyer already has a place (queue cookie): poll at once, a refresh keeps the place. */
  joined: boolean;
  /** A customer cookie is present (otherwise joining signs in with the demo login first). */
  customer: boolean;
  returnHold: string | null;
  returnStatus: string | null;
  /** Names this rendering in the leave beacon (see deferred-leave.ts). */
  viewId: string;
  /** How long a turn lasts once admitted (null: not known right now). */
  turnLengthMs?: number | null;
}

/** "When it is your turn, you will have 5 minutes to choose your seats and pay." */
function turnLengthNote(ms: number | null | undefined): Html | string {
  if (!ms || ms <= 0) return '';
  const minutes = Math.round(ms / 60_000);
  const words = minutes >= 1 ? `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}` : `${Math.round(ms / 1000)} seconds`;
  return html`<p class="turn-length">When it is your turn, you will have ${words} to choose your seats and hold them.</p>`;
}

export function salePage(s: PublicShowtime, state: SalePageState): Html {
  const opening = s.saleState === 'opening_soon';
  return layout(
    { title: `${s.title} · Premiere Tickets`, scripts: ['buyer.js'] },
    html`<div id="sale" data-module="sale-page" data-showtime-id="${s.id}" data-opens-at="${s.opensAt}" data-starts-at="${s.startsAt}" data-title="${s.title}" data-sale-state="${s.saleState}"
  data-joined="${state.joined ? '1' : '0'}" data-customer="${state.customer ? '1' : '0'}"
  data-return-hold="${state.returnHold ?? ''}" data-return-status="${state.returnStatus ?? ''}" data-view="${state.viewId}">
<section class="panel show-head" aria-labelledby="show-title">
  <h1 id="show-title">${s.title}</h1>
  ${wherePara(s)}
  <p>Starts ${timeElement(s.startsAt)} · <span id="sale-badge" class="badge badge-${s.saleState}">${saleStateWords(s.saleState)}</span></p>
</section>
<p id="status" class="visually-hidden" role="status" aria-live="polite"></p>
<p id="alert" class="alert" role="alert" hidden></p>

<section id="step-start" class="panel step" aria-labelledby="start-title">
  <h2 id="start-title">${opening ? 'Join the pre-queue' : 'Join the line'}</h2>
  <div id="start-opening"${opening ? '' : html` hidden`}>
  <p>Tickets go on sale at ${timeElement(s.opensAt)}. Everyone who joins before then gets a <strong>random place</strong> in line at that moment, so there is no need to rush.</p>
  <p class="countdown">Opens in <span id="start-countdown">…</span></p>
  </div>
  <p id="start-open"${opening ? html` hidden` : ''}>So that everyone gets a fair chance, buyers are let in a few at a time. Join the line and keep this page open.</p>
  ${turnLengthNote(state.turnLengthMs)}
  <p><button id="join-button" type="button" class="button primary">${opening ? 'Join the pre-queue' : 'Join the line'}</button></p>
</section>

<section id="step-prequeue" class="panel step" aria-labelledby="prequeue-title" hidden>
  <h2 id="prequeue-title">You are in the pre-queue</h2>
  <p>You will get a random place in line at ${timeElement(s.opensAt, 'datetime')}. Keep this page open; it updates by itself.</p>
  <p class="countdown">Opens in <span id="prequeue-countdown">…</span></p>
  <p id="prequeue-length"></p>
</section>

<section id="step-waiting" class="panel step" aria-labelledby="waiting-title" hidden>
  <h2 id="waiting-title">You are in line</h2>
  <p class="position">Your place: <strong id="position">…</strong></p>
  <p id="ahead"></p>
  <p id="line-length"></p>
  <p id="line-seats-left" hidden></p>
  <label for="progress">Progress to the front</label>
  <progress id="progress" max="100" value="2"></progress>
  <p>Estimated wait: <span id="eta">Calculating…</span></p>
  <p id="eta-why" class="muted"></p>
  ${turnLengthNote(state.turnLengthMs)}
  <p id="paused-note" class="note" hidden>The cinema has paused admissions for a moment. You keep your place.</p>
  <p class="muted">Updated <span id="last-updated">—</span>. Keep this page open: leaving it gives up your place.</p>
  <p class="check"><input id="notify-me" type="checkbox"> <label for="notify-me">Notify me when it is my turn (if this tab is in the background)</label></p>
  <p id="queue-id-note" hidden>Your queue id: <strong id="queue-id" class="queue-id"></strong>. If you contact support, give them this id; it tells them your place and nothing else.</p>
</section>

<section id="step-seats" class="panel step" aria-labelledby="seats-title" hidden>
  <h2 id="seats-title">Choose your seats</h2>
  <p><span id="seat-limit"></span> <span id="seats-left"></span> Use the arrow keys to move between seats and Space or Enter to choose.</p>
  <p id="turn-note" class="countdown" hidden>Your turn ends in <span id="turn-countdown">…</span></p>
  <p id="seats-paused-note" class="note" hidden>The cinema has paused sales for a moment. You keep your turn; this page says when sales resume.</p>
  <div id="best-seats"></div>
  <div data-alert-slot></div>
  <div id="map-area">
  <ul class="legend" aria-label="Seat types">
    <li><span class="swatch seat-standard" aria-hidden="true"></span> Standard</li>
    <li><span class="swatch seat-couple" aria-hidden="true"></span> Couple</li>
    <li><span class="swatch seat-accessible" aria-hidden="true"></span> Wheelchair space</li>
    <li><span class="swatch seat-selected" aria-hidden="true"></span> Your choice</li>
    <li><span class="swatch seat-taken" aria-hidden="true"></span> Taken</li>
  </ul>
  <div class="screen" aria-hidden="true">Screen</div>
  <p id="scroll-hint" class="scroll-hint" hidden>Wide hall: scroll the map sideways to see every seat.</p>
  <div class="seat-scroll"><div id="seat-grid" class="seat-grid" role="grid" aria-label="Seat map, screen at the top"></div></div>
  <p class="muted">Couple seats are sold as pairs. Each wheelchair space has a companion seat beside it.</p>
  <p id="selection">No seats chosen yet.</p>
  <p class="actions"><button id="hold-button" type="button" class="button primary" disabled>Hold these seats</button>
    <button id="refresh-map" type="button" class="button">Refresh the map</button></p>
  </div>
  <form id="places-form" class="places" hidden novalidate aria-labelledby="places-title">
    <h3 id="places-title">Places without seat numbers</h3>
    <p><label for="places-class">Area</label> <select id="places-class"></select></p>
    <p><label for="places-quantity">How many places</label>
      <input id="places-quantity" type="number" inputmode="numeric" min="1" max="8" value="1" size="3"></p>
    <p class="actions"><button id="places-button" type="submit" class="button">Hold these places</button></p>
  </form>
</section>

<section id="step-hold" class="panel step" aria-labelledby="hold-title" hidden>
  <h2 id="hold-title">Your seats are held</h2>
  <div data-alert-slot></div>
  <p>Seats: <strong id="held-seats"></strong></p>
  <p id="hold-total-line" hidden>Total: <strong id="hold-total"></strong></p>
  <p class="countdown">Time left to pay: <span id="hold-countdown" role="timer">…</span></p>
  <p id="hold-paused-note" class="note" hidden>The cinema has paused sales for a moment. Your seats stay held until the time above runs out.</p>
  <p id="hold-too-late" class="note" hidden>Too little time is left to get through the payment page. The seats will be released shortly; you can choose again while your turn lasts.</p>
  <p class="actions"><button id="pay-button" type="button" class="button primary">Pay now</button>
    <button id="cancel-button" type="button" class="button">Cancel and release the seats</button></p>
</section>

<section id="step-confirm" class="panel step" aria-labelledby="confirm-title" hidden>
  <h2 id="confirm-title">Your booking</h2>
  <p id="confirm-state">Confirming your payment…</p>
  <div id="booking-details" hidden>
    <p>Booking reference: <strong id="booking-reference" class="reference" tabindex="-1"></strong></p>
    <dl class="summary">
      <dt>Showing</dt><dd>${s.title}, ${timeElement(s.startsAt)}</dd>
      ${whereWords(s) ? html`<dt>Where</dt><dd>${whereWords(s)}</dd>` : ''}
      <dt>Seats</dt><dd id="booking-seats"></dd>
      <dt>Paid</dt><dd id="booking-amount"></dd>
    </dl>
    <p class="actions"><a id="calendar-link" class="button" href="/bookings" download="premiere-tickets-booking.ics">Add to calendar (.ics)</a>
      <a class="button" href="/bookings">My bookings</a></p>
    <div id="cancel-booking" hidden>
      <p id="cancel-quote"></p>
      <p class="actions"><button id="cancel-booking-button" type="button" class="button">Cancel this booking</button></p>
      <p id="cancel-confirm" hidden><button id="cancel-booking-yes" type="button" class="button primary">Yes, cancel it</button>
        <button id="cancel-booking-keep" type="button" class="button">Keep my booking</button></p>
    </div>
  </div>
  <p><a href="/">Back to all showtimes</a></p>
</section>

<section id="step-ended" class="panel step" aria-labelledby="ended-title" hidden>
  <h2 id="ended-title"></h2>
  <p id="ended-text"></p>
  <p><button id="rejoin-button" type="button" class="button primary" hidden>Join the line again</button> <a href="/">Other showtimes</a></p>
</section>
<noscript><p class="panel">This page needs JavaScript to keep your place in line.</p></noscript>
</div>`,
  );
}

/** Bookings made in this browser (kept by the page at confirmation; the server keeps the real ones). */
export function myBookingsPage(): Html {
  return layout(
    { title: 'My bookings · Premiere Tickets', scripts: ['buyer.js'] },
    html`<h1>My bookings</h1>
<section class="panel" aria-labelledby="bookings-note">
  <p id="bookings-note">Your bookings, newest first, from any of your turns. Show the reference at the entrance. You can cancel a booking here until the showing starts; you see what you get back before you confirm.</p>
  <p id="bookings-status" class="muted" role="status"></p>
  <p id="bookings-alert" class="alert" role="alert" hidden></p>
  <ul id="my-bookings" class="bookings" data-module="my-bookings"><li>Loading your bookings…</li></ul>
  <noscript><p>This page needs JavaScript to list your bookings.</p></noscript>
</section>
<p><a href="/">See all showtimes</a></p>`,
  );
}
