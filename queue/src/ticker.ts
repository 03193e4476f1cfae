/**
 * `npm run queue`: the ticker process. Drives admission for every open or scheduled room
 * registered in Redis (rooms register themselves when configured).
 *
 * Environment (ticker-config.ts): REDIS_URL (default redis://127.0.0.1:6379), QUEUE_TICK_MS
 * (default 200), REDIS_KEY_PREFIX (default none, the same namespace as the edge's),
 * REDIS_CLUSTER=1 to treat REDIS_URL as a cluster seed. With CORE_URL and ADMIN_TOKEN (and
 * CORE_SERVICE_TOKEN where the core requires it), it also restores rooms Redis lost, and older
 * copies, from the core's sale control every ROOM_SYNC_MS (default 2000), and steers each room's
 * admission rate by the core's health every ADMISSION_GOVERN_MS (default 1000; 0 = off).
 */
import { Cluster, Redis } from 'ioredis';
import pino from 'pino';
import { coreHealthReader, createAdmissionGovernor } from './admission-governor';
import { createIoredisStore } from './ioredis-store';
import { createRoomEngine } from './room-engine';
import { createRoomTicker } from './room-ticker';
import { coreSaleControl, syncRooms } from './room-sync';
import { parseTickerConfig, type TickerConfig } from './ticker-config';

let config: TickerConfig;
try {
  config = parseTickerConfig(process.env);
} catch (error) {
  pino({ name: 'queue-ticker' }).error(error instanceof Error ? error.message : String(error));
  process.exit(2);
}
const { intervalMs } = config;
const logger = pino({ name: 'queue-ticker', level: config.logLevel });
for (const warning of config.warnings) logger.warn(warning);

const url = new URL(config.redisUrl);
const client = config.cluster
  ? new Cluster([{ host: url.hostname, port: Number(url.port || 6379) }])
  : new Redis(config.redisUrl);
client.on('error', (error: unknown) => logger.error({ err: error }, 'redis error'));

const engine = createRoomEngine({ store: createIoredisStore(client), keyPrefix: config.keyPrefix });
const ticker = createRoomTicker({ engine, intervalMs, logger });
ticker.start();
logger.info({ redis: url.host, intervalMs }, 'ticking rooms');

const { sync } = config;
let syncTimer: ReturnType<typeof setInterval> | null = null;
if (sync) {
  const control = coreSaleControl({
    coreUrl: sync.coreUrl,
    adminToken: sync.adminToken,
    serviceToken: sync.serviceToken,
  });
  let syncing = false;
  syncTimer = setInterval(() => {
    if (syncing) return;
    syncing = true;
    control
      .list()
      .then((controls) =>
        syncRooms(engine, controls, logger, (showtimeId) => control.restore(engine, showtimeId, logger)),
      )
      .then((written) => written > 0 && logger.info({ written }, 'rooms restored from the database'))
      .catch((error: unknown) =>
        logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'room sync failed'),
      )
      .finally(() => (syncing = false));
  }, sync.everyMs);
} else {
  logger.warn('CORE_URL or ADMIN_TOKEN not set: rooms Redis loses are restored by the edge only');
}

// The closed loop: the admission rate follows the core's health and the seats left.
const governor =
  sync && config.governEveryMs > 0
    ? createAdmissionGovernor({
        engine,
        readHealth: coreHealthReader({
          coreUrl: sync.coreUrl,
          adminToken: sync.adminToken,
          serviceToken: sync.serviceToken,
        }),
        everyMs: config.governEveryMs,
        logger,
      })
    : null;
governor?.start();
if (!governor)
  logger.warn(
    "admission does not follow the core's health (needs CORE_URL and ADMIN_TOKEN, and ADMISSION_GOVERN_MS > 0)",
  );

async function shutdown(signal: string) {
  logger.info({ signal }, 'stopping');
  if (syncTimer) clearInterval(syncTimer);
  await governor?.stop();
  await ticker.stop();
  await client.quit();
  process.exit(0);
}
process.once('SIGINT', () => void shutdown('SIGINT'));
process.once('SIGTERM', () => void shutdown('SIGTERM'));
