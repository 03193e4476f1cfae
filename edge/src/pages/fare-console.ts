/**
 * The console's "Fares and refunds" page of one showtime: its classes with prices, places,
 * overbooking and live counts, a form to change a class or add a standing area, a form to move
 * seats between classes, and the refund policy for buyer cancellations. Rendered from the
 * core's admin API with what is true now; the fare-console component (edge/client/operator/)
 * keeps the counts live and sends changes through the operator API (/api/admin/…, session
 * cookie plus X-Console: 1), so every change lands in the audit log.
 */
import { Hono, type Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { CoreClient } from '../core-client';
import { SHOWTIME_ID, type EdgeEnv } from '../http-context';
import { ADMIN_COOKIE, type ConsoleSessions } from './admin-session';
import { formatMoney, html, layout, messagePage, pageHeaders, timeElement, type Html } from './html';

interface FareClassView {
  fareClass: string;
  label: string;
  priceCents: number;
  ownPrice: boolean;
  seated: boolean;
  buckets: number;
  capacity: number;
  overbookLimit: number;
  sold: number;
  held: number;
  heldLapsed: number;
  available: number;
}

interface ShowtimeView {
  id: number;
  title: string;
  startsAt: string;
  priceCents: number;
  currency: string;
}

interface RefundTier {
  beforeStartMinutes: number;
  percent: number;
}

/** The console's frame (as console-pages.ts draws it): no buyer footer, the sign-out form. */
const consoleLayout = (title: string, body: Html, csrf: string) =>
  layout(
    {
      title: `${title} · Operator console`,
      area: 'Operator console',
      homeHref: '/admin',
      scripts: ['operator.js'],
      footer: false,
      headerExtra: html`<form method="post" action="/admin/logout"><input type="hidden" name="csrf" value="${csrf}"><button class="button small" type="submit">Sign out</button></form>`,
    },
    body,
  );

const hours = (minutes: number) => String(Math.round((minutes / 60) * 100) / 100);

export function fareRows(classes: FareClassView[], currency: string): Html {
  return html`${classes.map(
    (f) => html`<tr data-fare-class="${f.fareClass}">
  <th scope="row">${f.label} <span class="muted">(${f.fareClass})</span></th>
  <td>${f.seated ? 'seats' : 'standing places'}</td>
  <td>${formatMoney(f.priceCents, currency)}${f.ownPrice ? '' : html` <span class="muted">(showing's price)</span>`}</td>
  <td>${f.capacity}</td>
  <td>${f.seated ? '—' : f.overbookLimit}</td>
  <td data-count="sold">${f.sold}</td>
  <td data-count="held">${f.held}</td>
  <td data-count="heldLapsed">${f.heldLapsed}</td>
  <td data-count="available">${f.available}</td>
  <td><button class="button small" type="button" data-edit="${f.fareClass}" aria-label="Change ${f.label}">Change</button></td>
</tr>`,
  )}`;
}

export function farePage(showtime: ShowtimeView, classes: FareClassView[], tiers: RefundTier[], csrf: string): Html {
  const rows = [...tiers, { beforeStartMinutes: -1, percent: -1 }];
  return consoleLayout(
    `Fares and refunds · ${showtime.title}`,
    html`<div id="fare-console" data-module="fare-console" data-showtime-id="${showtime.id}" data-currency="${showtime.currency}" data-classes="${JSON.stringify(classes)}">
<p><a href="/admin">← All rooms</a> · <a href="/admin/showtimes/${showtime.id}">Room and sale</a></p>
<h1>Fares and refunds: ${showtime.title}</h1>
<p>Starts ${timeElement(showtime.startsAt)}. The showing's own price is ${formatMoney(showtime.priceCents, showtime.currency)}. <span id="fares-live" class="live" role="status">Counts as the page loaded.</span></p>
<p id="fares-alert" class="alert" role="alert" hidden></p>

<section class="panel" aria-labelledby="classes-title">
<h2 id="classes-title">Classes</h2>
<p class="muted">Held counts live holds; "held, lapsed" are places of holds that ran out and go back to sale with the next hold that needs them. Overbooking is only for standing places: a seat number is never sold twice.</p>
<div class="table-scroll"><table>
<caption class="visually-hidden">Fare classes with prices, places and live counts</caption>
<thead><tr><th scope="col">Class</th><th scope="col">Sold as</th><th scope="col">Price</th><th scope="col">Places</th><th scope="col">Overbooking</th><th scope="col">Sold</th><th scope="col">Held</th><th scope="col">Held, lapsed</th><th scope="col">Available</th><th scope="col">Change</th></tr></thead>
<tbody id="fare-rows">${fareRows(classes, showtime.currency)}</tbody>
</table></div>
</section>

<section class="panel" aria-labelledby="fare-form-title">
<h2 id="fare-form-title" tabindex="-1">Change a class or add a standing area</h2>
<form id="fare-form" class="form-grid" novalidate>
  <div><label for="fareClass">Class</label><select id="fareClass" name="fareClass">
    ${classes.map((f) => html`<option value="${f.fareClass}">${f.label} (${f.fareClass})</option>`)}
    <option value="">A new standing area…</option>
  </select></div>
  <div id="new-code-field" hidden><label for="newCode">Code of the new area (capital letters, such as GA_FLOOR)</label><input id="newCode" name="newCode" type="text" maxlength="16" autocomplete="off" spellcheck="false"></div>
  <div><label for="fareLabel">Name buyers see</label><input id="fareLabel" name="label" type="text" maxlength="64" required></div>
  <div><label for="farePrice">Price in ${showtime.currency} (empty: the showing's price)</label><input id="farePrice" name="price" type="text" inputmode="decimal" autocomplete="off"></div>
  <div><label for="fareCapacity">Places</label><input id="fareCapacity" name="capacity" type="number" min="0" max="1000000" step="1"></div>
  <div><label for="fareOverbook">Overbooking limit (places sold beyond that)</label><input id="fareOverbook" name="overbookLimit" type="number" min="0" max="1000000" step="1"></div>
  <div><label for="fareBuckets">Counter rows (more rows spread a rush; 1 to 64)</label><input id="fareBuckets" name="buckets" type="number" min="1" max="64" step="1"></div>
  <div><button class="button primary" type="submit">Save the class</button></div>
</form>
<p class="muted" id="seated-hint" hidden>A seated class sells its seats: its places are its seat count and it cannot be overbooked. Move seats below to change its size.</p>
</section>

<section class="panel" aria-labelledby="seats-title">
<h2 id="seats-title">Move seats to another class</h2>
<form id="seat-class-form" class="form-grid" novalidate>
  <div><label for="seatCodes">Seats (such as A1, A2, A3)</label><input id="seatCodes" name="seats" type="text" autocomplete="off" spellcheck="false"></div>
  <div><label for="targetClass">To the seated class (a new code creates it)</label><input id="targetClass" name="fareClass" type="text" maxlength="16" autocomplete="off" spellcheck="false" list="seated-classes"></div>
  <div><button class="button" type="submit">Move the seats</button></div>
</form>
<datalist id="seated-classes">${classes.filter((f) => f.seated).map((f) => html`<option value="${f.fareClass}"></option>`)}</datalist>
<p class="muted">Only free seats move, all or none: seats someone holds or bought keep their class.</p>
</section>

<section class="panel" aria-labelledby="policy-title">
<h2 id="policy-title">Refund policy for cancellations</h2>
<p id="policy-summary">Buyers see what they will get back before they confirm a cancellation.</p>
<form id="policy-form" novalidate>
<div class="table-scroll"><table>
<caption class="visually-hidden">Refund steps: from how long before the start, how much back</caption>
<thead><tr><th scope="col">From this long before the start (hours)</th><th scope="col">Refund (percent)</th></tr></thead>
<tbody id="policy-rows">
${rows.map(
  (t, i) => html`<tr>
  <td><label class="visually-hidden" for="hours-${i}">Step ${i + 1}: hours before the start</label><input id="hours-${i}" data-hours type="text" inputmode="decimal" value="${t.beforeStartMinutes >= 0 ? hours(t.beforeStartMinutes) : ''}"></td>
  <td><label class="visually-hidden" for="percent-${i}">Step ${i + 1}: percent back</label><input id="percent-${i}" data-percent type="number" min="0" max="100" step="1" value="${t.percent >= 0 ? String(t.percent) : ''}"></td>
</tr>`,
)}
</tbody></table></div>
<p class="muted">Leave a row empty to remove it. After the last step nothing is given back; once the showing has started nobody can cancel.</p>
<p class="actions"><button class="button" type="button" id="add-step">Add a step</button><button class="button primary" type="submit">Save the policy</button></p>
</form>
</section>

<dialog id="fare-confirm" aria-labelledby="fare-confirm-title" aria-describedby="fare-confirm-text">
  <h2 id="fare-confirm-title">Confirm the change</h2>
  <p id="fare-confirm-text"></p>
  <form method="dialog" class="actions">
    <button class="button primary" value="yes" id="fare-confirm-yes">Yes, apply it</button>
    <button class="button" value="no" id="fare-confirm-no">Cancel</button>
  </form>
</dialog>
</div>`,
    csrf,
  );
}

export interface FareConsoleDeps {
  core: CoreClient;
  sessions: ConsoleSessions;
}

/** GET /admin/showtimes/:id/fares: the page, for a signed-in operator. */
export function fareConsoleRoutes(deps: FareConsoleDeps) {
  const app = new Hono<EdgeEnv>();
  const signedIn = (c: Context) => deps.sessions.find(getCookie(c, ADMIN_COOKIE)).catch(() => null);

  app.get('/admin/showtimes/:id/fares', async (c) => {
    pageHeaders(c);
    const session = await signedIn(c);
    if (!session) return c.redirect('/admin', 303);
    const id = c.req.param('id');
    const missing = () =>
      c.html(
        messagePage('Showtime not found', 'No showtime has this number.', { href: '/admin', label: 'All rooms' }),
        404,
      );
    if (!SHOWTIME_ID.test(id)) return missing();
    const [showtime, fares, policy] = await Promise.all([
      deps.core.adminJson<ShowtimeView>('GET', `/admin/showtimes/${id}`),
      deps.core.adminJson<{ fareClasses: FareClassView[] }>('GET', `/admin/showtimes/${id}/fares`),
      deps.core.adminJson<{ tiers: RefundTier[] }>('GET', `/admin/showtimes/${id}/refund-policy`),
    ]).catch(() => [null, null, null] as const);
    if (!showtime || !fares || !policy || [showtime, fares, policy].some((a) => a.status >= 500)) {
      c.header('Retry-After', '5');
      return c.html(
        messagePage('Seat service busy', 'The seat service is not answering right now. Try again in a few seconds.', {
          href: c.req.path,
          label: 'Try again',
        }),
        503,
      );
    }
    if (showtime.status === 404) return missing();
    return c.html(farePage(showtime.body, fares.body.fareClasses, policy.body.tiers, session.csrf));
  });

  return app;
}
