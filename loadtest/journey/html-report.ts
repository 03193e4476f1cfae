/**
 * A self-contained HTML report (inline SVG, no scripts, no external files): charts over time
 * of requests/s, latency, the waiting line, admissions and seats left, the endpoint table
 * and the full text report.
 */
import type { InvariantReport } from '../invariants';
import type { DriverResult } from './driver';
import type { Recorder } from './recorder';
import { endpointRows } from './report';
import type { ReportContext } from './run-options';

interface Series {
  name: string;
  color: string;
  points: (number | undefined)[];
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]!);

function niceMax(value: number): number {
  if (value <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (value <= step * magnitude) return step * magnitude;
  return 10 * magnitude;
}

function chart(title: string, unit: string, series: Series[]): string {
  const width = 760;
  const height = 220;
  const left = 56;
  const bottom = 28;
  const top = 12;
  const length = Math.max(2, ...series.map((s) => s.points.length));
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.points.filter((p): p is number => p !== undefined))));
  const x = (i: number) => left + ((width - left - 10) * i) / (length - 1);
  const y = (v: number) => top + (height - top - bottom) * (1 - v / max);
  const grid = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = max * f;
    return `<line x1="${left}" x2="${width - 10}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e5e5"/><text x="${left - 6}" y="${y(v) + 4}" text-anchor="end">${Number(v.toFixed(2))}</text>`;
  });
  const ticks = Array.from({ length: 6 }, (_, k) => Math.round(((length - 1) * k) / 5)).map(
    (i) => `<text x="${x(i)}" y="${height - 8}" text-anchor="middle">${i}s</text>`,
  );
  const lines = series.map((s) => {
    const segments: string[] = [];
    let path = '';
    s.points.forEach((p, i) => {
      if (p === undefined) {
        if (path) segments.push(path);
        path = '';
        return;
      }
      path += `${path ? 'L' : 'M'}${x(i).toFixed(1)},${y(p).toFixed(1)}`;
    });
    if (path) segments.push(path);
    return segments.map((d) => `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="1.6"/>`).join('');
  });
  const legend = series.map((s) => `<span style="color:${s.color}">■</span> ${escapeHtml(s.name)}`).join(' &nbsp; ');
  return `<figure><figcaption><b>${escapeHtml(title)}</b> <small>(${escapeHtml(unit)})</small> &nbsp; ${legend}</figcaption>
<svg viewBox="0 0 ${width} ${height}" width="100%" font-size="11" font-family="sans-serif">${grid.join('')}${ticks.join('')}${lines.join('')}</svg></figure>`;
}

export function renderHtmlReport(
  recorder: Recorder,
  driver: DriverResult,
  invariants: InvariantReport | null,
  context: ReportContext,
  text: string,
): string {
  const s = recorder.seconds;
  let admittedSoFar = 0;
  const cumulative = s.map((second) => (admittedSoFar += second.admitted));
  const charts = [
    chart('Requests per second', 'req/s', [
      { name: 'sent', color: '#1f77b4', points: s.map((x) => x.sent) },
      { name: 'answered (not failures)', color: '#2ca02c', points: s.map((x) => x.answered) },
      { name: 'failures', color: '#d62728', points: s.map((x) => x.failed) },
    ]),
    chart('Latency', 'ms, all endpoints', [
      {
        name: 'p50',
        color: '#1f77b4',
        points: s.map((x) => (x.latency.count ? x.latency.percentile(0.5) : undefined)),
      },
      {
        name: 'p95',
        color: '#ff7f0e',
        points: s.map((x) => (x.latency.count ? x.latency.percentile(0.95) : undefined)),
      },
      {
        name: 'p99',
        color: '#d62728',
        points: s.map((x) => (x.latency.count ? x.latency.percentile(0.99) : undefined)),
      },
    ]),
    chart('Waiting line', 'buyers', [{ name: 'waiting', color: '#9467bd', points: s.map((x) => x.waiting) }]),
    chart('Admitted', 'buyers', [
      { name: 'admitted so far', color: '#2ca02c', points: cumulative },
      { name: 'admitted at once (room)', color: '#ff7f0e', points: s.map((x) => x.active) },
      { name: 'booked per second', color: '#1f77b4', points: s.map((x) => x.booked) },
    ]),
    chart('Seats', 'seats', [
      { name: 'available', color: '#2ca02c', points: s.map((x) => x.seatsAvailable) },
      { name: 'held', color: '#ff7f0e', points: s.map((x) => x.seatsHeld) },
      { name: 'booked', color: '#1f77b4', points: s.map((x) => x.seatsBooked) },
    ]),
  ];
  const rows = endpointRows(recorder, driver.elapsedMs)
    .map(
      (r) =>
        `<tr><td>${r.endpoint}</td><td>${r.sent}</td><td>${r.offeredRps.toFixed(1)}</td><td>${r.achievedRps.toFixed(1)}</td><td>${r.p50.toFixed(1)}</td><td>${r.p95.toFixed(1)}</td><td>${r.p99.toFixed(1)}</td><td>${escapeHtml(r.statuses)}</td></tr>`,
    )
    .join('\n');
  const verdict = invariants
    ? invariants.breaches.length === 0
      ? '<b style="color:#2ca02c">invariants hold</b>'
      : `<b style="color:#d62728">${invariants.breaches.length} invariant breach(es)</b>`
    : 'invariants not checked';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Journey load run, showtime ${escapeHtml(context.showtimeId)}</title>
<style>body{font-family:sans-serif;max-width:820px;margin:2em auto;color:#222}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:3px 6px;text-align:right}td:first-child,td:last-child{text-align:left}pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:12px}figure{margin:1.5em 0}</style>
</head><body>
<h1>Journey load run</h1>
<p>${escapeHtml(context.description)} · showtime ${escapeHtml(context.showtimeId)} · ${context.options.buyers} buyers · ${(driver.elapsedMs / 1000).toFixed(1)} s · ${verdict}</p>
${charts.join('\n')}
<h2>Endpoints</h2>
<table><tr><th>endpoint</th><th>requests</th><th>offered/s</th><th>achieved/s</th><th>p50 ms</th><th>p95 ms</th><th>p99 ms</th><th>statuses</th></tr>
${rows}</table>
<h2>Full report</h2>
<pre>${escapeHtml(text)}</pre>
</body></html>
`;
}
