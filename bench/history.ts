/**
 * `npm run bench -- history [rows] [seconds]`: does a year of history around a showtime slow its
 * holds and seat map down, and what does partitioning change?
 *
 * Copies of the per-showtime seat table, each holding one showtime on sale next week (the newest):
 *   base   only that showtime's seats: the limit (no history at all);
 *   plain  plus `rows` seats of past showtimes (default 10 million), one table, primary key
 *          (showtime_id, seat_code): show_seat before migration 0007;
 *   blocks the same rows partitioned by RANGE of showtime_id, as show_seat is now, here in blocks
 *          of 1,000 showtimes (about 50 partitions: a month of a large chain's showtimes at the
 *          service's 10,000 per block); same key, the very same queries;
 *   weekly the same rows partitioned by week of the showtime's start, key
 *          (showtime_id, seat_code, starts_at); queries must name the start to read one partition.
 * pgbench runs the hold (the conditional UPDATE with expiry inside the condition, then the
 * release, each of 8 clients on its own seats) and the seat-map read on each copy; figures are
 * printed as ratios to `base`. Then it times what retention costs: deleting the oldest block's
 * rows from `plain` against detaching that block's partition.
 */
import { performance } from 'node:perf_hooks';
import postgres, { type Sql } from 'postgres';
import { createBenchDatabase } from './lib/bench-db';
import { pgbench } from './lib/pgbench';

const SEATS_PER_SHOWTIME = 200;
const CLIENTS = 8;
const WEEKS_OF_HISTORY = 52;
const BLOCK = 1_000;
const VARIANTS = ['base', 'plain', 'blocks', 'weekly'] as const;
type Variant = (typeof VARIANTS)[number];

const columns = `
  showtime_id     bigint NOT NULL,
  seat_code       varchar(8) NOT NULL,
  starts_at       timestamptz NOT NULL,
  status          text NOT NULL,
  hold_id         uuid,
  customer_id     varchar(64),
  hold_expires_at timestamptz,
  booking_id      uuid`;

const SALE_START = `to_timestamp(${Math.floor(Date.now() / 3_600_000) * 3600 + 7 * 86_400})`;

/** Past showtimes' seats (ids 1…), mostly sold, their starts spread over the last year. */
const historyRows = (schema: string, showtimes: number) => `
  INSERT INTO ${schema}.show_seat
  SELECT s, 'S' || n, date_trunc('hour', now()) - make_interval(hours => (s % (${WEEKS_OF_HISTORY} * 7 * 24)) + 1),
         CASE WHEN n % 5 = 0 THEN 'AVAILABLE' ELSE 'BOOKED' END, NULL,
         CASE WHEN n % 5 = 0 THEN NULL ELSE 'c' || (s * 7 + n) % 100000 END, NULL,
         CASE WHEN n % 5 = 0 THEN NULL ELSE gen_random_uuid() END
    FROM generate_series(1, ${showtimes}) AS s, generate_series(1, ${SEATS_PER_SHOWTIME}) AS n`;

/** The showtime on sale: the newest id, starting in a week, every seat available. */
const saleRows = (schema: string, saleId: number) => `
  INSERT INTO ${schema}.show_seat (showtime_id, seat_code, starts_at, status)
  SELECT ${saleId}, 'S' || n, ${SALE_START}, 'AVAILABLE' FROM generate_series(1, ${SEATS_PER_SHOWTIME}) AS n`;

/** Creates one copy and fills it; returns the seconds it took. */
async function build(sql: Sql, variant: Variant, showtimes: number, saleId: number): Promise<number> {
  const started = performance.now();
  const table = `${variant}.show_seat`;
  await sql.unsafe(`CREATE SCHEMA ${variant}`);
  if (variant === 'base' || variant === 'plain') await sql.unsafe(`CREATE TABLE ${table} (${columns})`);
  if (variant === 'blocks') {
    await sql.unsafe(`CREATE TABLE ${table} (${columns}) PARTITION BY RANGE (showtime_id)`);
    for (let low = 0; low <= saleId; low += BLOCK) {
      await sql.unsafe(
        `CREATE TABLE blocks.b${low} PARTITION OF ${table} FOR VALUES FROM (${low}) TO (${low + BLOCK})`,
      );
    }
  }
  if (variant === 'weekly') {
    await sql.unsafe(`CREATE TABLE ${table} (${columns}) PARTITION BY RANGE (starts_at)`);
    await sql.unsafe(`
      DO $$
      DECLARE w timestamptz;
      BEGIN
        FOR w IN SELECT generate_series(date_trunc('week', now()) - interval '${WEEKS_OF_HISTORY + 1} weeks',
                                        date_trunc('week', now()) + interval '3 weeks', interval '1 week') LOOP
          EXECUTE format('CREATE TABLE weekly.%I PARTITION OF weekly.show_seat FOR VALUES FROM (%L) TO (%L)',
                         'w' || to_char(w, 'IYYY_IW'), w, w + interval '1 week');
        END LOOP;
      END $$`);
  }
  if (variant !== 'base') await sql.unsafe(historyRows(variant, showtimes));
  await sql.unsafe(saleRows(variant, saleId));
  await sql.unsafe(
    `ALTER TABLE ${table} ADD PRIMARY KEY (showtime_id, seat_code${variant === 'weekly' ? ', starts_at' : ''})`,
  );
  await sql.unsafe(`VACUUM ANALYZE ${table}`);
  return (performance.now() - started) / 1000;
}

