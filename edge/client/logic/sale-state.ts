/**
 * The sale state a buyer sees, from either source of truth: the showtime list
 * (GET /api/showtimes, `saleState`, which follows the operator's pause and close) or the
 * queue poll (`paused`, `closed`, `sold_out`). Pure, so both pages word it the same way.
 */
import { t } from '../core/i18n';

export type SaleState = 'opening_soon' | 'on_sale' | 'paused' | 'closed' | 'sold_out' | 'started';

const STATES: readonly SaleState[] = ['opening_soon', 'on_sale', 'paused', 'closed', 'sold_out', 'started'];

/** The badge's words, in the page's language. */
export const saleStateWords = (state: string) =>
  (STATES as readonly string[]).includes(state) ? t(`state.${state as SaleState}`) : state;

/** Only a showtime on sale is offered as "Buy tickets"; the rest open as "Details". */
export const isBuyable = (state: string) => state === 'on_sale';

/** The sale is over for good: nothing to wait for, nobody to let in. */
export const isFinal = (state: string) => state === 'closed' || state === 'sold_out' || state === 'started';

/** What a queue poll says about the sale as a whole (null: nothing new about it). */
export function saleStateFromQueue(queueState: string): SaleState | null {
  switch (queueState) {
    case 'paused':
      return 'paused';
    case 'closed':
      return 'closed';
    case 'sold_out':
      return 'sold_out';
    case 'waiting':
    case 'admitted':
      return 'on_sale';
    case 'prequeue':
      return 'opening_soon';
    default:
      return null;
  }
}

export interface ListedShowtime {
  id: number | string;
  saleState: string;
  seatsAvailable?: number;
  seatsTotal?: number;
}

/** The core lists at most this many showtimes (GET /showtimes), soonest first. */
export const LIST_LIMIT = 100;

/**
 * A showtime's state from the list, or null when the list says nothing about it. The list
 * holds what is on sale, opening soon, paused or sold out; a closed showtime leaves it. So a
 * showtime missing from a list shorter than the limit is closed, while one missing from a
 * full list may just be further down: no news, not "closed".
 */
export function stateInList(list: readonly ListedShowtime[], id: string, limit = LIST_LIMIT): string | null {
  const found = list.find((s) => String(s.id) === id);
  if (found) return found.saleState;
  return list.length < limit ? 'closed' : null;
}
