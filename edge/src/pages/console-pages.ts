/**
 * The operator console's pages: sign-in, the rooms list, and one room with live numbers,
 * charts, controls and the audit log (filled in and kept live by the room-console component
 * under edge/client/operator/).
 */
import { html, layout, timeElement, type Html } from './html';
import { saleStateWords, type PublicShowtime } from './buyer-pages';
import { admissionPanel } from './admission-panel';
import { settingsInputs } from './settings-inputs';

/** `csrf`: the signed-in session's token, sent back by the sign-out form; null when signed out. */
const consoleLayout = (title: string, body: Html, csrf: string | null) =>
  layout(
    {
      title: `${title} · Operator console`,
      area: 'Operator console',
      homeHref: '/admin',
      scripts: ['operator.js'],
      // The buyers' footer (about the fair queue) is not for operators.
      footer: false,
      ...(csrf !== null
        ? {
            headerExtra: html`<form method="post" action="/admin/logout"><input type="hidden" name="csrf" value="${csrf}"><button class="button small" type="submit">Sign out</button></form>`,
          }
        : {}),
    },
    body,
  );

/** `operator`: the name typed before a refused attempt, kept so only the token is typed again. */
export function loginPage(error: string | null, operator = ''): Html {
  return consoleLayout(
    'Sign in',
    html`<section class="panel" aria-labelledby="login-title">
  <h1 id="login-title">Operator sign-in</h1>
  ${error ? html`<p class="alert" role="alert">${error}</p>` : ''}
  <form method="post" action="/admin/login" class="form-grid">
    <div><label for="token">Admin token</label><input id="token" name="token" type="password" autocomplete="current-password" required></div>
    <div><label for="operator">Your name (for the audit log)</label><input id="operator" name="operator" type="text" autocomplete="name" maxlength="64" value="${operator}"></div>
    <div><button class="button primary" type="submit">Sign in</button></div>
  </form>
</section>`,
    null,
  );
}

export interface RoomSummary {
  showtime: PublicShowtime;
  room: { state: string; capacity: number; waiting: number; active: number; admittedPerMinute: number } | null;
}

export function roomsPage(rooms: RoomSummary[], unavailable: boolean, csrf: string): Html {
  return consoleLayout(
    'Rooms',
    html`<h1>Waiting rooms</h1>
${unavailable ? html`<p class="alert" role="alert">The room store is not answering; live numbers are missing. Try again shortly.</p>` : ''}
<div class="table-scroll panel"><table>
<caption class="visually-hidden">Showtimes and their waiting rooms</caption>
<thead><tr><th scope="col">Showtime</th><th scope="col">Starts</th><th scope="col">Sale</th><th scope="col">Room</th><th scope="col">Waiting</th><th scope="col">Active / capacity</th><th scope="col">Admitted per minute</th></tr></thead>
<tbody>
${rooms.map(
  ({ showtime: s, room }) => html`<tr>
  <td><a href="/admin/showtimes/${s.id}">${s.title}</a></td>
  <td>${s.startsAt ? timeElement(s.startsAt) : '—'}</td>
  <td>${s.saleState === 'unlisted' ? 'no longer listed for sale' : `${saleStateWords(s.saleState)} (${s.seatsAvailable} seats available)`}</td>
  <td>${room ? html`<span class="badge badge-${room.state}">${room.state}</span>` : 'not created yet (opens with the first buyer)'}</td>
  <td>${room ? room.waiting : '—'}</td>
  <td>${room ? `${room.active} / ${room.capacity}` : '—'}</td>
  <td>${room ? room.admittedPerMinute : '—'}</td>
</tr>`,
)}
</tbody></table></div>`,
    csrf,
  );
}

const TILES: [string, string, boolean][] = [
  ['waiting', 'Waiting', true],
  ['offered', 'Offered', false],
  ['active', 'Active', true],
  ['admittedPerMinute', 'Admitted per minute', true],
  ['abandoned', 'Abandoned', false],
  ['etaLast', 'ETA of the last in line', false],
  ['turn', 'A turn lasts', false],
  ['seatsAvailable', 'Seats available', true],
  ['seatsHeld', 'Seats held', true],
  ['seatsBooked', 'Seats booked', true],
  ['holdConflicts', 'Hold conflicts per minute', true],
  ['rateLimited', 'Rate-limited per minute', true],
  ['pow', 'Proof of work at join', false],
];

/** The sale's own settings at the core, shown and changed beside the room's. */
export interface SaleSettingsView {
  holdTtlSeconds: number;
  maxSeatsPerCustomer: number;
}

/** The admission log's head as the core publishes it (GET /showtimes/:id/fairness); null when it did not answer. */
export interface FairnessHeadView {
  commitment: string;
  head: { seq: number; hash: string };
  ended: boolean;
}

