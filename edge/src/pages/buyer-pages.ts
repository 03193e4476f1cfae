/**
 * The buyer's pages. `/` lists what is on sale or opening soon; `/showtimes/:id` is one
 * page with a section per step of the sale (only one visible at a time), driven by the
 * components under edge/client/buyer/. The server renders everything a buyer needs to read before any
 * script runs, in the buyer's language (lib/i18n); the scripts only switch sections and fill in
 * live numbers, from the same catalogues.
 */
import type { Locale } from '../../../lib/i18n/locale';
import { translator, type MessageKey, type Translate } from '../../../lib/i18n/translate';
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

/** Where the page is shown: its language, and its own path (the language switch comes back to it). */
export interface PageContext {
  locale: Locale;
  path: string;
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

const SALE_STATES = ['on_sale', 'opening_soon', 'sold_out', 'paused', 'closed', 'started'] as const;

export const saleStateWords = (state: string, t: Translate = translator('en')) =>
  (SALE_STATES as readonly string[]).includes(state) ? t(`state.${state as (typeof SALE_STATES)[number]}`) : state;

/** A catalogue sentence with a <time> element where its `{time}` is. */
function withTime(t: Translate, key: MessageKey, time: Html): Html {
  const [before, after] = t(key, { time: '\u0000' }).split('\u0000');
  return html`${before ?? ''}${time}${after ?? ''}`;
}

function showtimeCard(s: PublicShowtime, t: Translate, locale: Locale): Html {
  const seats = s.seatsTotal
    ? t('list.seatsOf', { available: s.seatsAvailable, total: s.seatsTotal })
    : t('list.seatsLeft', { n: s.seatsAvailable });
  const action = s.saleState === 'on_sale' ? t('list.buy') : t('list.details');
  return html`<li class="card" data-showtime-id="${s.id}" data-title="${s.title}" data-opens-at="${s.opensAt}">
  <h2><a href="/showtimes/${s.id}">${s.title}</a></h2>
  ${wherePara(s)}
  <p class="when">${withTime(t, 'list.starts', timeElement(s.startsAt))}</p>
  <p><span class="badge badge-${s.saleState}" data-role="badge" data-state="${s.saleState}">${saleStateWords(s.saleState, t)}</span>
     <span data-role="opening"${s.saleState === 'opening_soon' ? '' : html` hidden`}> · ${withTime(t, 'list.ticketsFrom', timeElement(s.opensAt))}</span></p>
  <p class="seats-left"><span data-role="seats">${seats}</span>${s.priceCents !== undefined && s.currency ? ` · ${t('list.price', { price: formatMoney(s.priceCents, s.currency, locale) })}` : ''}</p>
  <p><a class="button${s.saleState === 'on_sale' ? ' primary' : ''}" data-role="action" href="/showtimes/${s.id}" aria-label="${t('list.actionFor', { action, title: s.title })}">${action}</a></p>
</li>`;
}

export function showtimeListPage(showtimes: PublicShowtime[], page: PageContext): Html {
  const t = translator(page.locale);
  return layout(
    {
      title: `${t('list.title')} · ${t('site.name')}`,
      scripts: ['buyer.js'],
      locale: page.locale,
      languageSwitch: page.path,
    },
    html`<h1>${t('list.title')}</h1>
${
  showtimes.length === 0
    ? html`<p class="panel">${t('list.empty')}</p>`
    : html`<ul class="cards" data-module="showtime-list" aria-label="${t('list.label')}">${showtimes.map((s) => showtimeCard(s, t, page.locale))}</ul>`
}`,
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

/** "When it is your turn, you will have 5 minutes to choose your seats and hold them." */
function turnLengthNote(ms: number | null | undefined, t: Translate): Html | string {
  if (!ms || ms <= 0) return '';
  const minutes = Math.round(ms / 60_000);
  const words = minutes >= 1 ? t('time.minutes', { n: minutes }) : t('time.seconds', { n: Math.round(ms / 1000) });
  return html`<p class="turn-length">${t('sale.turnLength', { length: words })}</p>`;
}

export function salePage(s: PublicShowtime, state: SalePageState, page: PageContext): Html {
  const opening = s.saleState === 'opening_soon';
  const t = translator(page.locale);
  const where = whereWords(s);
  return layout(
    { title: `${s.title} · ${t('site.name')}`, scripts: ['buyer.js'], locale: page.locale, languageSwitch: page.path },
    html`<div id="sale" data-module="sale-page" data-showtime-id="${s.id}" data-opens-at="${s.opensAt}" data-starts-at="${s.startsAt}" data-title="${s.title}" data-where="${where}" data-sale-state="${s.saleState}"
  data-joined="${state.joined ? '1' : '0'}" data-customer="${state.customer ? '1' : '0'}"
  data-return-hold="${state.returnHold ?? ''}" data-return-status="${state.returnStatus ?? ''}" data-view="${state.viewId}">
<section class="panel show-head" aria-labelledby="show-title">
  <h1 id="show-title">${s.title}</h1>
  ${wherePara(s)}
  <p>${t('sale.starts')} ${timeElement(s.startsAt)} · <span id="sale-badge" class="badge badge-${s.saleState}">${saleStateWords(s.saleState, t)}</span></p>
</section>
<p id="status" class="visually-hidden" role="status" aria-live="polite"></p>
<p id="alert" class="alert" role="alert" hidden></p>

<section id="step-start" class="panel step" aria-labelledby="start-title">
  <h2 id="start-title">${opening ? t('sale.joinPrequeue') : t('sale.joinLine')}</h2>
  <div id="start-opening"${opening ? '' : html` hidden`}>
  <p>${withTime(t, 'sale.opensAt', timeElement(s.opensAt))}</p>
  <p class="countdown">${t('sale.opensIn')} <span id="start-countdown">…</span></p>
  </div>
  <p id="start-open"${opening ? html` hidden` : ''}>${t('sale.fairChance')}</p>
  ${turnLengthNote(state.turnLengthMs, t)}
  <p><button id="join-button" type="button" class="button primary">${opening ? t('sale.joinPrequeue') : t('sale.joinLine')}</button></p>
</section>

<section id="step-prequeue" class="panel step" aria-labelledby="prequeue-title" hidden>
  <h2 id="prequeue-title">${t('sale.prequeue.title')}</h2>
  <p>${withTime(t, 'sale.prequeue.text', timeElement(s.opensAt, 'datetime'))}</p>
  <p class="countdown">${t('sale.opensIn')} <span id="prequeue-countdown">…</span></p>
  <p id="prequeue-length"></p>
</section>

<section id="step-waiting" class="panel step" aria-labelledby="waiting-title" hidden>
  <h2 id="waiting-title">${t('sale.waiting.title')}</h2>
  <p class="position">${t('sale.waiting.place')} <strong id="position">…</strong></p>
  <p id="ahead"></p>
  <p id="line-length"></p>
  <p id="line-seats-left" hidden></p>
  <label for="progress">${t('sale.waiting.progress')}</label>
  <progress id="progress" max="100" value="2"></progress>
  <p>${t('sale.waiting.eta')} <span id="eta">${t('sale.waiting.calculating')}</span></p>
  <p id="eta-why" class="muted"></p>
  ${turnLengthNote(state.turnLengthMs, t)}
  <p id="paused-note" class="note" hidden>${t('sale.waiting.paused')}</p>
  <p class="muted">${t('sale.waiting.updated')} <span id="last-updated">—</span>. ${t('sale.waiting.keepOpen')}</p>
  <p class="check"><input id="notify-me" type="checkbox"> <label for="notify-me">${t('sale.waiting.notify')}</label></p>
  <p id="queue-id-note" hidden>${t('sale.waiting.queueId')} <strong id="queue-id" class="queue-id"></strong>. ${t('sale.waiting.queueIdWhy')}</p>
</section>

<p id="receipt-note" class="muted" hidden>${t('sale.receipt.text')} <a id="receipt-download" href="#">${t('sale.receipt.download')}</a> · <a id="receipt-check" href="/fairness">${t('site.checkPlace')}</a></p>

<section id="step-seats" class="panel step" aria-labelledby="seats-title" hidden>
  <h2 id="seats-title">${t('sale.seats.title')}</h2>
  <p><span id="seat-limit"></span> <span id="seats-left"></span> ${t('sale.seats.keys')}</p>
  <p id="turn-note" class="countdown" hidden>${t('sale.seats.turnEnds')} <span id="turn-countdown">…</span></p>
  <p id="seats-paused-note" class="note" hidden>${t('sale.seats.paused')}</p>
  <div id="best-seats"></div>
  <div data-alert-slot></div>
  <div id="map-area">
  <ul class="legend" aria-label="${t('sale.seats.legend')}">
    <li><span class="swatch seat-standard" aria-hidden="true"></span> ${t('sale.seats.standard')}</li>
    <li><span class="swatch seat-couple" aria-hidden="true"></span> ${t('sale.seats.couple')}</li>
    <li><span class="swatch seat-accessible" aria-hidden="true"></span> ${t('sale.seats.wheelchair')}</li>
    <li><span class="swatch seat-selected" aria-hidden="true"></span> ${t('sale.seats.yours')}</li>
    <li><span class="swatch seat-taken" aria-hidden="true"></span> ${t('sale.seats.taken')}</li>
  </ul>
  <div class="screen" aria-hidden="true">${t('sale.seats.screen')}</div>
  <p id="scroll-hint" class="scroll-hint" hidden>${t('sale.seats.wide')}</p>
  <div class="seat-scroll"><div id="seat-grid" class="seat-grid" role="grid" aria-label="${t('sale.seats.map')}"></div></div>
  <p class="muted">${t('sale.seats.pairs')}</p>
  <p id="selection">${t('sale.seats.none')}</p>
  <p class="actions"><button id="hold-button" type="button" class="button primary" disabled>${t('sale.seats.hold')}</button>
    <button id="refresh-map" type="button" class="button">${t('sale.seats.refresh')}</button></p>
  </div>
  <form id="places-form" class="places" hidden novalidate aria-labelledby="places-title">
    <h3 id="places-title">${t('sale.places.title')}</h3>
    <p><label for="places-class">${t('sale.places.area')}</label> <select id="places-class"></select></p>
    <p><label for="places-quantity">${t('sale.places.howMany')}</label>
      <input id="places-quantity" type="number" inputmode="numeric" min="1" max="8" value="1" size="3"></p>
    <p class="actions"><button id="places-button" type="submit" class="button">${t('sale.places.hold')}</button></p>
  </form>
</section>

<section id="step-hold" class="panel step" aria-labelledby="hold-title" hidden>
  <h2 id="hold-title">${t('sale.hold.title')}</h2>
  <div data-alert-slot></div>
  <p>${t('sale.hold.seats')} <strong id="held-seats"></strong></p>
  <p id="hold-total-line" hidden>${t('sale.hold.total')} <strong id="hold-total"></strong></p>
  <p class="countdown"><span id="hold-countdown-label">${t('hold.countdown.pay')}</span> <span id="hold-countdown" role="timer">…</span></p>
  <p id="hold-paused-note" class="note" hidden>${t('sale.hold.paused')}</p>
  <p id="hold-too-late" class="note" hidden>${t('sale.hold.tooLate')}</p>
  <p class="actions"><button id="pay-button" type="button" class="button primary">${t('sale.hold.pay')}</button>
    <button id="cancel-button" type="button" class="button">${t('sale.hold.cancel')}</button></p>
</section>

<section id="step-confirm" class="panel step" aria-labelledby="confirm-title" hidden>
  <h2 id="confirm-title">${t('sale.confirm.title')}</h2>
  <p id="confirm-state">${t('confirm.confirming')}</p>
  <div id="booking-details" hidden>
    <p>${t('sale.confirm.reference')} <strong id="booking-reference" class="reference" tabindex="-1"></strong></p>
    <dl class="summary">
      <dt>${t('sale.confirm.showing')}</dt><dd>${s.title}, ${timeElement(s.startsAt)}</dd>
      ${where ? html`<dt>${t('sale.confirm.where')}</dt><dd>${where}</dd>` : ''}
      <dt>${t('sale.confirm.seats')}</dt><dd id="booking-seats"></dd>
      <dt>${t('sale.confirm.paid')}</dt><dd id="booking-amount"></dd>
    </dl>
    <p class="actions"><a id="calendar-link" class="button" href="/bookings" download="${t('ics.filename')}">${t('sale.confirm.calendar')}</a>
      <a class="button" href="/bookings">${t('site.myBookings')}</a></p>
    <div id="cancel-booking" hidden>
      <p id="cancel-quote"></p>
      <p class="actions"><button id="cancel-booking-button" type="button" class="button">${t('sale.confirm.cancel')}</button></p>
      <p id="cancel-confirm" hidden><button id="cancel-booking-yes" type="button" class="button primary">${t('sale.confirm.cancelYes')}</button>
        <button id="cancel-booking-keep" type="button" class="button">${t('sale.confirm.cancelKeep')}</button></p>
    </div>
  </div>
  <p><a href="/">${t('sale.confirm.back')}</a></p>
</section>

<section id="step-ended" class="panel step" aria-labelledby="ended-title" hidden>
  <h2 id="ended-title"></h2>
  <p id="ended-text"></p>
  <p><button id="rejoin-button" type="button" class="button primary" hidden>${t('sale.ended.rejoin')}</button> <a href="/">${t('sale.ended.others')}</a></p>
</section>
<noscript><p class="panel">${t('page.needsScript')}</p></noscript>
</div>`,
  );
}

/** The buyer's bookings (from the service; this browser's memo when it cannot be reached). */
export function myBookingsPage(page: PageContext): Html {
  const t = translator(page.locale);
  return layout(
    {
      title: `${t('bookings.title')} · ${t('site.name')}`,
      scripts: ['buyer.js'],
      locale: page.locale,
      languageSwitch: page.path,
    },
    html`<h1>${t('bookings.title')}</h1>
<section class="panel" aria-labelledby="bookings-note">
  <p id="bookings-note">${t('bookings.note')}</p>
  <p id="bookings-status" class="visually-hidden" role="status"></p>
  <p id="bookings-alert" class="alert" role="alert" hidden></p>
  <ul id="my-bookings" class="bookings" data-module="my-bookings"><li>${t('bookings.loading')}</li></ul>
  <noscript><p>${t('bookings.needsScript')}</p></noscript>
</section>
<p><a href="/">${t('page.allShowtimes')}</a></p>`,
  );
}
