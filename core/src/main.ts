/** The core alone on CORE_PORT against DATABASE_URL (docker-compose, production). */
import { parseCoreConfig } from './config';
import { connectDatabase } from './db/connect';
import { migrate } from './db/migrate';
import { startCore } from './node';

const config = parseCoreConfig(process.env);
if (!config.databaseUrl) {
  console.error('DATABASE_URL is required to run the core on its own (npm start runs everything embedded).');
  process.exit(2);
}
const sql = connectDatabase(config.databaseUrl, { max: config.databasePoolSize });
await migrate(sql);
const core = await startCore(config, { sql, defaultMetrics: true });
const shutdown = async () => {
  await core.close();
  await sql.end({ timeout: 5 });
  process.exit(0);
};
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
