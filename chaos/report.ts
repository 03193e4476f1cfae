/**
 * The suite's findings: one table (a row per run: bookings against the minimum, 5xx seen by
 * buyers, each check's breaches, recovery beside the machine's lag), the reasons a run failed
 * below it, and the same as JSON in reports/chaos/ for a machine to compare runs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHECK_NAMES } from './fault-checks';
import { REPO_ROOT } from './processes';
import type { FaultResult } from './suite';

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)];
}

const checkCell = (r: FaultResult, name: string) =>
  name in r.checks.couldNotRun ? 'n/a!' : String(r.checks.byCheck[name] ?? 0);

function recoveryCell(r: FaultResult): string {
  if (!r.recovery) return '-';
  if (r.recovery.ms === null) return 'never';
  return `${r.recovery.ms} (lag ${r.recovery.machineLagMs})`;
}

export function formatChaosReport(results: FaultResult[]): string {
  const header = [
    'fault',
    'bookings',
    'min',
    'after back',
    'min',
    'seat maps',
    'paid/settled',
    '5xx',
    '500',
    ...CHECK_NAMES,
    'recovery ms',
    'result',
  ];
  const rows = results.map((r) => [
    r.fault,
    String(r.work.bookings),
    r.minBookings === null ? '-' : String(r.minBookings),
    String(r.work.bookingsAfterBack),
    r.minBookingsAfterBack === null ? '-' : String(r.minBookingsAfterBack),
    String(r.work.seatMaps),
    String(r.work.paymentsSettled),
    String(r.status5xx),
    String(r.status500),
    ...CHECK_NAMES.map((name) => checkCell(r, name)),
    recoveryCell(r),
    r.failures.length ? 'FAIL' : 'ok',
  ]);
  const lines = table(header, rows);
  for (const r of results) {
    for (const [name, value] of Object.entries(r.figures ?? {}))
      lines.push(`  ${r.fault}: ${name} ${value === null ? 'not reached' : value.toLocaleString('en')}`);
  }
  for (const r of results.filter((x) => x.failures.length > 0)) lines.push(`  ${r.fault}: ${r.failures.join('; ')}`);
  const failed = results.filter((r) => r.failures.length > 0).length;
  lines.push(
    failed === 0
      ? `All ${results.length} runs: every check 0 and able to run, no 500, enough work done, recovered in time.`
      : `${failed} of ${results.length} runs failed.`,
  );
  return lines.join('\n');
}

/** Writes the results as JSON under reports/chaos/ (created); returns the path. */
export function writeChaosJson(
  results: FaultResult[],
  settings: Record<string, unknown>,
  dir = join(REPO_ROOT, 'reports', 'chaos'),
): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `chaos-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  const { log: _log, ...plainSettings } = settings;
  writeFileSync(
    path,
    `${JSON.stringify({ finishedAt: new Date().toISOString(), settings: plainSettings, results }, null, 2)}\n`,
  );
  return path;
}
