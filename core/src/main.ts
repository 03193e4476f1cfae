/** The core alone on CORE_PORT against DATABASE_URL (docker-compose, production). */
import { parseCoreConfig } from './config';
import { connectDatabase } from './db/connect';
import { migrate } from './db/migrate';
import { startCore } from './node';
import { Redis } from 'ioredis';
import { redisStreamSink } from './events/event-sink';
import { watchRedisClient } from './events/redis-health';
import { installDriverCloseRaceGuard } from './db/driver-guard';
import pino from 'pino';
import { createIoredisStore } from '../../queue/src/index';
import { PatientRedis } from '../../lib/patient-redis';
import { holdClaimOwner } from './checkout/claim-owner';

const config = parseCoreConfig(process.env);
const processLog = pino({ name: 'core', level: config.logLevel });
installDriverCloseRaceGuard(processLog);
if (!config.databaseUrl) {
  console.error('DATABASE_URL is required to run the core on its own (npm start runs everything embedded).');
  process.exit(2);
}
const sql = connectDatabase(config.databaseUrl, { max: config.databasePoolSize });
await migrate(sql);
// The outbox relay publishes to the `booking-events` stream; without Redis, events wait in the
// outbox table until a relay with Redis runs.
const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2 }) : null;
if (!redis) console.warn('REDIS_URL not set: booking events stay in the outbox until a relay can publish them');
if (redis) watchRedisClient(redis, processLog, 'booking-events');
// The core's own admission check talks to the waiting room's Redis; it must fail fast when
// Redis is away (the failure policy then lets known turns go on), never queue commands.
const roomRedis = config.redisUrl
  ? new PatientRedis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1_000 })
  : null;
roomRedis?.on('error', () => {});
// This process's lock of life: a checkout it claims and never finishes (it was killed) is taken
// over by the buyer's next retry, not after the claim's lease.
const claimOwner = await holdClaimOwner(config.databaseUrl, {
  onError: (error) => processLog.warn({ err: error }, 'claim owner: keeping the instance lock failed'),
});
const core = await startCore(config, {
  sql,
  claimOwner,
  defaultMetrics: true,
  // The stream lives in the same namespace as the rooms the edge and the ticker read.
  eventSink: redis ? redisStreamSink(redis, { keyPrefix: config.redisKeyPrefix }) : null,
  admissionStore: roomRedis ? createIoredisStore(roomRedis) : null,
  // The seat gate shares the fail-fast client: without Redis it is skipped and the database decides alone.
  seatGateStore: roomRedis ? createIoredisStore(roomRedis) : null,
  seatGateEventsRedis: roomRedis,
});
const shutdown = async () => {
  await core.close();
  await sql.end({ timeout: 5 });
  await claimOwner.close();
  redis?.disconnect();
  roomRedis?.disconnect();
  process.exit(0);
};
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
