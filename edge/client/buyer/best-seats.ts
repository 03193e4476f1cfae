/**
 * "Best N seats" beside the seat map (docs/best-available.md): the buyer says how many, the
 * core picks the best seats together and holds them. The picked seats are shown on the map
 * (held by you) with a review before checkout: "Continue to payment", or "Choose other seats",
 * which releases them and goes back to the map. On a phone (narrow screen) this is the default
 * way: the form comes first, above the map, with "Choose on the map instead" taking the
 * keyboard to the map; on a laptop it sits after the map (the map stays first in tab order).
 *
 * Every word this module puts on the page is in BEST_SEATS_TEXT below, taken from the message
 * catalogues (best.*).
 */
import { errorCode, serverNow } from '../core/api';
import { byId, setText, show } from '../core/dom';
import { explain } from '../core/explain';
import { t } from '../core/i18n';
import { paymentDeadlineMs } from '../logic/deadlines';
import type { SaleFlow } from './flow';
import type { Purchase, SavedHold } from './purchase';

/** The words of this module, from the message catalogues (lib/i18n/) in the page's language. */
export const BEST_SEATS_TEXT = {
  title: t('best.title'),
  intro: t('best.intro'),
  countLabel: t('best.countLabel'),
  together: t('best.together'),
  accessible: t('best.accessible'),
  button: (n: number) => t('best.button', { n }),
  toMap: t('best.toMap'),
  countInvalid: (max: number) => t('best.countInvalid', { max }),
  searching: t('best.searching'),
  reviewTitle: t('best.reviewTitle'),
  reviewSeats: (labels: string, total: string) =>
    total ? t('best.reviewSeatsTotal', { labels, total }) : t('best.reviewSeats', { labels }),
  reviewNote: t('best.reviewNote'),
  picked: (labels: string) => t('best.picked', { labels }),
  continue: t('best.continue'),
  other: t('best.other'),
  released: t('best.released'),
};

