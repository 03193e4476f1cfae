/**
 * `npm run bench -- holds [seconds] [rounds]`: successful holds per second through the core
 * service (HTTP, access token, hold_seats, then DELETE to release) at 32 concurrent clients on
 * a 600-seat showtime, load from wrk (bench/lib/wrk-holds.ts), next to pgbench on the same
 * server, in rounds; each ratio is taken within a round, its median reported
 * (bench/lib/holds-report.ts):
 *
 * - pgbench "same statements": exactly what the service sends to PostgreSQL per success
 *   (SELECT … FROM hold_seats(…), then the cancel statement). The service/pgbench ratio is
 *   what HTTP, tokens and Node cost on top of the database's own limit: the target figure.
 * - pgbench "bare UPDATE": the conditional UPDATE alone (then a plain release), the floor
 *   of what a hold can cost. The service/bare ratio is what every guarantee costs on top
 *   (goal ≥ 0.35, docs/best-available.md).
 * - both pgbench figures at 32 clients and at the core's pool size, the better of the two
 *   being the database's limit.
 * - best available beside them: {count: 2, together: true} + cancel through the service, and
 *   the same statements (hold_best_seats + cancel) in pgbench, on a showtime of its own.
 *
 * The core runs as deployed: its own pool of DATABASE_POOL_SIZE sessions (10 unless
 * BENCH_CORE_POOL says otherwise), 32 buyers' requests queueing for them.
 *
 * Every loop is hold-then-release, each client on its own share of the seats (seat index ≡
 * client mod 32, the same in pgbench and in the service load), so seats never run out and
 * pgbench clients never abort on a refusal.
 */
import { signAccessToken } from '../lib/access-token';
import { generateSigningJwk, loadTokenKeys } from '../lib/token-keys';
import { insertHallWithSeats, insertVenue } from '../core/src/catalog/venue-repo';
import { rectangularLayout } from '../core/src/demo/seat-layout';
import { createBenchDatabase } from './lib/bench-db';
import { startDeployedCore } from './lib/bench-core';
import { pgbench } from './lib/pgbench';
import { wrkHolds } from './lib/wrk-holds';
import { bearerClient } from './lib/bearer-client';
import { holdsReport, type HoldsFigures } from './lib/holds-report';
import { BARE_UPDATE, BEST_STATEMENTS, CLIENTS, COLUMNS, ROWS, SAME_STATEMENTS } from './lib/hold-scripts';
import { insertOnSaleShowtime } from './lib/bench-showtime';

