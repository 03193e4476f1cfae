/**
 * `npm run bench -- holds [seconds]`: successful holds per second through the core service
 * (HTTP, access token, hold_seats, then DELETE to release) at 32 concurrent clients on a
 * 600-seat showtime, next to pgbench at the same concurrency on the same server in the same run:
 *
 * - pgbench "same statements": exactly what the service sends to PostgreSQL per success
 *   (SELECT … FROM hold_seats(…), then the cancel statement). The service/pgbench ratio is
 *   what HTTP, tokens and Node cost on top of the database's own limit: the target figure.
 * - pgbench "bare UPDATE": the conditional UPDATE alone (then a plain release), the floor
 *   of what a hold can cost. The service/bare ratio is what every guarantee costs on top
 *   (goal ≥ 0.35, docs/best-available.md).
 * - best available beside them: {count: 2, together: true} + cancel through the service, and
 *   the same statements (hold_best_seats + cancel) in pgbench, on a showtime of its own.
 *
 * Every loop is hold-then-release, each client on its own share of the seats (seat index ≡
 * client mod 32, the same in pgbench and in the service load), so seats never run out and
 * pgbench clients never abort on a refusal.
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

// Seat index idx = client + 32·k (k < 18) → row 1 + idx / 30, column 1 + idx % 30.
const PICK_SEAT = `
\\set idx :client_id + ${CLIENTS} * random(0, ${Math.floor((ROWS * COLUMNS) / CLIENTS) - 1})
\\set row 1 + :idx / ${COLUMNS}
\\set col 1 + :idx % ${COLUMNS}
`;
const SEAT = `substr('${ROW_LABELS}', :row, 1) || :col`;

const BARE_UPDATE = `${PICK_SEAT}
UPDATE show_seat SET status = 'HELD', hold_id = gen_random_uuid(), customer_id = 'pgbench-' || :client_id,
       hold_expires_at = now() + interval '10 minutes', booking_id = NULL
 WHERE showtime_id = :show AND seat_code = ${SEAT}
   AND (status = 'AVAILABLE' OR (status = 'HELD' AND hold_expires_at <= now()));
UPDATE show_seat SET status = 'AVAILABLE', hold_id = NULL, customer_id = NULL, hold_expires_at = NULL
 WHERE showtime_id = :show AND seat_code = ${SEAT} AND customer_id = 'pgbench-' || :client_id AND status = 'HELD';
`;

// The statements of core/src/seats/seat-repo.ts (holdSeats, endHold), as the service sends them.
const SAME_STATEMENTS = `${PICK_SEAT}
SELECT hold_id FROM hold_seats(:show, 'pgbench-' || :client_id, ARRAY[${SEAT}], gen_random_uuid()) \\gset
WITH ended AS (
  UPDATE seat_hold SET status = CASE WHEN expires_at <= now() THEN 'EXPIRED' ELSE 'CANCELLED' END,
         status_cause = 'cancelled by customer', ended_at = now()
   WHERE id = :hold_id::uuid AND customer_id = 'pgbench-' || :client_id AND showtime_id = :show AND status = 'ACTIVE'
  RETURNING id, showtime_id, customer_id, status
), freed AS (
  UPDATE show_seat s SET status = 'AVAILABLE', hold_id = NULL, customer_id = NULL, hold_expires_at = NULL
    FROM ended e WHERE s.showtime_id = e.showtime_id AND s.hold_id = e.id AND s.status = 'HELD'
  RETURNING s.seat_code
), announced AS (
  INSERT INTO outbox (type, showtime_id, payload)
  SELECT 'HoldReleased', e.showtime_id, jsonb_build_object('holdId', e.id, 'customerId', e.customer_id,
         'reason', lower(e.status), 'seats', (SELECT coalesce(jsonb_agg(seat_code ORDER BY seat_code), '[]') FROM freed))
    FROM ended e
)
SELECT e.status AS ended_as, (SELECT count(*) FROM freed)::int AS seats_freed FROM ended e;
`;

// Best available: the core picks 2 together (hold_best_seats), then the same cancel.
const BEST_STATEMENTS = SAME_STATEMENTS.replace(PICK_SEAT, '').replace(
  `SELECT hold_id FROM hold_seats(:show, 'pgbench-' || :client_id, ARRAY[${SEAT}], gen_random_uuid()) \\gset`,
  `SELECT hold_id FROM hold_best_seats(:show, 'pgbench-' || :client_id, 2, true, false, NULL, gen_random_uuid()) \\gset`,
);

export default async function holdsBenchmark(args: string[]) {
  const seconds = Number(args[0] ?? 10);
  const db = await createBenchDatabase(CLIENTS);
  try {
    const venue = await insertVenue(db.sql, { name: 'Bench', city: '' });
    const hall = await insertHallWithSeats(db.sql, {
      venueId: venue.id,
      name: 'Bench hall',
      seats: rectangularLayout({ rows: ROWS, columns: COLUMNS }),
    });
    const showtime = (title: string) =>
      insertShowtime(db.sql, {
        hallId: hall.id,
        title,
        startsAt: new Date(Date.now() + 86_400_000),
        opensAt: new Date(Date.now() - 60_000),
        saleState: 'OPEN',
        priceCents: 1000,
        currency: 'EUR',
        maxSeatsPerCustomer: 8,
        holdTtlMs: 600_000,
      });
    const forBare = await showtime('pgbench bare');
    const forSame = await showtime('pgbench same');
    const forService = await showtime('service');
    const forBestPgbench = await showtime('pgbench best');
    const forBestService = await showtime('service best');
    if (!BEST_STATEMENTS.includes('hold_best_seats'))
      throw new Error('bench holds: the best-available script lost its statement');
    await db.sql`VACUUM ANALYZE`;

    console.log(`pgbench: bare conditional UPDATE + release, ${CLIENTS} clients, ${seconds}s …`);
    const bare = await pgbench({
      databaseUrl: db.url,
      script: BARE_UPDATE,
      clients: CLIENTS,
      seconds,
      variables: { show: forBare.id },
    });
    console.log(`pgbench: the service's own statements (hold_seats + cancel), ${CLIENTS} clients, ${seconds}s …`);
    const same = await pgbench({
      databaseUrl: db.url,
      script: SAME_STATEMENTS,
      clients: CLIENTS,
      seconds,
      variables: { show: forSame.id },
    });
    console.log(`pgbench: best available (hold_best_seats, 2 together + cancel), ${CLIENTS} clients, ${seconds}s …`);
    const bestSame = await pgbench({
      databaseUrl: db.url,
      script: BEST_STATEMENTS,
      clients: CLIENTS,
      seconds,
      variables: { show: forBestPgbench.id },
    });

    const keys = await loadTokenKeys({ signingJwk: await generateSigningJwk('bench') });
    const core = await startCore(
      parseCoreConfig({ CORE_PORT: '0', CORE_HOST: '127.0.0.1', LOG_LEVEL: 'warn', JOBS_ENABLED: 'false' }),
      { sql: db.sql, tokenKeys: keys },
    );
    const tokensFor = (showtimeId: number) =>
      Promise.all(
        Array.from({ length: CLIENTS }, (_, i) =>
          signAccessToken(keys, {
            customerId: `bench-${i}`,
            showtimeId,
            sessionId: `b${i}`,
            expiresAtMs: Date.now() + 3_600_000,
          }),
        ),
      );
    const tokens = await tokensFor(forService.id);
    // Seat index order = row-major, as in the pgbench script.
    const seats = rectangularLayout({ rows: ROWS, columns: COLUMNS }).map((s) => s.code);
    console.log(`core service: POST hold + DELETE hold, ${CLIENTS} clients, ${seconds}s …`);
    const loader = fileURLToPath(new URL('./_hold-load.ts', import.meta.url));
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', loader, JSON.stringify({ url: core.url, showtimeId: forService.id, tokens, seats, seconds })],
      { maxBuffer: 1 << 20 },
    );
    console.log(
      `core service: best available POST {count: 2, together: true} + DELETE, ${CLIENTS} clients, ${seconds}s …`,
    );
    const bestRun = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        loader,
        JSON.stringify({
          url: core.url,
          showtimeId: forBestService.id,
          tokens: await tokensFor(forBestService.id),
          seats,
          seconds,
          bestCount: 2,
        }),
      ],
      { maxBuffer: 1 << 20 },
    );
    await core.close();
    const result = JSON.parse(stdout.trim().split('\n').pop()!) as { holds: number; statuses: Record<string, number> };
    const bestResult = JSON.parse(bestRun.stdout.trim().split('\n').pop()!) as {
      holds: number;
      statuses: Record<string, number>;
    };

    const serviceRate = result.holds / seconds;
    console.log('');
    console.log(
      `  core service (HTTP)            ${serviceRate.toFixed(0).padStart(7)} successful holds/s  (statuses ${JSON.stringify(result.statuses)})`,
    );
    console.log(`  pgbench, same statements       ${same.tps.toFixed(0).padStart(7)} hold+release/s`);
    console.log(`  pgbench, bare UPDATE           ${bare.tps.toFixed(0).padStart(7)} hold+release/s`);
    console.log(`  ratio to the same statements   ${(serviceRate / same.tps).toFixed(2)}   (target ≥ 0.50)`);
    console.log(
      `  ratio to the bare UPDATE       ${(serviceRate / bare.tps).toFixed(2)}   (goal ≥ 0.35: what the guards, the hold record, the log and the outbox cost on top)`,
    );
    const bestRate = bestResult.holds / seconds;
    console.log(
      `  best available (HTTP)          ${bestRate.toFixed(0).padStart(7)} successful holds/s  (statuses ${JSON.stringify(bestResult.statuses)})`,
    );
    console.log(`  pgbench, best available        ${bestSame.tps.toFixed(0).padStart(7)} hold+release/s`);
    console.log(
      `  best: ratio to its statements  ${(bestRate / bestSame.tps).toFixed(2)};  to the bare UPDATE ${(bestRate / bare.tps).toFixed(2)};  to chosen seats through the service ${(bestRate / serviceRate).toFixed(2)}`,
    );
  } finally {
    await db.drop();
  }
}
