/**
 * `npm run bench -- fare [seconds] [buckets]`: general-admission holds per second on ONE fare
 * class at 32 concurrent clients, with its counter in 1 row against split into N bucket rows
 * (README.md, "Fare classes"), next to pgbench running the same statement in the same run.
 *
 * - core hold service: createPlacesHold (hold_places, the retry on deadlock/lock timeout, the
 *   error mapping) from 32 concurrent callers on a pool of 32 connections, in process (no HTTP,
 *   so the figure is the database path, comparable with pgbench).
 * - pgbench "same statement": SELECT … FROM hold_places(…) as the service sends it, 32 clients.
 *   The service/pgbench ratio is what Node and postgres.js cost on top.
 * - pgbench "bare counter": the conditional UPDATE of one counter row alone, the floor.
 *
 * Every hold is one place for a new customer (so the per-customer limit never refuses), on a
 * class large enough never to fill during the run: what is measured is the counter row lock,
 * the hot row the buckets exist for. Each commit waits for its WAL flush while holding that row.
 */
import { randomUUID } from 'node:crypto';
import { insertHallWithSeats, insertVenue } from '../core/src/catalog/venue-repo';
import { rectangularLayout } from '../core/src/demo/seat-layout';
import { configurePlaces, insertPlacesClass } from '../core/src/fares/fare-repo';
import { createCoreMetrics } from '../core/src/metrics';
import { createHoldService } from '../core/src/seats/hold-service';
import { createBenchDatabase } from './lib/bench-db';
import { pgbench } from './lib/pgbench';
import { insertOnSaleShowtime } from './lib/bench-showtime';

const CLIENTS = 32;
const CAPACITY = 5_000_000;

const sameStatement = (fareClass: string) => `
\\set n random(1, 1000000000)
SELECT hold_id FROM hold_places(:show, 'pgbench-' || :client_id || '-' || :n, '${fareClass}', 1, gen_random_uuid());
`;

const bareCounter = (fareClass: string, buckets: number) => `
\\set b random(0, ${buckets - 1})
UPDATE fare_inventory SET held = held + 1
 WHERE showtime_id = :show AND fare_class = '${fareClass}' AND bucket = :b AND sold + held + 1 <= capacity + overbook_limit;
`;

export default async function fareBenchmark(args: string[]) {
  const seconds = Number(args[0] ?? 8);
  const buckets = Number(args[1] ?? 10);
  const db = await createBenchDatabase(CLIENTS);
  try {
    const venue = await insertVenue(db.sql, { name: 'Bench', city: '' });
    const hall = await insertHallWithSeats(db.sql, {
      venueId: venue.id,
      name: 'Bench hall',
      seats: rectangularLayout({ rows: 1, columns: 4 }),
    });
    const { id: showtimeId } = await insertOnSaleShowtime(db.sql, hall.id, 'fare bench');
    const classes = [
      ['ONE_SERVICE', 1],
      ['ONE_PGBENCH', 1],
      ['ONE_BARE', 1],
      ['MANY_SERVICE', buckets],
      ['MANY_PGBENCH', buckets],
      ['MANY_BARE', buckets],
    ] as const;
    for (const [fareClass, count] of classes) {
      await db.sql.begin(async (tx) => {
        await insertPlacesClass(tx, { showtimeId, fareClass, label: fareClass, priceCents: null });
        await configurePlaces(tx, { showtimeId, fareClass, capacity: CAPACITY, overbookLimit: 0, buckets: count });
      });
    }
    await db.sql`VACUUM ANALYZE`;

    const holds = createHoldService({ sql: db.sql, metrics: createCoreMetrics() });
    async function service(fareClass: string) {
      const statuses: Record<string, number> = {};
      let done = 0;
      const until = performance.now() + seconds * 1000;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (performance.now() < until) {
            try {
              await holds.createPlacesHold({ showtimeId, customerId: `svc-${randomUUID()}`, fareClass, quantity: 1 });
              done++;
            } catch (error) {
              const code = (error as { code?: string }).code ?? 'error';
              statuses[code] = (statuses[code] ?? 0) + 1;
            }
          }
        }),
      );
      return { rate: done / seconds, statuses };
    }

    const results: { label: string; service: number; same: number; bare: number; refusals: Record<string, number> }[] =
      [];
    for (const [label, count, prefix] of [
      ['1 bucket', 1, 'ONE'],
      [`${buckets} buckets`, buckets, 'MANY'],
    ] as const) {
      console.log(`${label}: core hold service, ${CLIENTS} clients, ${seconds}s …`);
      const svc = await service(`${prefix}_SERVICE`);
      console.log(`${label}: pgbench same statement, ${CLIENTS} clients, ${seconds}s …`);
      const same = await pgbench({
        databaseUrl: db.url,
        script: sameStatement(`${prefix}_PGBENCH`),
        clients: CLIENTS,
        seconds,
        variables: { show: showtimeId },
      });
      console.log(`${label}: pgbench bare counter UPDATE, ${CLIENTS} clients, ${seconds}s …`);
      const bare = await pgbench({
        databaseUrl: db.url,
        script: bareCounter(`${prefix}_BARE`, count),
        clients: CLIENTS,
        seconds,
        variables: { show: showtimeId },
      });
      results.push({ label, service: svc.rate, same: same.tps, bare: bare.tps, refusals: svc.statuses });
    }
    // Every count still agrees with the holds it came from (the bench is also a stress run).
    const [check] = await db.sql<{ off: number }[]>`
      SELECT count(*)::int AS off FROM fare_inventory f
       WHERE f.showtime_id = ${showtimeId} AND f.fare_class IN ('ONE_SERVICE', 'MANY_SERVICE', 'ONE_PGBENCH', 'MANY_PGBENCH')
         AND f.held <> (SELECT coalesce(sum(a.quantity), 0) FROM hold_allocation a
                         WHERE a.showtime_id = f.showtime_id AND a.fare_class = f.fare_class AND a.bucket = f.bucket)`;

    console.log('');
    console.log('  counter rows      core service   pgbench same   pgbench bare   service/same');
    for (const r of results) {
      console.log(
        `  ${r.label.padEnd(16)}${r.service.toFixed(0).padStart(9)}/s  ${r.same.toFixed(0).padStart(11)}/s  ${r.bare.toFixed(0).padStart(11)}/s  ${(r.service / r.same).toFixed(2).padStart(10)}` +
          (Object.keys(r.refusals).length ? `   refusals ${JSON.stringify(r.refusals)}` : ''),
      );
    }
    const [one, many] = results;
    console.log(
      `  ${buckets} buckets / 1 bucket: service ${(many!.service / one!.service).toFixed(2)}x, pgbench ${(many!.same / one!.same).toFixed(2)}x`,
    );
    console.log(`  bucket rows whose held differs from their holds' allocations: ${check!.off}`);
  } finally {
    await db.drop();
  }
}
