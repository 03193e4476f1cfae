/**
 * A waiting time that does not jump about. The server's estimate follows the measured
 * admission rate, which is noisy over seconds; shown raw it reads 9, 6, 7 minutes within
 * half a minute. The smoother lets the shown value run down with the clock and moves it
 * toward each new estimate a little at a time; a change that persists (a real rate change)
 * gets through within a few polls, and comes with the reason it moved.
 */
import { t } from '../core/i18n';
export type EtaTrend = 'steady' | 'longer' | 'shorter';

export interface EtaReading {
  /** What to show, in seconds; null while there is no estimate yet. */
  seconds: number | null;
  /** Whether the estimate moved against the clock enough to explain it. */
  trend: EtaTrend;
}

export interface EtaSmootherOptions {
  /** How far one reading moves the shown value toward the server's (0..1). */
  weight?: number;
  /** A move smaller than this share of the estimate (or 30 s) is not worth explaining. */
  explainRatio?: number;
}

export function createEtaSmoother(options: EtaSmootherOptions = {}) {
  const weight = options.weight ?? 0.35;
  const explainRatio = options.explainRatio ?? 0.25;
  let shown: number | null = null;
  let shownAtMs = 0;

  return {
    /** Feeds one server estimate (null: none yet) read at nowMs. */
    update(estimateSeconds: number | null, nowMs: number): EtaReading {
      if (estimateSeconds === null || !Number.isFinite(estimateSeconds) || estimateSeconds < 0) {
        return { seconds: shown === null ? null : Math.max(0, shown - (nowMs - shownAtMs) / 1000), trend: 'steady' };
      }
      if (shown === null) {
        shown = estimateSeconds;
        shownAtMs = nowMs;
        return { seconds: shown, trend: 'steady' };
      }
      // Where the last value would be now if the line moved as expected.
      const expected = Math.max(0, shown - (nowMs - shownAtMs) / 1000);
      const gap = estimateSeconds - expected;
      // Far off (twice or half): the rate really changed; follow it faster.
      const far = estimateSeconds > expected * 2 + 30 || estimateSeconds < expected / 2 - 30;
      const next = Math.max(0, expected + gap * (far ? 0.6 : weight));
      const threshold = Math.max(30, expected * explainRatio);
      const trend: EtaTrend =
        next - expected > threshold ? 'longer' : expected - next > threshold ? 'shorter' : 'steady';
      shown = next;
      shownAtMs = nowMs;
      return { seconds: next, trend };
    },
    /** Forget the history (a pause, or a new place in line). */
    reset() {
      shown = null;
    },
  };
}

export function trendWords(trend: EtaTrend): string {
  if (trend === 'longer') return t('wait.trend.longer');
  if (trend === 'shorter') return t('wait.trend.shorter');
  return '';
}
