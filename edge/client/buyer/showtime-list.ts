/**
 * data-module="showtime-list": the landing page's cards follow the sale without a reload.
 * Each card's badge, seat count and button change as the list changes; only a showtime on
 * sale is offered as "Buy tickets" (a paused, closed or sold-out one opens as "Details").
 */
import { createShowtimeFeed } from '../core/showtime-feed';
import { t } from '../core/i18n';
import { isBuyable, saleStateWords, stateInList, type ListedShowtime } from '../logic/sale-state';

export function applyCardState(card: HTMLElement, state: string, listed: ListedShowtime | undefined) {
  const badge = card.querySelector<HTMLElement>('[data-role="badge"]');
  if (badge && badge.dataset.state !== state) {
    badge.dataset.state = state;
    badge.className = `badge badge-${state}`;
    badge.textContent = saleStateWords(state);
  }
  const opening = card.querySelector<HTMLElement>('[data-role="opening"]');
  if (opening) opening.hidden = state !== 'opening_soon';
  const action = card.querySelector<HTMLAnchorElement>('[data-role="action"]');
  if (action) {
    const label = isBuyable(state) ? t('list.buy') : t('list.details');
    if (action.textContent !== label) {
      action.textContent = label;
      action.setAttribute('aria-label', t('list.actionFor', { action: label, title: card.dataset.title ?? '' }).trim());
      action.classList.toggle('primary', isBuyable(state));
    }
  }
  const seats = card.querySelector<HTMLElement>('[data-role="seats"]');
  if (seats && listed && typeof listed.seatsAvailable === 'number') {
    const text = listed.seatsTotal
      ? t('list.seatsOf', { available: listed.seatsAvailable, total: listed.seatsTotal })
      : t('list.seatsLeft', { n: listed.seatsAvailable });
    if (seats.textContent !== text) seats.textContent = text;
  }
}

export function showtimeList(root: HTMLElement) {
  const feed = createShowtimeFeed({
    intervalMs: Number(root.dataset.refreshMs) || 10_000,
    onList(list) {
      root.querySelectorAll<HTMLElement>('[data-showtime-id]').forEach((card) => {
        const id = card.dataset.showtimeId ?? '';
        const state = stateInList(list, id);
        if (state)
          applyCardState(
            card,
            state,
            list.find((s) => String(s.id) === id),
          );
      });
    },
  });
  feed.start();
  // An opening time passing is worth a fresh look right then, not up to an interval later.
  const now = Date.now();
  root.querySelectorAll<HTMLElement>('[data-opens-at]').forEach((card) => {
    const wait = Date.parse(card.dataset.opensAt ?? '') - now;
    if (wait > 0 && wait < 86_400_000) setTimeout(() => feed.soon(300), wait + 300);
  });
}
