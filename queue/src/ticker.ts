/**
 * `npm run queue`: the ticker process. Drives admission for every open or scheduled room
 * registered in Redis (rooms register themselves when configured).
 *
 * Environment: REDIS_URL (default redis://127.0.0.1:6379), QUEUE_TICK_MS (default 200),
 * QUEUE_KEY_PREFIX (default none), REDIS_CLUSTER=1 to treat REDIS_URL as a cluster seed.
 */
import { Cluster, Redis } from 'ioredis';
import pino from 'pino';
import { createIoredisStore } from './ioredis-store';
import { createRoomEngine } from './room-engine';
import { createRoomTicker } from './room-ticker';

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

async function shutdown(signal: string) {
  logger.info({ signal }, 'stopping');
  await ticker.stop();
  await client.quit();
  process.exit(0);
}
process.once('SIGINT', () => void shutdown('SIGINT'));
process.once('SIGTERM', () => void shutdown('SIGTERM'));