export function roomPage(
  s: PublicShowtime,
  operator: string | null,
  csrf: string,
  sale: SaleSettingsView | null = null,
  fairness: FairnessHeadView | null = null,
): Html {
  return consoleLayout(
    s.title,
    html`<div id="console" data-module="room-console" data-showtime-id="${s.id}" data-operator="${operator ?? ''}">
<p><a href="/admin">← All rooms</a> · <a href="/admin/showtimes/${s.id}/fares">Fares and refunds</a></p>
<h1>${s.title} <span id="room-state" class="badge">…</span></h1>
<p>${s.startsAt ? html`Starts ${timeElement(s.startsAt)}. ` : ''}<span id="live" class="live">Connecting…</span></p>
<p id="console-status" class="console-status" role="status" aria-live="polite"></p>
<p id="console-alert" class="alert" role="alert" hidden></p>

<section aria-labelledby="numbers-title">
<h2 id="numbers-title">Live numbers</h2>
<dl class="tiles">
${TILES.map(
  ([key, label, chart]) => html`<div class="tile"><dt id="label-${key}">${label}</dt><dd id="v-${key}">—</dd>
${
  chart
    ? html`<dd><svg class="spark" id="chart-${key}" viewBox="0 0 120 30" preserveAspectRatio="none" role="img" aria-label="${label}, last minutes"><line class="axis-line" x1="0" y1="29.5" x2="120" y2="29.5"></line><line class="axis-line" x1="0.5" y1="0" x2="0.5" y2="30"></line><polyline points=""></polyline></svg></dd>
<dd class="axis" id="axis-${key}">waiting for data</dd>`
    : ''
}</div>`,
)}
</dl>
</section>

${admissionPanel()}

<section class="panel" aria-labelledby="controls-title">
<h2 id="controls-title">Controls</h2>
<form id="settings-form" class="form-grid" novalidate>
  ${settingsInputs('room')}
  <div><button class="button primary" type="submit">Apply settings</button></div>
</form>
<h3 id="protection-title">Join protection and purchase limits</h3>
<form id="protection-form" class="form-grid" novalidate aria-labelledby="protection-title">
  ${settingsInputs('protection')}
  <div><button class="button" type="submit">Apply protection and limits</button></div>
</form>
${
  sale
    ? html`<form id="sale-form" class="form-grid" novalidate>
  <div><label for="holdTtlSeconds">Time to pay for held seats (seconds)</label><input id="holdTtlSeconds" name="holdTtlSeconds" type="number" min="10" max="3600" step="1" required value="${sale.holdTtlSeconds}"></div>
  <div><label for="maxSeatsPerCustomer">Seats per customer</label><input id="maxSeatsPerCustomer" name="maxSeatsPerCustomer" type="number" min="1" max="50" step="1" required value="${sale.maxSeatsPerCustomer}"></div>
  <div><button class="button" type="submit">Apply sale settings</button></div>
</form>`
    : ''
}
<p class="actions">
  <button class="button" type="button" data-state="paused">Pause admissions</button>
  <button class="button" type="button" data-state="open">Resume (open)</button>
  <button class="button danger" type="button" data-state="closed">Close the sale</button>
</p>
<p class="muted" id="state-hint">Pausing stops admissions: people in line keep their places and are told; buyers already choosing seats keep their turn and may still buy. Closing ends every turn at once and tells the line the sale is over.</p>
<form id="opening-form" class="form-grid" novalidate>
  <div><label for="opensAt">Opening time (your local time)</label><input id="opensAt" name="opensAt" type="datetime-local" step="1" required></div>
  <div><button class="button" type="submit">Schedule the opening (pre-queue until then)</button></div>
</form>
</section>

<section class="panel" aria-labelledby="queue-id-title" data-module="queue-id-search" data-showtime-id="${s.id}">
<h2 id="queue-id-title">Find a buyer by queue id</h2>
<form class="form-grid" novalidate>
  <div><label for="queue-id-input">Queue id the buyer reads out</label><input id="queue-id-input" name="queueId" type="text" autocomplete="off" spellcheck="false" maxlength="32" placeholder="K7QM-2XPD"></div>
  <div><button class="button" type="submit">Find</button></div>
</form>
<p id="queue-id-result" role="status"></p>
</section>

<section class="panel" aria-labelledby="fairness-title">
<h2 id="fairness-title">Fair draw</h2>
<p>Commitment (SHA-256 of the seed, published before opening): <code id="seed-hash">—</code></p>
<p>Shuffle seed: <code id="seed">revealed after the opening draw</code></p>
${
  fairness
    ? html`<p>Admission log (PostgreSQL, hash-chained): <span id="log-head-seq">${fairness.head.seq}</span> entries, head <code id="log-head">${fairness.head.hash}</code> (as of this page's load). ${fairness.ended ? 'The sale has ended: log, salt and seed are published' : 'Published live: the head; after the sale: log, salt and seed'} at <a href="/api/showtimes/${s.id}/fairness">/api/showtimes/${s.id}/fairness</a>.</p>`
    : html`<p>Admission log: <span id="log-head-seq">not available</span> (the seat service did not answer).</p>`
}
</section>

<section class="panel" aria-labelledby="audit-title">
<h2 id="audit-title">Audit log</h2>
<div class="table-scroll"><table>
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What changed</th></tr></thead>
<tbody id="audit-rows"><tr><td colspan="3">Loading…</td></tr></tbody>
</table></div>
</section>

<dialog id="confirm-dialog" aria-labelledby="confirm-title" aria-describedby="confirm-text">
  <h2 id="confirm-title">Confirm the change</h2>
  <p id="confirm-text"></p>
  <form method="dialog" class="actions">
    <button class="button primary" value="yes" id="confirm-yes">Yes, apply it</button>
    <button class="button" value="no" id="confirm-no">Cancel</button>
  </form>
</dialog>
</div>`,
    csrf,
  );
}
