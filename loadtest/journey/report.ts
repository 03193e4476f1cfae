/**
 * The end-of-run text report: per endpoint (requests, offered and achieved requests/s,
 * p50/p95/p99 from the histogram, status mix), admissions against the room's settings,
 * the journey's outcomes and counters, and the invariants.
 */
import { formatInvariantReport, type InvariantReport } from '../invariants';
import type { DriverResult } from './driver';
import { isExpectedStatus, type Recorder } from './recorder';
import type { ReportContext } from './run-options';

export const ENDPOINT_ORDER = [
  'login',
  'join',
  'poll',
  'seats',
  'hold',
  'cancel',
  'checkout',
  'approve',
  'hold_status',
  'booking',
  'leave',
];

export interface EndpointRow {
  endpoint: string;
  sent: number;
  offeredRps: number;
  achievedRps: number;
  p50: number;
  p95: number;
  p99: number;
  statuses: string;
}

export function endpointRows(recorder: Recorder, elapsedMs: number): EndpointRow[] {
  const seconds = Math.max(1, elapsedMs / 1000);
  const names = [...recorder.endpoints.keys()].sort((a, b) => ENDPOINT_ORDER.indexOf(a) - ENDPOINT_ORDER.indexOf(b));
  return names.map((endpoint) => {
    const stats = recorder.endpoints.get(endpoint)!;
    let expected = 0;
    for (const [status, n] of stats.statuses) if (isExpectedStatus(status)) expected += n;
    return {
      endpoint,
      sent: stats.sent,
      offeredRps: stats.sent / seconds,
      achievedRps: expected / seconds,
      p50: stats.latency.percentile(0.5),
      p95: stats.latency.percentile(0.95),
      p99: stats.latency.percentile(0.99),
      statuses: [...stats.statuses.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([status, n]) => `${status === 0 ? 'no answer' : status} ×${n}`)
        .join(', '),
    };
  });
}

export function admissionFigures(recorder: Recorder, driver: DriverResult, context: ReportContext) {
  const admitted = recorder.counters.get('admitted') ?? 0;
  const minutes = Math.max(1 / 60, driver.elapsedMs / 60_000);
  const peakActive = Math.max(0, ...recorder.seconds.map((s) => s.active ?? 0));
  return {
    admitted,
    perMinuteAverage: admitted / minutes,
    maxInAnyMinute: recorder.maxAdmissionsPerMinute(),
    setting: context.live.roomSettings?.admitPerMinute ?? context.options.admitPerMinute,
    /** The admission budget is a token bucket: a minute may also spend the banked burst. */
    burst: context.live.roomSettings?.admitBurst ?? Math.ceil(context.options.admitPerMinute / 12),
    capacity: context.live.roomSettings?.capacity ?? context.options.capacity,
    peakActive,
  };
}

const pad = (value: string | number, width: number) => String(value).padStart(width);

export function renderTextReport(
  recorder: Recorder,
  driver: DriverResult,
  invariants: InvariantReport | null,
  context: ReportContext,
): string {
  const lines: string[] = [];
  const seconds = driver.elapsedMs / 1000;
  const total = recorder.totalSent();
  lines.push(`Journey run: ${context.description}, showtime ${context.showtimeId}`);
  lines.push(
    `  ${context.options.buyers} buyers (${driver.buyers.length} arrived), ${seconds.toFixed(1)} s${driver.stoppedAtDeadline ? ' (stopped at the duration limit)' : ''}, ${total} requests, ${(total / Math.max(1, seconds)).toFixed(0)} req/s overall`,
  );
  lines.push('');
  lines.push(
    `  ${'endpoint'.padEnd(12)} ${pad('requests', 9)} ${pad('offered/s', 10)} ${pad('achieved/s', 11)} ${pad('p50 ms', 8)} ${pad('p95 ms', 8)} ${pad('p99 ms', 8)}  statuses`,
  );
  for (const row of endpointRows(recorder, driver.elapsedMs)) {
    lines.push(
      `  ${row.endpoint.padEnd(12)} ${pad(row.sent, 9)} ${pad(row.offeredRps.toFixed(1), 10)} ${pad(row.achievedRps.toFixed(1), 11)} ${pad(row.p50.toFixed(1), 8)} ${pad(row.p95.toFixed(1), 8)} ${pad(row.p99.toFixed(1), 8)}  ${row.statuses}`,
    );
  }
  lines.push(
    '  (offered: requests sent per second of the run; achieved: answers that are not failures — 2xx, 409, 410, 429 — per second)',
  );
  lines.push('');
  const a = admissionFigures(recorder, driver, context);
  lines.push(
    `  admissions: ${a.admitted} in total, ${a.perMinuteAverage.toFixed(0)}/min on average, at most ${a.maxInAnyMinute} in any 60 s (room setting ${a.setting}/min + burst ${a.burst}: ${a.maxInAnyMinute <= a.setting + a.burst ? 'within' : 'ABOVE'})`,
  );
  lines.push(
    `  admitted at once: at most ${a.peakActive} sampled (room capacity ${a.capacity}: ${a.peakActive <= a.capacity ? 'within' : 'ABOVE'})`,
  );
  lines.push(
    `  time in queue: p50 ${(recorder.queueTime.percentile(0.5) / 1000).toFixed(1)} s, p95 ${(recorder.queueTime.percentile(0.95) / 1000).toFixed(1)} s, max ${(recorder.queueTime.max / 1000).toFixed(1)} s; arrival to booking p50 ${(recorder.journeyTime.percentile(0.5) / 1000).toFixed(1)} s`,
  );
  const outcomes = new Map<string, number>();
  for (const buyer of driver.buyers)
    outcomes.set(
      buyer.outcome ?? `unfinished (${buyer.phase})`,
      (outcomes.get(buyer.outcome ?? `unfinished (${buyer.phase})`) ?? 0) + 1,
    );
  lines.push(
    `  outcomes: ${[...outcomes.entries()]
      .sort((x, y) => y[1] - x[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  const c = (name: string) => recorder.counters.get(name) ?? 0;
  lines.push(
    `  holds won ${c('hold_won')} (${c('seats_held')} seats), conflicts (409) ${c('conflict')}, gave up on seats ${c('gave_up_seats')}, rate-limited (429) ${c('rate_limited')}, booked ${c('booked')}`,
  );
  if (context.live.seatsAvailable !== undefined) {
    lines.push(
      `  seats now: available ${context.live.seatsAvailable}, held ${context.live.seatsHeld}, booked ${context.live.seatsBooked}`,
    );
  }
  lines.push('');
  lines.push(
    invariants
      ? `Invariants (showtime ${context.showtimeId}):\n${formatInvariantReport(invariants)}`
      : 'Invariants: not checked (no DATABASE_URL for a stack started elsewhere; run npm run loadtest:verify there)',
  );
  return lines.join('\n');
}