export default async function holdsBenchmark(args: string[]) {
  const seconds = Number(args[0] ?? 8);
  const rounds = Number(args[1] ?? 3);
  const db = await createBenchDatabase(CLIENTS);
  try {
    const venue = await insertVenue(db.sql, { name: 'Bench', city: '' });
    const hall = await insertHallWithSeats(db.sql, {
      venueId: venue.id,
      name: 'Bench hall',
      seats: rectangularLayout({ rows: ROWS, columns: COLUMNS }),
    });
    const showtime = (title: string) => insertOnSaleShowtime(db.sql, hall.id, title);
    const forBare = await showtime('pgbench bare');
    const forSame = await showtime('pgbench same');
    const forService = await showtime('service');
    const forBestPgbench = await showtime('pgbench best');
    const forBestService = await showtime('service best');
    if (!BEST_STATEMENTS.includes('hold_best_seats'))
      throw new Error('bench holds: the best-available script lost its statement');
    await db.sql`VACUUM ANALYZE`;

    const keys = await loadTokenKeys({ signingJwk: await generateSigningJwk('bench') });
    const core = await startDeployedCore(db.url, keys);
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
    const bestTokens = await tokensFor(forBestService.id);
    // wrk stops mid-loop: each client may leave one hold uncancelled. Left alone, it would sit on
    // one of the client's seats in the next run (a refusal) and count against its seat limit;
    // its owner cancels it through the core, as a buyer would.
    const client = bearerClient(core.url, CLIENTS);
    const releaseLeftovers = async (showtimeId: number, owners: string[]) => {
      const rows = await db.sql<{ id: string; customer_id: string }[]>`
        SELECT id, customer_id FROM seat_hold WHERE showtime_id = ${showtimeId} AND status = 'ACTIVE'`;
      await Promise.all(
        rows.map((row) =>
          client.request('DELETE', `/holds/${row.id}`, owners[Number(row.customer_id.slice('bench-'.length))]!),
        ),
      );
    };
    // Seat index order = row-major, as in the pgbench script.
    const seats = rectangularLayout({ rows: ROWS, columns: COLUMNS }).map((s) => s.code);

    // The machine is shared and noisy: every figure is taken `rounds` times, and each ratio is
    // taken within a round between runs that follow each other (bare, then the service, then its
    // statements; best available, then its statements), its median over the rounds reported.
    const figures: HoldsFigures = {
      bare: [],
      barePool: [],
      same: [],
      samePool: [],
      service: [],
      bestSame: [],
      bestService: [],
    };
    const refusals = { service: 0, bestService: 0, cancelFailed: 0 };
    const pool = core.pool;
    const pg = (script: string, show: number, clients = CLIENTS) =>
      pgbench({ databaseUrl: db.url, script, clients, seconds, variables: { show } });
    const serviceRun = () => wrkHolds({ url: core.url, showtimeId: forService.id, tokens, seats, seconds });
    const bestRun = () =>
      wrkHolds({
        url: core.url,
        showtimeId: forBestService.id,
        tokens: bestTokens,
        seats,
        seconds,
        bestBody: JSON.stringify({ count: 2, together: true }),
      });
    // A fresh core opens its database connections, plans its statements on each and warms its
    // JIT in the first seconds (measured: a first round at three quarters of the later ones after
    // a 3 s warm-up). A server at an opening has been up for hours: warm it for as long as a
    // measured run, and discard the figures.
    console.log(`warming the core up (${seconds} s chosen seats, ${seconds} s best available, not counted) …`);
    await serviceRun();
    await releaseLeftovers(forService.id, tokens);
    await bestRun();
    await releaseLeftovers(forBestService.id, bestTokens);
    for (let round = 1; round <= rounds; round++) {
      console.log(
        `round ${round}/${rounds}: pgbench bare (${CLIENTS} and ${pool} clients), service, pgbench same (${CLIENTS} and ${pool}), service best, pgbench best (${seconds}s each) …`,
      );
      figures.bare.push((await pg(BARE_UPDATE, forBare.id)).tps);
      figures.barePool.push((await pg(BARE_UPDATE, forBare.id, pool)).tps);
      const service = await serviceRun();
      figures.service.push(service.holds / seconds);
      await releaseLeftovers(forService.id, tokens);
      figures.same.push((await pg(SAME_STATEMENTS, forSame.id)).tps);
      figures.samePool.push((await pg(SAME_STATEMENTS, forSame.id, pool)).tps);
      const best = await bestRun();
      figures.bestService.push(best.holds / seconds);
      await releaseLeftovers(forBestService.id, bestTokens);
      figures.bestSame.push((await pg(BEST_STATEMENTS, forBestPgbench.id)).tps);
      refusals.service += service.refused;
      refusals.bestService += best.refused;
      refusals.cancelFailed += service.cancelFailed + best.cancelFailed;
      const last = (key: keyof typeof figures) => figures[key].at(-1)!.toFixed(0);
      console.log(
        `  bare ${last('bare')} (${pool} clients: ${last('barePool')})  service ${last('service')}  same ${last('same')} (${last('samePool')})  best service ${last('bestService')}  best pgbench ${last('bestSame')}`,
      );
    }
    client.close();
    await core.close();
    if (refusals.service + refusals.bestService + refusals.cancelFailed > 0)
      console.log(
        `  (refused holds: ${refusals.service} chosen, ${refusals.bestService} best; failed cancels: ${refusals.cancelFailed})`,
      );
    console.log('');
    for (const line of holdsReport(figures, { rounds, seconds, clients: CLIENTS, pool })) console.log(line);
  } finally {
    await db.drop();
  }
}
