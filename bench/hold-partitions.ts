/**
 * `npm run bench -- hold-partitions [seconds] [blocks] [historyRows]`: what partitioning
 * seat_hold (migration 0011) costs the hot path. Two databases side by side, one migrated with
 * every migration and one without 0011 (seat_hold a plain table), each with one showtime on
 * sale; 16 clients run the service's own statements (core/src/seats/seat-repo.ts: holdSeats,
 * findHold, endHold) hold-read-cancel on their own seats, in alternating windows so both see the
 * same machine load. The plain table is the limit; the figure is partitioned / plain.
 *
 * `blocks` attaches that many more seat_hold blocks (a production table has one per 10,000
 * showtime ids created over the retention period); `historyRows` puts that many ended holds of
 * past showtimes into both tables first (spread over the blocks), since a plain table keeps
 * growing where the partitioned one detaches. BENCH_PLAN_CACHE_MODE=auto sets PostgreSQL's
 * default planning for both (the core's pool forces generic plans).
 */
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { createBenchDatabase } from './lib/bench-db';
import { insertHallWithSeats, insertVenue } from '../core/src/catalog/venue-repo';
import { rectangularLayout } from '../core/src/demo/seat-layout';
import { endHold, findHold, holdSeats } from '../core/src/seats/seat-repo';
import { insertOnSaleShowtime } from './lib/bench-showtime';

const CLIENTS = 16;
const SEATS = rectangularLayout({ rows: 20, columns: 30 }).map((seat) => seat.code);
const BLOCK = 10_000;

async function database(without: string) {
  const previous = process.env.BENCH_WITHOUT_MIGRATIONS;
  process.env.BENCH_WITHOUT_MIGRATIONS = without;
  try {
    const db = await createBenchDatabase(CLIENTS);
    const venue = await insertVenue(db.sql, { name: 'Bench', city: '' });
    const hall = await insertHallWithSeats(db.sql, {
      venueId: venue.id,
      name: 'Bench hall',
      seats: rectangularLayout({ rows: 20, columns: 30 }),
    });
    const showtime = await insertOnSaleShowtime(db.sql, hall.id, 'hold-partitions');
    return { db, showtimeId: showtime.id };
  } finally {
    process.env.BENCH_WITHOUT_MIGRATIONS = previous;
  }
}
type Variant = Awaited<ReturnType<typeof database>>;

/** Ended holds of past showtimes (ids in the blocks after the first), without their triggers. */
async function addHistory(variant: Variant, rows: number, blocks: number) {
  await variant.db.sql.begin(async (tx) => {
    await tx`SET LOCAL session_replication_role = replica`;
    await tx`SET LOCAL statement_timeout = 0`;
    await tx.unsafe(`
      INSERT INTO seat_hold (id, showtime_id, customer_id, seat_codes, status, status_cause, created_at, expires_at, ended_at)
      SELECT gen_random_uuid(), ${BLOCK} + (n % ${Math.max(1, blocks) * BLOCK}), 'h' || (n % 100000), ARRAY['A1'], 'EXPIRED', 'history',
             now() - interval '40 days', now() - interval '39 days', now() - interval '39 days'
        FROM generate_series(1, ${rows}) AS n`);
    await tx`ANALYZE seat_hold`;
  });
}

/** Hold-read-cancel cycles per second over one window, 16 clients on their own seats. */
async function window(variant: Variant, ms: number): Promise<number> {
  let cycles = 0;
  const until = performance.now() + ms;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let k = 0; performance.now() < until; k++) {
        const holdId = randomUUID();
        const customerId = `bench-${client}`;
        const seat = SEATS[client + CLIENTS * (k % Math.floor(SEATS.length / CLIENTS))]!;
        await holdSeats(variant.db.sql, { showtimeId: variant.showtimeId, customerId, seatCodes: [seat], holdId });
        await findHold(variant.db.sql, holdId, variant.showtimeId);
        await endHold(variant.db.sql, { holdId, customerId, showtimeId: variant.showtimeId, cause: 'bench' });
        cycles++;
      }
    }),
  );
  return cycles / (ms / 1000);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export default async function holdPartitionsBenchmark(args: string[]) {
  const seconds = Number(args[0] ?? 4);
  const blocks = Number(args[1] ?? 0);
  const history = Number(args[2] ?? 0);
  const partitioned = await database('');
  const plain = await database('0011');
  try {
    if (blocks > 0) await partitioned.db.sql`SELECT seat_hold_ensure_partitions(${(blocks + 1) * BLOCK})`;
    if (history > 0) {
      console.log(`${history} ended holds of past showtimes into both tables …`);
      await addHistory(partitioned, history, blocks);
      await addHistory(plain, history, blocks);
    }
    const [row] = await partitioned.db.sql<
      { parts: number }[]
    >`SELECT count(*)::int AS parts FROM pg_inherits WHERE inhparent = 'seat_hold'::regclass`;
    const parts = row!.parts;
    console.log(
      `seat_hold partitions attached: ${parts} (with DEFAULT); ${CLIENTS} clients, 6 alternating windows of ${seconds}s each …`,
    );
    await window(partitioned, 1_000);
    await window(plain, 1_000);
    const rates = { partitioned: [] as number[], plain: [] as number[] };
    for (let round = 0; round < 6; round++) {
      const order = round % 2 === 0 ? (['partitioned', 'plain'] as const) : (['plain', 'partitioned'] as const);
      for (const name of order) rates[name].push(await window(name === 'plain' ? plain : partitioned, seconds * 1000));
    }
    const [ratio, limit] = [median(rates.partitioned), median(rates.plain)];
    console.log('');
    console.log(
      `  plain seat_hold (limit)        ${limit.toFixed(0).padStart(6)} hold-read-cancel/s   windows ${rates.plain.map((r) => r.toFixed(0)).join(' ')}`,
    );
    console.log(
      `  partitioned seat_hold          ${ratio.toFixed(0).padStart(6)} hold-read-cancel/s   windows ${rates.partitioned.map((r) => r.toFixed(0)).join(' ')}`,
    );
    console.log(`  ratio partitioned / plain      ${(ratio / limit).toFixed(2)}`);
  } finally {
    await partitioned.db.drop();
    await plain.db.drop();
  }
}
