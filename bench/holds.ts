/**
 * `npm run bench -- holds [seconds]`: successful holds per second through the core service
 * (HTTP, token check, hold_seats, then cancel) at 32 concurrent clients on a 600-seat showtime,
 * next to pgbench running the same conditional UPDATE (then the release) at the same
 * concurrency on the same server, in the same run. Both loops are hold-then-release, so seats
 * never run out and each success costs the same database work shape.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { signAccessToken } from '../lib/access-token';
import { generateSigningJwk, loadTokenKeys } from '../lib/token-keys';
import { parseCoreConfig } from '../core/src/config';
import { startCore } from '../core/src/node';
import { insertShowtime } from '../core/src/catalog/showtime-repo';
import { insertHallWithSeats, insertVenue } from '../core/src/catalog/venue-repo';
import { rectangularLayout } from '../core/src/demo/seat-layout';
import { createBenchDatabase } from './lib/bench-db';
import { pgbench } from './lib/pgbench';

const run = promisify(execFile);
const CLIENTS = 32;
const ROWS = 20;
const COLUMNS = 30; // 600 seats
const ROW_LABELS = 'ABCDEFGHJKLMNPQRSTUV';

const HOLD_AND_RELEASE = `
\\set row random(1, ${ROWS})
\\set col random(1, ${COLUMNS})
UPDATE show_seat SET status = 'HELD', hold_id = gen_random_uuid(), customer_id = 'pgbench-' || :client_id,
       hold_expires_at = now() + interval '10 minutes', booking_id = NULL
 WHERE showtime_id = :show AND seat_code = substr('${ROW_LABELS}', :row, 1) || :col
   AND (status = 'AVAILABLE' OR (status = 'HELD' AND hold_expires_at <= now()));
UPDATE show_seat SET status = 'AVAILABLE', hold_id = NULL, customer_id = NULL, hold_expires_at = NULL
 WHERE showtime_id = :show AND seat_code = substr('${ROW_LABELS}', :row, 1) || :col
   AND customer_id = 'pgbench-' || :client_id AND status = 'HELD';
`;

export default async function holdsBenchmark(args: string[]) {
  const seconds = Number(args[0] ?? 10);
  const db = await createBenchDatabase(16);
  try {
    const venue = await insertVenue(db.sql, { name: 'Bench', city: '' });
    const hall = await insertHallWithSeats(db.sql, { venueId: venue.id, name: 'Bench hall', seats: rectangularLayout({ rows: ROWS, columns: COLUMNS }) });
    const showtime = (title: string) => insertShowtime(db.sql, {
      hallId: hall.id, title, startsAt: new Date(Date.now() + 86_400_000), opensAt: new Date(Date.now() - 60_000),
      saleState: 'OPEN', priceCents: 1000, currency: 'EUR', maxSeatsPerCustomer: 8, holdTtlMs: 600_000,
    });
    const forPgbench = await showtime('pgbench');
    const forService = await showtime('service');
    await db.sql`VACUUM ANALYZE show_seat`;

    console.log(`pgbench: hold+release UPDATEs, ${CLIENTS} clients, ${seconds}s …`);
    const limit = await pgbench({ databaseUrl: db.url, script: HOLD_AND_RELEASE, clients: CLIENTS, seconds, variables: { show: forPgbench.id } });

    const keys = await loadTokenKeys({ signingJwk: await generateSigningJwk('bench') });
    const core = await startCore(parseCoreConfig({ CORE_PORT: '0', CORE_HOST: '127.0.0.1', LOG_LEVEL: 'warn' }), { sql: db.sql, tokenKeys: keys });
    const tokens = await Promise.all(Array.from({ length: CLIENTS }, (_, i) =>
      signAccessToken(keys, { customerId: `bench-${i}`, showtimeId: forService.id, sessionId: `b${i}`, expiresAtMs: Date.now() + 3_600_000 })));
    const seats = rectangularLayout({ rows: ROWS, columns: COLUMNS }).map((s) => s.code);
    console.log(`core service: POST hold + DELETE hold, ${CLIENTS} clients, ${seconds}s …`);
    const loader = fileURLToPath(new URL('./_hold-load.ts', import.meta.url));
    const { stdout } = await run(process.execPath, ['--import', 'tsx', loader, JSON.stringify({ url: core.url, showtimeId: forService.id, tokens, seats, seconds })], { maxBuffer: 1 << 20 });
    await core.close();
    const result = JSON.parse(stdout.trim().split('\n').pop()!) as { holds: number; statuses: Record<string, number> };

    const serviceRate = result.holds / seconds;
    console.log('');
    console.log(`  core service   ${serviceRate.toFixed(0).padStart(8)} successful holds/s   (statuses ${JSON.stringify(result.statuses)})`);
    console.log(`  pgbench limit  ${limit.tps.toFixed(0).padStart(8)} hold+release/s     (same UPDATE, same concurrency)`);
    console.log(`  ratio          ${(serviceRate / limit.tps).toFixed(2)}   (target ≥ 0.50)`);
  } finally {
    await db.drop();
  }
}
