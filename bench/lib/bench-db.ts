import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { connectDatabase, type ConnectOptions } from '../../core/src/db/connect';
import { MIGRATIONS_DIR, migrate } from '../../core/src/db/migrate';
import { FUNCTIONS_DIR } from '../../core/src/db/function-files';

/**
 * BENCH_WITHOUT_MIGRATIONS=0011 (versions, comma-separated) migrates without those files, to
 * measure a schema change against the schema before it on the same machine. The function files
 * run either way (their bodies do not depend on how a table is partitioned).
 */
async function migrationsDir(): Promise<string> {
  const skip = (process.env.BENCH_WITHOUT_MIGRATIONS ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  if (skip.length === 0) return MIGRATIONS_DIR;
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-migrations-'));
  for (const name of await readdir(MIGRATIONS_DIR)) {
    if (name.endsWith('.sql') && !skip.some((version) => name.startsWith(`${version}_`)))
      await copyFile(path.join(MIGRATIONS_DIR, name), path.join(dir, name));
  }
  console.log(`(migrated without ${skip.join(', ')})`);
  return dir;
}

/**
 * How the benchmarks' sessions plan: as the core's (core/src/db/connect.ts) unless asked
 * otherwise. BENCH_PLAN_CACHE_MODE=auto: PostgreSQL's own choice of plans instead of generic
 * ones; BENCH_SEQUENTIAL_SCANS=on: the planner's default instead of the core's index-first
 * sessions. The pool of createBenchDatabase and pgbench's sessions (pgbench.ts) both follow it.
 */
export function benchPlanning(): Required<Pick<ConnectOptions, 'planCacheMode' | 'sequentialScans'>> {
  return {
    planCacheMode: (process.env.BENCH_PLAN_CACHE_MODE as ConnectOptions['planCacheMode']) ?? 'force_generic_plan',
    sequentialScans: process.env.BENCH_SEQUENTIAL_SCANS === 'on',
  };
}

const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * A throwaway, migrated database for one benchmark run; dropped by `drop()`. On the shared
 * server (BENCH_PG_ADMIN_URL) unless a benchmark names a server of its own.
 */
export async function createBenchDatabase(poolSize: number, adminUrl = ADMIN_URL) {
  const name = `wr_bench_${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const sql = connectDatabase(url.toString(), { max: poolSize, applicationName: 'bench', ...benchPlanning() });
  await migrate(sql, await migrationsDir(), FUNCTIONS_DIR);
  return {
    name,
    url: url.toString(),
    sql,
    async drop() {
      await sql.end({ timeout: 2 });
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
