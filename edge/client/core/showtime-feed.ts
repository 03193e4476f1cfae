/**
 * Reads the public showtime list (GET /api/showtimes) at a slow, jittered interval while
 * the tab is visible, so a page's sale state follows the operator without a reload. The
 * edge answers the list from a one-second cache, so a crowd of open pages costs the core
 * at most one read a second.
 */
import { api } from './api';
import type { ListedShowtime } from '../logic/sale-state';

export interface ShowtimeFeedOptions {
  /** Between reads (a function: the page may want news sooner in some steps than others). */
  intervalMs: number | (() => number);
  onList: (list: ListedShowtime[]) => void;
  /** Skips a round (another source is already fresh, e.g. the queue poll). */
  skip?: () => boolean;
}

export function createShowtimeFeed(options: ShowtimeFeedOptions) {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;

  async function refresh() {
    const result = await api<ListedShowtime[]>('GET', '/api/showtimes');
    if (result.ok && Array.isArray(result.json)) options.onList(result.json);
  }

  const interval = () => (typeof options.intervalMs === 'function' ? options.intervalMs() : options.intervalMs);

  function schedule(delayMs = interval()) {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(
      async () => {
        if (document.visibilityState !== 'hidden' && !options.skip?.()) await refresh();
        schedule();
      },
      Math.round(delayMs * (0.8 + Math.random() * 0.4)),
    );
  }

  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && !stopped) schedule(200);
  });

  return {
    start() {
      stopped = false;
      schedule();
    },
    /** Reads again soon (an opening time has just passed). */
    soon(delayMs = 500) {
      schedule(delayMs);
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
