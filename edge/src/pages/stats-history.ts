/**
 * The console charts' history, kept by the edge process: one sample a second per showtime for
 * the last five minutes (what the charts span), recorded by the live feed and handed to a
 * console that opens, so its charts start with what happened before the load instead of empty.
 * Per process (a cluster's workers each keep their own); bounded in showtimes and samples.
 */
export const HISTORY_SAMPLES = 300;
const MAX_SHOWTIMES = 200;

export interface StatsSample {
  /** Epoch ms of the sample (the server's clock). */
  at: number;
  values: Record<string, number | null>;
}

export function createStatsHistory(options: { keep?: number; minGapMs?: number } = {}) {
  const keep = options.keep ?? HISTORY_SAMPLES;
  const minGapMs = options.minGapMs ?? 900;
  const byShowtime = new Map<string, StatsSample[]>();
  return {
    /** Records a sample unless one was recorded less than a second ago (two consoles, one clock). */
    record(showtimeId: string, sample: StatsSample) {
      let list = byShowtime.get(showtimeId);
      if (!list) {
        if (byShowtime.size >= MAX_SHOWTIMES) byShowtime.delete(byShowtime.keys().next().value!);
        list = [];
        byShowtime.set(showtimeId, list);
      }
      const last = list[list.length - 1];
      if (last && sample.at - last.at < minGapMs) return;
      list.push(sample);
      if (list.length > keep) list.splice(0, list.length - keep);
    },
    samples(showtimeId: string): StatsSample[] {
      return [...(byShowtime.get(showtimeId) ?? [])];
    },
  };
}

export type StatsHistory = ReturnType<typeof createStatsHistory>;
