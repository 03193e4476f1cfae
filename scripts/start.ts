/**
 * `npm start`: the whole stack in one process. Without DATABASE_URL the database is embedded
 * PGlite (in memory); with it, that server is used. Migrations run and the demo is seeded
 * idempotently either way. Ports: core 8081, payment sandbox 8082 (CORE_PORT, PAYMENT_PORT).
 */
import pino from 'pino';
import { parseCoreConfig } from '../core/src/config';
import { connectDatabase } from '../core/src/db/connect';
import { startEmbeddedDatabase } from '../core/src/db/embedded';
import { migrate } from '../core/src/db/migrate';
import { seedDemo } from '../core/src/demo/seed';
import { startCore } from '../core/src/node';
import { configFromEnv } from '../payment-sandbox/src/config';
import { startPaymentSandbox } from '../payment-sandbox/src/start';

const log = pino({ name: 'start', level: process.env.LOG_LEVEL ?? 'info' });
const coreConfig = parseCoreConfig(process.env);

const database = coreConfig.databaseUrl
  ? { sql: connectDatabase(coreConfig.databaseUrl, { max: coreConfig.databasePoolSize }), close: async () => {}, embedded: false }
  : { ...(await startEmbeddedDatabase()), embedded: true };
if (database.embedded) log.warn('DATABASE_URL not set: using embedded PGlite in memory (data is lost on exit)');

await migrate(database.sql);
const demo = await seedDemo(database.sql);

const core = await startCore(coreConfig, { sql: database.sql, defaultMetrics: true });
const sandboxEnv = configFromEnv({ CORE_URL: core.url, ...process.env });
const sandbox = await startPaymentSandbox({
  port: sandboxEnv.port,
  hostname: '0.0.0.0',
  config: sandboxEnv.config,
  logger: pino({ name: 'payment-sandbox', level: process.env.LOG_LEVEL ?? 'info' }),
});

console.log(`
  Flash-sale stack is up
  core             ${core.url}      (GET /showtimes, /healthz, /metrics)
  payment sandbox  ${sandbox.url}
  database         ${database.embedded ? 'embedded PGlite (in memory)' : 'DATABASE_URL'}
  demo showtimes   ${demo.showtimeIds.join(', ')}
  admin token      ${coreConfig.adminToken}
`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  await Promise.allSettled([core.close(), sandbox.close()]);
  await database.close();
  if (!database.embedded) await database.sql.end({ timeout: 2 });
  process.exit(0);
}
process.once('SIGINT', () => void shutdown('SIGINT'));
process.once('SIGTERM', () => void shutdown('SIGTERM'));
