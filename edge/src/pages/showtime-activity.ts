/**
 * What the operator console shows per showtime that no store counts: hold conflicts (409 on
 * a hold) and rate-limited requests (429), over the last minute, in one-second buckets.
 * Per edge process and in memory (a hot path pays one array write); with several edge
 * processes each console connection sees the process it landed on.
 */
import type { MiddlewareHandler } from 'hono';
import type { EdgeEnv } from '../http-context';

export type ActivityKind = 'holdConflicts' | 'rateLimited';

const WINDOW_SECONDS = 60;
const SHOWTIME_IN_PATH = /^\/api\/showtimes\/(\d{1,15})\//;

interface Series {
  seconds: Int32Array;
  counts: Record<ActivityKind, Int32Array>;
}

export function createShowtimeActivity(options: { now?: () => number; maxShowtimes?: number } = {}) {
  const now = options.now ?? Date.now;
  const series = new Map<string, Series>();

  function record(showtimeId: string, kind: ActivityKind) {
    let s = series.get(showtimeId);
    if (!s) {
      // Full: the showtime idle longest goes (the Map keeps recently active ones last), never
      // all of them, so requests on made-up showtime ids cannot wipe the real ones' counts.
      if (series.size >= (options.maxShowtimes ?? 10_000)) series.delete(series.keys().next().value as string);
      s = {
        seconds: new Int32Array(WINDOW_SECONDS).fill(-1),
        counts: { holdConflicts: new Int32Array(WINDOW_SECONDS), rateLimited: new Int32Array(WINDOW_SECONDS) },
      };
      series.set(showtimeId, s);
    }
    const second = Math.floor(now() / 1000);
    const slot = second % WINDOW_SECONDS;
    // The most recently active showtime goes to the end of the Map (first to go is the idlest).
    series.delete(showtimeId);
    series.set(showtimeId, s);
    if (s.seconds[slot] !== second) {
      s.seconds[slot] = second;
      s.counts.holdConflicts[slot] = 0;
      s.counts.rateLimited[slot] = 0;
    }
    s.counts[kind][slot]! += 1;
  }

  /** Counts over the last 60 seconds. */
  function lastMinute(showtimeId: string): Record<ActivityKind, number> {
    const s = series.get(showtimeId);
    const result = { holdConflicts: 0, rateLimited: 0 };
    if (!s) return result;
    const second = Math.floor(now() / 1000);
    for (let slot = 0; slot < WINDOW_SECONDS; slot++) {
      if (s.seconds[slot]! > second - WINDOW_SECONDS) {
        result.holdConflicts += s.counts.holdConflicts[slot]!;
        result.rateLimited += s.counts.rateLimited[slot]!;
      }
    }
    return result;
  }

  /** After the handler (and the error handler) answered: 409 on a hold, any 429. */
  function recorder(): MiddlewareHandler<EdgeEnv> {
    return async function showtimeActivityMiddleware(c, next) {
      await next();
      const status = c.res.status;
      if (status !== 409 && status !== 429) return;
      const fromPath = SHOWTIME_IN_PATH.exec(c.req.path)?.[1];
      const showtimeId = fromPath ?? (c.get('access') ? String(c.get('access').showtimeId) : null);
      if (!showtimeId) return;
      if (status === 429) record(showtimeId, 'rateLimited');
      else if (c.req.method === 'POST' && c.req.path.endsWith('/holds')) record(showtimeId, 'holdConflicts');
    };
  }

  return { record, lastMinute, recorder };
}

export type ShowtimeActivity = ReturnType<typeof createShowtimeActivity>;
