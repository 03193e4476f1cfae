/**
 * `npm run bench -- best [seconds]`: 200 admitted buyers released together, each wanting 2
 * seats together, most aiming at the centre, on two showtimes of the same seeded hall (20 rows
 * x 30): pick-it-yourself with the page's retry behaviour (read the map, choose, hold; on 409
 * read again and choose again) against best available (`{count: 2, together: true}`), through
 * the core over HTTP. Printed for each: conflicts per successful hold, time to a hold p50/p95
 * (from the release, over every buyer: one still without a hold when the window closes counts
 * as "no hold"), and seats held when the window closes (what goes on to checkout; the payment
 * itself is the same for both ways and is not part of this comparison). Goal (docs/best-available.md):
 * best available ≤ 1 conflict per 100 holds, and its p95 below pick-it-yourself's p50.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { signAccessToken } from '../lib/access-token';
import { generateSigningJwk, loadTokenKeys } from '../lib/token-keys';
import { insertHallWithSeats, insertVenue } from '../core/src/catalog/venue-repo';
import { rectangularLayout } from '../core/src/demo/seat-layout';
import { createBenchDatabase } from './lib/bench-db';
import { startDeployedCore } from './lib/bench-core';
import { insertOnSaleShowtime } from './lib/bench-showtime';

const run = promisify(execFile);
const BUYERS = 200;
const COUNT = 2;
const CENTRE_SHARE = 0.8;

/** Over every buyer: one who got no hold within the window counts as never (Infinity), not as absent. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
const ms = (value: number) => (Number.isFinite(value) ? `${value} ms` : 'no hold').padStart(8);

export default async function bestBenchmark(args: string[]) {
  const seconds = Number(args[0] ?? 10);
  const db = await createBenchDatabase(32);
  try {
    const venue = await insertVenue(db.sql, { name: 'Bench', city: '' });
    const hall = await insertHallWithSeats(db.sql, {
      venueId: venue.id,
      name: 'Bench hall',
      seats: rectangularLayout({ rows: 20, columns: 30 }),
    });
    const showtime = (title: string) => insertOnSaleShowtime(db.sql, hall.id, title);
    const keys = await loadTokenKeys({ signingJwk: await generateSigningJwk('bench') });
    // The core as deployed (bench/lib/bench-core.ts): with the bench's pool of 32 sessions, best
    // available on a filling hall ran at half its rate (LWLock:BufferContent on the seats' pages).
    const core = await startDeployedCore(db.url, keys);
    const loader = fileURLToPath(new URL('./_best-load.ts', import.meta.url));
    const rows: string[] = [];
    const figures: Record<string, { conflictsPer100: number; p50: number; p95: number }> = {};
    try {
      for (const mode of ['pick', 'best'] as const) {
        const { id: showtimeId } = await showtime(mode);
        const tokens = await Promise.all(
          Array.from({ length: BUYERS }, (_, i) =>
            signAccessToken(keys, {
              customerId: `${mode}-${i}`,
              showtimeId,
              sessionId: `${mode}${i}`,
              expiresAtMs: Date.now() + 3_600_000,
            }),
          ),
        );
        console.log(
          `${mode === 'pick' ? 'pick-it-yourself' : 'best available'}: ${BUYERS} buyers x ${COUNT} seats, ${seconds}s window …`,
        );
        const { stdout } = await run(
          process.execPath,
          [
            '--import',
            'tsx',
            loader,
            JSON.stringify({
              url: core.url,
              showtimeId,
              tokens,
              count: COUNT,
              seconds,
              mode,
              centreShare: CENTRE_SHARE,
            }),
          ],
          { maxBuffer: 4 << 20 },
        );
        const { results } = JSON.parse(stdout.trim().split('\n').pop()!) as {
          results: { ms: number | null; conflicts: number }[];
        };
        const times = results.flatMap((r) => (r.ms === null ? [] : [r.ms]));
        const everyBuyer = results.map((r) => r.ms ?? Infinity);
        const conflicts = results.reduce((sum, r) => sum + r.conflicts, 0);
        const [held] = await db.sql<
          { n: number }[]
        >`SELECT count(*)::int AS n FROM show_seat WHERE showtime_id = ${showtimeId} AND status = 'HELD'`;
        const per100 = times.length ? (100 * conflicts) / times.length : Infinity;
        figures[mode] = { conflictsPer100: per100, p50: percentile(everyBuyer, 50), p95: percentile(everyBuyer, 95) };
        rows.push(
          `  ${(mode === 'pick' ? 'pick-it-yourself' : 'best available').padEnd(18)} holds ${String(times.length).padStart(4)}/${BUYERS}  conflicts/100 holds ${per100.toFixed(1).padStart(6)}  time to a hold p50 ${ms(figures[mode].p50)}  p95 ${ms(figures[mode].p95)}  seats held ${held!.n}`,
        );
      }
    } finally {
      await core.close();
    }
    console.log('');
    for (const row of rows) console.log(row);
    const best = figures.best!;
    const pick = figures.pick!;
    console.log(
      `  goal: best ≤ 1 conflict/100 holds: ${best.conflictsPer100 <= 1 ? 'met' : 'NOT met'};  best p95 (${ms(best.p95).trim()}) < pick p50 (${ms(pick.p50).trim()}): ${best.p95 < pick.p50 ? 'met' : 'NOT met'}`,
    );
  } finally {
    await db.drop();
  }
}
