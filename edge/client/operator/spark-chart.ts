/**
 * Small live charts without a library. Each series keeps the last five minutes of one-second
 * samples; a chart is one SVG polyline. A series with a natural ceiling (seats: the hall's
 * size) is drawn on that fixed scale, so one seat going to zero does not look like a
 * collapse; the others scale to their own peak. The caption says the scale and the span.
 */
export const KEEP_SAMPLES = 300;

export function createSeries() {
  const values = new Map<string, number[]>();
  return {
    push(key: string, value: unknown) {
      const list = values.get(key) ?? [];
      list.push(typeof value === 'number' && Number.isFinite(value) ? value : 0);
      if (list.length > KEEP_SAMPLES) list.shift();
      values.set(key, list);
    },
    get(key: string): number[] {
      return values.get(key) ?? [];
    },
  };
}

export interface SparkGeometry {
  points: string;
  max: number;
  spanSeconds: number;
}

/** Pure geometry: points in a 120×30 box, the x axis one minute until there is more history. */
export function sparkGeometry(list: readonly number[], fixedMax: number | null = null): SparkGeometry | null {
  if (list.length === 0) return null;
  const max = Math.max(1, fixedMax ?? 0, ...list);
  const span = Math.min(KEEP_SAMPLES, Math.max(60, list.length));
  const step = 120 / (span - 1);
  const offset = (span - list.length) * step;
  const points = list.map(
    (value, index) => `${(offset + index * step).toFixed(1)},${(29 - (value / max) * 27).toFixed(1)}`,
  );
  if (points.length === 1) points.push(`${(offset + 0.5).toFixed(1)},${points[0]!.split(',')[1]}`);
  return { points: points.join(' '), max, spanSeconds: span };
}

/** "22:40:01 → 22:45:01": the x axis's two ends, when the samples' times are known. */
export type TimeSpan = { from: string; to: string } | null;

export function drawSpark(
  svg: SVGSVGElement | null,
  list: readonly number[],
  fixedMax: number | null = null,
  span: TimeSpan = null,
) {
  const line = svg?.querySelector('polyline');
  const geometry = sparkGeometry(list, fixedMax);
  if (!svg || !line || !geometry) return;
  line.setAttribute('points', geometry.points);
  const last = geometry.spanSeconds > 60 ? `${Math.round(geometry.spanSeconds / 60)} minutes` : 'minute';
  const label = (svg.getAttribute('aria-label') ?? '').split(',')[0];
  svg.setAttribute(
    'aria-label',
    `${label}, last ${last}, now ${list[list.length - 1]}, ${fixedMax ? 'scale' : 'peak'} ${geometry.max}`,
  );
  const caption = document.getElementById(`axis-${svg.id.replace(/^chart-/, '')}`);
  // The axes in words: the value scale (y) and the time span (x), from the first sample to now.
  if (caption)
    caption.textContent = `0 to ${geometry.max}${fixedMax ? ' (all seats)' : ''} · ${span ? `${span.from} → ${span.to}` : `last ${last}`}`;
}
