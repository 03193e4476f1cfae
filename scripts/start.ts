/**
 * `npm start`: the whole stack in one process. Without DATABASE_URL the database is embedded
 * PGlite (in memory); with it, that server is used. Migrations run and the demo is seeded
 * idempotently either way. Without REDIS_URL the waiting room runs on the in-process store
 * (shared by the edge and the queue ticker) and booking events go from the core to the edge
 * in process; with it, Redis carries both. Ports: edge 8080, core 8081, payment sandbox 8082
 * (EDGE_PORT, CORE_PORT, PAYMENT_PORT).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { z } from 'zod';
import { logLevelSetting, optionalTextSetting, parseEnv } from '../lib/env';
import { encodeBookingEvent } from '../lib/booking-events';
import { resolveTokenKeys } from '../lib/token-config';
import { inProcessSink, redisStreamSink } from '../core/src/events/event-sink';
import { parseEdgeConfig } from '../edge/src/config';
import { connectEdgeRedis, startEdge } from '../edge/src/node';
import { createMemoryEdgeStore } from '../edge/src/state/memory-edge-store';
import { createIoredisStore, createMemoryStore, createRoomEngine, createRoomTicker } from '../queue/src/index';
import { parseTickerConfig } from '../queue/src/ticker-config';
import { coreHealthReader, createAdmissionGovernor } from '../queue/src/admission-governor';
import { parseCoreConfig } from '../core/src/config';
import { connectDatabase } from '../core/src/db/connect';
import { installDriverCloseRaceGuard } from '../core/src/db/driver-guard';
import { startEmbeddedDatabase } from '../core/src/db/embedded';
import { migrate } from '../core/src/db/migrate';
import { seedDemo } from '../core/src/demo/seed';
import { startCore } from '../core/src/node';
import { configFromEnv } from '../payment-sandbox/src/config';
import { startPaymentSandbox } from '../payment-sandbox/src/start';
import { holdClaimOwner } from '../core/src/checkout/claim-owner';

// The environment is read once: this record goes to every service's own parser (lib/env.ts),
// and the few settings of this launcher are parsed the same way.
const env: Record<string, string | undefined> = { ...process.env };
const settings = parseEnv(
  'npm start',
  z.object({
    LOG_LEVEL: logLevelSetting,
    REDIS_URL: optionalTextSetting,
    EDGE_PORT: optionalTextSetting,
    PAYMENT_PORT: optionalTextSetting,
    ADMIN_TOKEN: optionalTextSetting,
    PAYMENT_WEBHOOK_SECRET: optionalTextSetting,
  }),
  env,
);
const tickerConfig = parseTickerConfig(env);
const log = pino({ name: 'start', level: settings.LOG_LEVEL });
installDriverCloseRaceGuard(log);
// The edge and the sandbox listen on the network, where the public development secrets are
// refused: a stack started without its own gets fresh random ones (printed below).
const secrets = {
  ADMIN_TOKEN: settings.ADMIN_TOKEN ?? randomBytes(18).toString('base64url'),
  // 32 random bytes: long enough for the production policy (lib/secrets-policy.ts).
  PAYMENT_WEBHOOK_SECRET: settings.PAYMENT_WEBHOOK_SECRET ?? `whsec_${randomBytes(32).toString('base64url')}`,
};
// One process, one machine: unless told otherwise, the core finds the sandbox and sends buyers
// back to the edge on the ports this process is about to open.
const localUrl = (port: string | undefined, fallback: number) => `http://127.0.0.1:${port ?? fallback}`;
const coreConfig = parseCoreConfig({
  PAYMENT_URL: localUrl(settings.PAYMENT_PORT, 8082),
  PUBLIC_URL: localUrl(settings.EDGE_PORT, 8080),
  ...env,
  ...secrets,
});

const database = coreConfig.databaseUrl
  ? {
      sql: connectDatabase(coreConfig.databaseUrl, { max: coreConfig.databasePoolSize }),
      close: async () => {},
      embedded: false,
    }
  : { ...(await startEmbeddedDatabase()), embedded: true };
if (database.embedded) log.warn('DATABASE_URL not set: using embedded PGlite in memory (data is lost on exit)');

await migrate(database.sql);
const demo = await seedDemo(database.sql);

const tokenKeys = await resolveTokenKeys(coreConfig);
const redisUrl = settings.REDIS_URL ?? null;
if (!redisUrl)
  log.warn('REDIS_URL not set: the waiting room uses the in-process store (one process only, nothing kept)');

// Booking events: the core's outbox relay XADDs to Redis, or hands them over in process. Every
// part below takes REDIS_KEY_PREFIX from its own config, parsed from this one env record.
const embeddedEvents = redisUrl ? null : { sink: inProcessSink(), store: createMemoryEdgeStore() };
embeddedEvents?.sink.subscribe((events) => {
  for (const event of events) embeddedEvents.store.publishEvent(encodeBookingEvent(event));
});
const eventsRedis = redisUrl ? new Redis(redisUrl) : null;
const eventSink = eventsRedis
  ? redisStreamSink(eventsRedis, { keyPrefix: coreConfig.redisKeyPrefix })
  : embeddedEvents!.sink;

// The edge, the queue ticker and the core's own admission check share one room store: Redis,
// or the in-process store.
const tickerRedis = redisUrl ? connectEdgeRedis(redisUrl) : null;
const roomStore = tickerRedis ? createIoredisStore(tickerRedis) : createMemoryStore();
// On a database server, the core's lock of life (a checkout it never finished is taken over once
// it is gone); embedded, this one process is the only owner there is.
const claimOwner = coreConfig.databaseUrl ? await holdClaimOwner(coreConfig.databaseUrl) : null;
const core = await startCore(coreConfig, {
  sql: database.sql,
  claimOwner,
  defaultMetrics: true,
  tokenKeys,
  eventSink,
  admissionStore: roomStore,
  // The seat gate on the same store (the in-process twin of its scripts when embedded), moved by the same events.
  seatGateStore: roomStore,
  seatGateEventsRedis: tickerRedis,
  seatGateEventsSource: embeddedEvents?.sink ?? null,
});
const sandboxEnv = configFromEnv({ CORE_URL: core.url, ...env, ...secrets });
const sandbox = await startPaymentSandbox({
  port: sandboxEnv.port,
  hostname: process.env.PAYMENT_HOST ?? process.env.HOST ?? '127.0.0.1',
  config: sandboxEnv.config,
  logger: pino({ name: 'payment-sandbox', level: sandboxEnv.logLevel }),
});

const edgeConfig = parseEdgeConfig({ ...env, ...secrets, CORE_URL: core.url });
const edge = await startEdge(edgeConfig, {
  tokenKeys,
  ...(redisUrl ? {} : { scriptStore: roomStore, edgeStore: embeddedEvents!.store }),
});
const tickerEngine = createRoomEngine({ store: roomStore, keyPrefix: edgeConfig.keyPrefix });
const tickerLog = pino({ name: 'queue-ticker', level: tickerConfig.logLevel });
const ticker = createRoomTicker({ engine: tickerEngine, intervalMs: tickerConfig.intervalMs, logger: tickerLog });
ticker.start();
// Admission follows the core's health and the seats left (ADMISSION_GOVERN_MS=0 switches it off).
const governor =
  tickerConfig.governEveryMs > 0
    ? createAdmissionGovernor({
        engine: tickerEngine,
        readHealth: coreHealthReader({
          coreUrl: core.url,
          adminToken: coreConfig.adminToken,
          serviceToken: coreConfig.serviceToken,
        }),
        everyMs: tickerConfig.governEveryMs,
        logger: tickerLog,
      })
    : null;
governor?.start();

console.log(`
  Flash-sale stack is up
  edge             ${edge.url}      (buyers and operators: /api/…, /healthz, /metrics)
  core             ${core.url}      (GET /showtimes, /healthz, /metrics)
  payment sandbox  ${sandbox.url}
  database         ${database.embedded ? 'embedded PGlite (in memory)' : 'DATABASE_URL'}
  waiting room     ${redisUrl ? 'REDIS_URL' : 'in-process store'} (queue ticker every ${tickerConfig.intervalMs} ms)
  demo showtimes   ${demo.showtimeIds.join(', ')}
  admin token      ${coreConfig.adminToken}
  fairness         ${edge.url}/fairness  (receipt keys: /api/fairness/keys; npm run verify-fairness -- ${edge.url}/showtimes/<id>)
  try it           curl -s -X POST ${edge.url}/api/auth/demo -H 'content-type: application/json' -d '{}'
`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  await governor?.stop();
  await ticker.stop();
  await Promise.allSettled([edge.close(), core.close(), sandbox.close()]);
  tickerRedis?.disconnect();
  eventsRedis?.disconnect();
  await database.close();
  if (!database.embedded) await database.sql.end({ timeout: 2 });
  await claimOwner?.close();
  process.exit(0);
}
process.once('SIGINT', () => void shutdown('SIGINT'));
process.once('SIGTERM', () => void shutdown('SIGTERM'));
