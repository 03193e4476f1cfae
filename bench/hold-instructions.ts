/**
 * `npm run bench -- hold-instructions [pairs]`: the database's own work per hold and cancel, in
 * CPU instructions, next to the bare conditional UPDATE and release counted the same way: the
 * physical limit of the same table, in the same run. Best available (two seats together, then
 * the same cancel) is counted beside them.
 *
 * Timed runs on a shared 2-core machine drift by a factor of two between minutes; instruction
 * counts do not. A private PostgreSQL is migrated and seeded as the `holds` bench seeds its
 * database, warmed with some seconds of each script under pgbench (a steady state: indexes and
 * pages in use, not a fresh table), then stopped and copied. Each count restores that copy and
 * runs one single-user PostgreSQL under valgrind's callgrind on a script of PREPAREd statements:
 * exactly the statements of `holds` (bench/lib/hold-scripts.ts), planned generically as the
 * core's sessions plan them. Each figure is the difference between a run of `pairs` + 20 and one
 * of 20 pairs, divided by `pairs`, so start-up and catalog loading cancel out.
 *
 * What it does not see: waits (row locks, WAL flushes, lock-manager contention), the kernel, and
 * the network. Those are what `holds` measures; this one shows whether a change to the
 * statements made them cheaper, by how much, beyond the machine's noise.
 */
import { execFile } from 'node:child_process';
import { chownSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { insertHallWithSeats, insertVenue } from '../core/src/catalog/venue-repo';
import { rectangularLayout } from '../core/src/demo/seat-layout';
import { POSTGRES_BIN, postgresIds, runAsPostgres, startPrivatePostgres } from '../chaos/private-postgres';
import { createBenchDatabase } from './lib/bench-db';
import { pgbench } from './lib/pgbench';
import { COLUMNS, ROWS } from './lib/hold-scripts';
import { HOLD_SCRIPTS, singleUserScript, type HoldKind } from './lib/single-user-script';
import { insertOnSaleShowtime } from './lib/bench-showtime';

const run = promisify(execFile);
const BASELINE_PAIRS = 20;
const KINDS = Object.keys(HOLD_SCRIPTS) as HoldKind[];
const WARM_SECONDS = Number(process.env.BENCH_WARM_SECONDS ?? 10);

export default async function holdInstructionsBenchmark(args: string[]) {
  const pairs = Number(args[0] ?? 200);
  try {
    await run('valgrind', ['--version']);
  } catch {
    console.log('valgrind is not installed: nothing counted (apt-get install valgrind)');
    return;
  }
  const server = await startPrivatePostgres();
  try {
    const db = await createBenchDatabase(4, server.url);
    const venue = await insertVenue(db.sql, { name: 'Bench', city: '' });
    const hall = await insertHallWithSeats(db.sql, {
      venueId: venue.id,
      name: 'Bench hall',
      seats: rectangularLayout({ rows: ROWS, columns: COLUMNS }),
    });
    const showtimes: Record<HoldKind, number> = { bare: 0, same: 0, best: 0 };
    for (const kind of KINDS) {
      const showtime = await insertOnSaleShowtime(db.sql, hall.id, kind);
      showtimes[kind] = showtime.id;
    }
    // A steady state, as a sale in progress has: a few thousand holds made and cancelled.
    for (const kind of KINDS)
      await pgbench({
        databaseUrl: db.url,
        script: HOLD_SCRIPTS[kind],
        clients: 4,
        seconds: WARM_SECONDS,
        variables: { show: showtimes[kind] },
      });
    // pgbench stops mid-loop: free what it left held, then settle the tables.
    await db.sql`UPDATE seat_hold SET status = 'CANCELLED', status_cause = 'bench reset', ended_at = now()
                  WHERE status = 'ACTIVE'`;
    await db.sql`UPDATE show_seat SET status = 'AVAILABLE', hold_id = NULL, customer_id = NULL, hold_expires_at = NULL
                  WHERE status = 'HELD'`;
    await db.sql`VACUUM ANALYZE`;
    const name = db.name;
    await db.sql.end({ timeout: 2 });
    await server.stop('fast');
    const snapshot = `${server.dataDir}.snapshot`;
    await runAsPostgres('cp', ['-a', server.dataDir, snapshot]);

    const count = async (kind: HoldKind, n: number): Promise<number> => {
      await runAsPostgres('rm', ['-rf', server.dataDir]);
      await runAsPostgres('cp', ['-a', snapshot, server.dataDir]);
      const file = join(server.dataDir, '..', `script-${kind}-${n}.sql`);
      writeFileSync(file, singleUserScript(kind, showtimes[kind], n));
      const ids = await postgresIds();
      if (ids) chownSync(file, ids.uid, ids.gid);
      return callgrindInstructions(server.dataDir, name, file);
    };
    const perPair: Record<HoldKind, number> = { bare: 0, same: 0, best: 0 };
    for (const kind of KINDS) {
      const base = await count(kind, BASELINE_PAIRS);
      const full = await count(kind, BASELINE_PAIRS + pairs);
      perPair[kind] = (full - base) / pairs;
    }
    const millions = (n: number) => `${(n / 1e6).toFixed(3)} M`;
    console.log(`  ${pairs} pairs counted (a run of ${BASELINE_PAIRS + pairs} less one of ${BASELINE_PAIRS})`);
    console.log(`  bare UPDATE + release                ${millions(perPair.bare)} instructions per pair`);
    console.log(`  service statements (hold + cancel)   ${millions(perPair.same)} instructions per pair`);
    console.log(`  ratio bare / service                 ${(perPair.bare / perPair.same).toFixed(3)}`);
    console.log(`  best available (2 together + cancel) ${millions(perPair.best)} instructions per pair`);
    console.log(`  ratio service / best available       ${(perPair.same / perPair.best).toFixed(3)}`);
  } finally {
    await server.destroy();
  }
}

/** Runs one single-user PostgreSQL on `script` under callgrind; returns the instructions it ran. */
async function callgrindInstructions(dataDir: string, database: string, script: string): Promise<number> {
  const command = [
    'valgrind',
    '--tool=callgrind',
    '--callgrind-out-file=/dev/null',
    join(POSTGRES_BIN, 'postgres'),
    '--single',
    '-D',
    dataDir,
    '-c',
    'shared_preload_libraries=',
    // Commits skip the disk flush: a system call, which callgrind does not count anyway.
    '-c',
    'fsync=off',
    database,
  ];
  // The script is the server's standard input: a shell as the postgres user redirects it.
  const { stdout, stderr } = await runAsPostgres(
    'sh',
    ['-c', 'script=$1; shift; exec "$@" < "$script"', 'sh', script, ...command],
    30 * 60_000,
  );
  if (/\bERROR:/.test(stdout + stderr))
    throw new Error(`hold-instructions: a statement failed:\n${(stdout + stderr).slice(-2000)}`);
  const collected = /Collected : (\d+)/.exec(stderr);
  if (!collected) throw new Error(`hold-instructions: no count from callgrind:\n${stderr.slice(-2000)}`);
  return Number(collected[1]);
}
