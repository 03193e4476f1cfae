/**
 * The sale page's view of the sale as a whole: the header badge, and what a pause or a close
 * means on whichever step the buyer is on. Fed by the queue poll while the buyer waits, and
 * by the showtime list otherwise (choosing seats, paying, or not yet in line), so the badge
 * follows the operator without a reload.
 */
import { show } from '../core/dom';
import { createShowtimeFeed } from '../core/showtime-feed';
import { saleStateWords, stateInList } from '../logic/sale-state';
import type { SaleFlow } from './flow';

export type SaleStateListener = (state: string, previous: string) => void;

export function createSaleStatus(flow: SaleFlow, initial: string) {
  const badge = document.getElementById('sale-badge');
  const listeners: SaleStateListener[] = [];
  let state = initial;
  let lastQueueNewsMs = 0;

  function set(next: string) {
    if (next === state) return;
    const previous = state;
    state = next;
    flow.root.dataset.saleState = next;
    if (badge) {
      badge.className = `badge badge-${next}`;
      badge.textContent = saleStateWords(next);
    }
    for (const listener of listeners) listener(next, previous);
  }

  const feed = createShowtimeFeed({
    // A buyer choosing seats or paying hears of a pause or close within seconds; a page not yet
    // in line (the crowd before the opening) reads less often, and at the opening time itself.
    intervalMs: () => (flow.step === 'step-seats' || flow.step === 'step-hold' ? 5_000 : 10_000),
    // While the queue poll is live it already carries paused/closed/sold out.
    skip: () => Date.now() - lastQueueNewsMs < 10_000,
    onList: (list) => {
      const next = stateInList(list, flow.showtimeId);
      if (next) set(next);
    },
  });
  feed.start();
  const opensInMs = Date.parse(flow.root.dataset.opensAt ?? '') - Date.now();
  if (opensInMs > 0 && opensInMs < 86_400_000) setTimeout(() => feed.soon(300), opensInMs + 300);

  return {
    get state() {
      return state;
    },
    /** A queue poll's word on the sale (already mapped by saleStateFromQueue). */
    fromQueue(next: string | null) {
      lastQueueNewsMs = Date.now();
      if (next) set(next);
    },
    onChange(listener: SaleStateListener) {
      listeners.push(listener);
    },
    stop() {
      feed.stop();
    },
  };
}

export type SaleStatus = ReturnType<typeof createSaleStatus>;

/** Pause and close while choosing seats or paying: notes in place, or the end of the road. */
export function showSaleStateOnSteps(flow: SaleFlow, status: SaleStatus) {
  status.onChange((state, previous) => {
    const step = flow.step;
    const buying = step === 'step-seats' || step === 'step-hold';
    show('seats-paused-note', state === 'paused');
    show('hold-paused-note', state === 'paused');
    if (buying && state === 'paused') flow.announce('The cinema has paused sales for a moment. You keep your turn.');
    if (buying && previous === 'paused' && state === 'on_sale') flow.announce('Sales have resumed.');
    if (state === 'closed' && step !== 'step-confirm' && step !== 'step-ended') {
      flow.ended('Sales are closed', 'The cinema has closed sales for this showing.', false);
    }
    if (state === 'sold_out' && (step === 'step-seats' || step === 'step-start')) {
      flow.ended('Sold out', 'Every seat for this showing has been sold.', false);
    }
    if (state === 'started' && step !== 'step-confirm' && step !== 'step-ended') {
      flow.ended('Sales are closed', 'This showing has already started, so tickets are no longer on sale.', false);
    }
  });
}
