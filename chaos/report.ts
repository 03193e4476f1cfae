/** The suite's findings as text: per fault what buyers saw, time to recovery and the invariants. */
import { INVARIANT_LABELS, type FaultInvariants } from './invariants';
import type { FaultResult } from './suite';

export function formatChaosReport(results: FaultResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    lines.push(`■ ${r.fault}  (showtime ${r.showtimeId}, ${r.booked} bookings)`);
    lines.push(`  recovery: ${r.recoveryMs === null ? 'n/a (nothing stopped)' : `${r.recoveryMs} ms after the component was back`}`);
    const seen = [...r.answers].filter(([key]) => !/ (200|201|204)$/.test(key)).sort((a, b) => b[1] - a[1]);
    const ok = [...r.answers].filter(([key]) => / (200|201|204)$/.test(key)).reduce((n, [, c]) => n + c, 0);
    lines.push(`  buyers saw: ${ok} × 2xx${seen.length ? `; ${seen.map(([key, count]) => `${key} ×${count}`).join(', ')}` : ''}`);
    lines.push(`  invariants: ${(Object.keys(INVARIANT_LABELS) as (keyof FaultInvariants)[]).map((k) => `${INVARIANT_LABELS[k]} ${r.invariants[k]}`).join(', ')}; 500s ${r.status500}`);
    for (const detail of r.details) lines.push(`    - ${detail}`);
    lines.push(`  ${r.breaches.length === 0 ? 'PASS' : `BREACH: ${r.breaches.join('; ')}`}`);
  }
  const failed = results.filter((r) => r.breaches.length > 0).length;
  lines.push(failed === 0 ? `All ${results.length} faults: every invariant 0, no 500, recovered in time.` : `${failed} of ${results.length} faults breached.`);
  return lines.join('\n');
}
