/**
 * `npm run queue`: the ticker process. Drives admission for every open or scheduled room
 * registered in Redis (rooms register themselves when configured).
 *
 * Environment: REDIS_URL (default redis://127.0.0.1:6379), QUEUE_TICK_MS (default 200),
 * QUEUE_KEY_PREFIX (default none), REDIS_CLUSTER=1 to treat REDIS_URL as a cluster seed.
 * With CORE_URL and ADMIN_TOKEN (and CORE_SERVICE_TOKEN where the core requires it), it also
 * restores rooms Redis lost, and older copies, from the core's sale control every
 * ROOM_SYNC_MS (default 2000).
 */
import { Cluster, Redis } from 'ioredis';
import pino from 'pino';
import { createIoredisStore } from './ioredis-store';
import { createRoomEngine } from './room-engine';
import { createRoomTicker } from './room-ticker';
import { coreSaleControl, syncRooms } from './room-sync';

const logger = pino({ name: 'queue-ticker' });
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const intervalMs = Number(process.env.QUEUE_TICK_MS ?? 200);
if (!Number.isFinite(intervalMs) || intervalMs < 10) {
  logger.error({ intervalMs }, 'QUEUE_TICK_MS must be a number of at least 10');
  process.exit(2);
}

const url = new URL(redisUrl);
const client =
  process.env.REDIS_CLUSTER === '1'
    ? new Cluster([{ host: url.hostname, port: Number(url.port || 6379) }])
    : new Redis(redisUrl);
client.on('error', (error: unknown) => logger.error({ err: error }, 'redis error'));

const engine = createRoomEngine({ store: createIoredisStore(client), keyPrefix: process.env.QUEUE_KEY_PREFIX ?? '' });
const ticker = createRoomTicker({ engine, intervalMs, logger });
ticker.start();
logger.info({ redis: url.host, intervalMs }, 'ticking rooms');

const coreUrl = process.env.CORE_URL;
const syncEveryMs = Number(process.env.ROOM_SYNC_MS ?? 2_000);
let syncTimer: ReturnType<typeof setInterval> | null = null;
if (coreUrl && process.env.ADMIN_TOKEN) {
  const control = coreSaleControl({ coreUrl, adminToken: process.env.ADMIN_TOKEN, serviceToken: process.env.CORE_SERVICE_TOKEN ?? null });
  let syncing = false;
  syncTimer = setInterval(() => {
    if (syncing) return;
    syncing = true;
    control
      .list()
      .then((controls) => syncRooms(engine, controls, logger, (showtimeId) => control.restore(engine, showtimeId, logger)))
      .then((written) => written > 0 && logger.info({ written }, 'rooms restored from the database'))
      .catch((error: unknown) => logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'room sync failed'))
      .finally(() => (syncing = false));
  }, syncEveryMs);
} else {
  logger.warn('CORE_URL or ADMIN_TOKEN not set: rooms Redis loses are restored by the edge only');
}

async function shutdown(signal: string) {
  logger.info({ signal }, 'stopping');
  if (syncTimer) clearInterval(syncTimer);
  await ticker.stop();
  await client.quit();
  process.exit(0);
}
process.once('SIGINT', () => void shutdown('SIGINT'));
process.once('SIGTERM', () => void shutdown('SIGTERM'));
