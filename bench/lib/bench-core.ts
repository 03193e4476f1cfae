import type { TokenKeyMaterial } from '../../lib/token-keys';
import { parseCoreConfig } from '../../core/src/config';
import { connectDatabase } from '../../core/src/db/connect';
import { startCore } from '../../core/src/node';
import { benchPlanning } from './bench-db';

/**
 * The core as deployed, for the benchmarks that load it over HTTP: its own pool of
 * DATABASE_POOL_SIZE sessions (10; BENCH_CORE_POOL=N to try another), planned as the core plans,
 * jobs off. Not the bench's own pool: 32 sessions on a 2-core database contend for locks and
 * pages a deployed core never sees in that number (holds: a fifth of the rate; best available
 * on a filling hall: 130 holds/s at 32 sessions against 274 at 10).
 */
export async function startDeployedCore(databaseUrl: string, tokenKeys: TokenKeyMaterial) {
  const config = parseCoreConfig({
    CORE_PORT: '0',
    CORE_HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    JOBS_ENABLED: 'false',
    ...(process.env.BENCH_CORE_POOL ? { DATABASE_POOL_SIZE: process.env.BENCH_CORE_POOL } : {}),
  });
  const sql = connectDatabase(databaseUrl, {
    max: config.databasePoolSize,
    applicationName: 'bench-core',
    ...benchPlanning(),
  });
  const core = await startCore(config, { sql, tokenKeys });
  return {
    url: core.url,
    pool: config.databasePoolSize,
    async close() {
      await core.close();
      await sql.end({ timeout: 2 });
    },
  };
}
