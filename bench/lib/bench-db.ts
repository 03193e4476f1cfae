import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { connectDatabase } from '../../core/src/db/connect';
import { migrate } from '../../core/src/db/migrate';

const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A throwaway, migrated database for one benchmark run; dropped by `drop()`. */
export async function createBenchDatabase(poolSize: number) {
  const name = `wr_bench_${randomBytes(4).toString('hex')}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const sql = connectDatabase(url.toString(), { max: poolSize, applicationName: 'bench' });
  await migrate(sql);
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