export function createBestSeats(flow: SaleFlow, purchase: Purchase) {
  const T = BEST_SEATS_TEXT;
  const phone = typeof window.matchMedia === 'function' && window.matchMedia('(max-width: 40rem)').matches;
  let review: SavedHold | null = null;

  function render() {
    const home = document.getElementById('best-seats');
    if (!home) return false;
    home.innerHTML = `
      <form id="best-form" class="best" novalidate aria-labelledby="best-title">
        <h3 id="best-title"></h3>
        <p id="best-intro" class="muted"></p>
        <p><label for="best-count" id="best-count-label"></label>
          <input id="best-count" type="number" inputmode="numeric" min="1" max="8" value="2" size="3"></p>
        <p><label><input id="best-together" type="checkbox" checked> <span id="best-together-label"></span></label></p>
        <p><label><input id="best-accessible" type="checkbox"> <span id="best-accessible-label"></span></label></p>
        <p class="actions"><button id="best-button" type="submit" class="button primary"></button>
          <button id="best-to-map" type="button" class="button"></button></p>
      </form>
      <section id="best-review" class="best-review" hidden aria-labelledby="best-review-title">
        <h3 id="best-review-title" tabindex="-1"></h3>
        <p><strong id="best-review-seats"></strong></p>
        <p id="best-review-note" class="muted"></p>
        <p class="actions"><button id="best-continue" type="button" class="button primary"></button>
          <button id="best-other" type="button" class="button"></button></p>
      </section>`;
    setText('best-title', T.title);
    setText('best-intro', T.intro);
    setText('best-count-label', T.countLabel);
    setText('best-together-label', T.together);
    setText('best-accessible-label', T.accessible);
    setText('best-review-title', T.reviewTitle);
    setText('best-review-note', T.reviewNote);
    setText('best-continue', T.continue);
    setText('best-other', T.other);
    setText('best-to-map', T.toMap);
    show('best-to-map', phone);
    // A laptop shows the map first and this beside it, after it in the tab order.
    const mapArea = document.getElementById('map-area');
    if (!phone && mapArea) mapArea.after(home);
    return true;
  }

  const countInput = () => byId<HTMLInputElement>('best-count');
  const maxCount = () => Number(countInput().max) || 8;

  function label() {
    const n = Number(countInput().value);
    setText('best-button', T.button(Number.isInteger(n) && n >= 1 ? n : 1));
  }

  /** The keyboard (and the eye) to the map: its one seat in the tab order. */
  function toMap() {
    const seat = document.querySelector<HTMLElement>('#seat-grid button[tabindex="0"]');
    seat?.scrollIntoView?.({ block: 'center', inline: 'center' });
    seat?.focus();
  }

  async function ask() {
    const n = Number(countInput().value);
    if (!Number.isInteger(n) || n < 1 || n > maxCount()) return flow.alert(T.countInvalid(maxCount()), true);
    const together = byId<HTMLInputElement>('best-together').checked;
    const accessible = byId<HTMLInputElement>('best-accessible').checked;
    const button = byId<HTMLButtonElement>('best-button');
    button.disabled = true;
    flow.alert(null);
    flow.announce(T.searching);
    const result = await purchase.call<SavedHold>('POST', `/api/showtimes/${flow.showtimeId}/holds`, {
      count: n,
      together,
      ...(accessible ? { accessible } : {}),
    });
    button.disabled = false;
    if (result.ok && result.json) {
      const held: SavedHold = {
        holdId: result.json.holdId,
        expiresAt: result.json.expiresAt,
        seats: result.json.seats,
        key: null,
      };
      const expiresAtMs = Date.parse(result.json.expiresAt);
      if (!Number.isNaN(expiresAtMs)) held.payByMs = paymentDeadlineMs(serverNow(), expiresAtMs);
      purchase.seatMap.forget('all');
      purchase.saveHold(held);
      await purchase.loadMap();
      return showReview(held);
    }
    if (errorCode(result) === 'NO_SEATS_TOGETHER') {
      const most = Number(result.json && (result.json as { error?: { maxTogether?: number } }).error?.maxTogether);
      if (most >= 1) countInput().value = String(Math.min(most, maxCount()));
      label();
    }
    flow.alert(explain(result), true);
  }

  /** The picked seats on the map (held by you) and the choice: pay, or choose other seats. */
  function showReview(held: SavedHold) {
    review = held;
    show('best-form', false);
    show('best-review', true);
    const labels = purchase.seatMap.labels(held.seats);
    setText('best-review-seats', T.reviewSeats(labels, purchase.seatMap.priceOf(held.seats)));
    byId('best-review-title').focus();
    flow.announce(T.picked(labels));
    const first = document.querySelector<HTMLElement>(
      `#seat-grid button[data-code="${CSS.escape(held.seats[0] ?? '')}"]`,
    );
    first?.scrollIntoView?.({ block: 'nearest', inline: 'center' });
  }

  function closeReview() {
    review = null;
    show('best-review', false);
    show('best-form', true);
  }

  async function chooseOther() {
    const held = review;
    if (!held) return;
    const button = byId<HTMLButtonElement>('best-other');
    button.disabled = true;
    const result = await purchase.call('DELETE', `/api/holds/${held.holdId}`);
    button.disabled = false;
    if (!result.ok && result.status !== 404) return flow.alert(explain(result), true);
    purchase.saveHold(null);
    closeReview();
    await purchase.loadMap();
    flow.announce(T.released);
    byId('best-title').setAttribute('tabindex', '-1');
    byId('best-title').focus();
  }

  function wire() {
    if (!render()) return;
    label();
    countInput().addEventListener('input', label);
    byId('best-form').addEventListener('submit', (event) => {
      event.preventDefault();
      void ask();
    });
    byId('best-to-map').addEventListener('click', toMap);
    byId('best-continue').addEventListener('click', () => {
      const held = review;
      closeReview();
      if (held) purchase.showHold(held);
    });
    byId('best-other').addEventListener('click', () => void chooseOther());
    // A new map: the count follows the showing's limit; a review whose hold is gone closes.
    purchase.onMapShown((limit) => {
      countInput().max = String(limit);
      if (review && purchase.savedHold()?.holdId !== review.holdId) closeReview();
    });
  }

  return { wire };
}
