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
import { t } from '../core/i18n';

export type SaleStateListener = (state: string, previous: string) => void;

export function createSaleStatus(flow: SaleFlow, initial: string) {
  const badge = document.getElementById('sale-badge');
  const listeners: SaleStateListener[] = [];
  const lineChecks: (() => void)[] = [];
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
      // A buyer in line hears about the sale from the line: the list counts held seats as gone,
      // the line knows whether they may come back. So the list's "sold out" only makes the
      // line answer now, and the badge never says "Sold out" over "You are in line".
      if (
        next === 'sold_out' &&
        state !== 'sold_out' &&
        (flow.step === 'step-waiting' || flow.step === 'step-prequeue')
      ) {
        for (const check of lineChecks) check();
        return;
      }
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
    /** The list has news the line should confirm (asked of the waiting room). */
    onLineCheck(check: () => void) {
      lineChecks.push(check);
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
    if (buying && state === 'paused') flow.announce(t('sale.pausedSpoken'));
    if (buying && previous === 'paused' && state === 'on_sale') flow.announce(t('sale.resumedSpoken'));
    if (state === 'closed' && step !== 'step-confirm' && step !== 'step-ended') {
      flow.ended(t('closed.title'), t('closed.byCinema'), false);
    }
    if (state === 'sold_out' && (step === 'step-seats' || step === 'step-start')) {
      flow.ended(t('soldOut.title'), t('soldOut.text'), false);
    }
    if (state === 'started' && step !== 'step-confirm' && step !== 'step-ended') {
      flow.ended(t('closed.title'), t('closed.started'), false);
    }
  });
}