function scripts(variant: Variant, saleId: number) {
  const table = `${variant}.show_seat`;
  // Partitioned by start, a query must name the start to read one partition (the service
  // would have to read the showtime first); partitioned by showtime id, the id is enough.
  const where = `showtime_id = ${saleId}${variant === 'weekly' ? ` AND starts_at = ${SALE_START}` : ''}`;
  const seats = `seat_code IN ('S' || (:client_id * 2 + 1), 'S' || (:client_id * 2 + 2))`;
  return {
    hold: `
BEGIN;
UPDATE ${table} SET status = 'HELD', hold_id = gen_random_uuid(), customer_id = 'c' || :client_id, hold_expires_at = now() + interval '10 minutes'
 WHERE ${where} AND ${seats} AND (status = 'AVAILABLE' OR (status = 'HELD' AND hold_expires_at <= now()));
UPDATE ${table} SET status = 'AVAILABLE', hold_id = NULL, customer_id = NULL, hold_expires_at = NULL
 WHERE ${where} AND ${seats} AND customer_id = 'c' || :client_id;
COMMIT;
`,
    seatMap: `SELECT seat_code, status, hold_expires_at <= now() AS lapsed FROM ${table} WHERE ${where};\n`,
  };
}

/** Removing the oldest block of history: DELETE from the plain table against DETACH of its partition. */
async function retentionCost(sql: Sql) {
  let started = performance.now();
  const deleted = await sql`DELETE FROM plain.show_seat WHERE showtime_id >= 0 AND showtime_id < ${BLOCK}`;
  const deleteMs = performance.now() - started;
  started = performance.now();
  await sql.unsafe(`ALTER TABLE blocks.show_seat DETACH PARTITION blocks.b0`);
  const detachMs = performance.now() - started;
  return { rows: deleted.count, deleteMs, detachMs };
}

export default async function history(args: string[]) {
  const rows = Number(args[0] ?? 10_000_000);
  const seconds = Number(args[1] ?? 10);
  const showtimes = Math.ceil(rows / SEATS_PER_SHOWTIME);
  const saleId = showtimes + 1;
  const db = await createBenchDatabase(1);
  // One connection of its own without the service's statement timeout: building takes minutes.
  const sql = postgres(db.url, { max: 1, onnotice: () => {}, connection: { statement_timeout: 0 } });
  try {
    await sql.unsafe(`SET synchronous_commit = off`);
    console.log(
      `building: ${rows.toLocaleString('en')} seats of ${showtimes.toLocaleString('en')} past showtimes (${WEEKS_OF_HISTORY} weeks) around one on sale, in each copy`,
    );
    const built: Record<string, number> = {};
    for (const variant of VARIANTS) built[variant] = await build(sql, variant, showtimes, saleId);
    const sizes = await sql<{ variant: string; mb: number; parts: number }[]>`
      SELECT v AS variant,
             round((pg_total_relation_size(format('%I.show_seat', v)::regclass)
                    + coalesce((SELECT sum(pg_total_relation_size(i.inhrelid)) FROM pg_inherits i WHERE i.inhparent = format('%I.show_seat', v)::regclass), 0)) / 1048576.0)::int AS mb,
             (SELECT count(*) FROM pg_inherits i WHERE i.inhparent = format('%I.show_seat', v)::regclass)::int AS parts
        FROM unnest(${sql.array([...VARIANTS])}::text[]) AS v`;
    console.log(
      `built: ${sizes.map((s) => `${s.variant} ${s.mb} MB${s.parts ? ` in ${s.parts} partitions` : ''} (${built[s.variant]!.toFixed(0)} s)`).join(', ')}`,
    );

    const results = {} as Record<Variant, { hold: number; seatMap: number }>;
    for (const variant of VARIANTS) {
      const script = scripts(variant, saleId);
      const hold = await pgbench({ databaseUrl: db.url, script: script.hold, clients: CLIENTS, seconds });
      const seatMap = await pgbench({ databaseUrl: db.url, script: script.seatMap, clients: CLIENTS, seconds });
      results[variant] = { hold: hold.tps, seatMap: seatMap.tps };
    }
    const ms = (tps: number) => ((1000 * CLIENTS) / tps).toFixed(2);
    console.log(
      `pgbench, ${CLIENTS} clients, ${seconds} s each (hold = conditional UPDATE + release in one transaction):`,
    );
    for (const variant of VARIANTS) {
      const r = results[variant];
      console.log(
        `  ${variant.padEnd(7)} holds ${r.hold.toFixed(0).padStart(6)}/s (${ms(r.hold)} ms, ratio ${(r.hold / results.base.hold).toFixed(2)})   ` +
          `seat maps ${r.seatMap.toFixed(0).padStart(6)}/s (${ms(r.seatMap)} ms, ratio ${(r.seatMap / results.base.seatMap).toFixed(2)})`,
      );
    }

    const cost = await retentionCost(sql);
    console.log(
      `retention of the oldest block (${cost.rows.toLocaleString('en')} seats): DELETE from plain ${cost.deleteMs.toFixed(0)} ms ` +
        `(the dead rows stay until vacuum), DETACH from blocks ${cost.detachMs.toFixed(1)} ms`,
    );
  } finally {
    await sql.end();
    await db.drop();
  }
}
