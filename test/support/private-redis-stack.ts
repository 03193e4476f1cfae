/**
 * The core on this run's PostgreSQL and the edge, both on a private redis-server the test may
 * restart empty or strip of a room's keys: for tests of what survives a Redis loss. The core's
 * jobs are off (the test drives what it needs) and the edge consumes no booking events.
 */
import { Redis } from 'ioredis';
import type { Sql } from 'postgres';
import { parseCoreConfig } from '../../core/src/config';
import { connectDatabase } from '../../core/src/db/connect';
import { startCore, type RunningCore } from '../../core/src/node';
import { createCoreHarness, type CoreHarness } from '../../core/test/core-harness';
import { parseEdgeConfig } from '../../edge/src/config';
import { startEdge, type RunningEdge } from '../../edge/src/node';
import { startRestartableRedis, type RestartableRedis } from '../../edge/test/private-servers';
import { generateSigningJwk, loadTokenKeys } from '../../lib/token-keys';
import { createIoredisStore } from '../../queue/src/index';
import { testDatabaseUrl } from './env';

export interface PrivateRedisStack {
  sql: Sql;
  h: CoreHarness;
  redis: RestartableRedis;
  /** A client of that Redis, for a test's direct reads and writes (no offline queue). */
  roomRedis: Redis;
  core: RunningCore;
  edge: RunningEdge;
  close(): Promise<void>;
}

export async function startPrivateRedisStack(options: {
  /** Names the connection and the key id. */
  name: string;
  adminToken: string;
  /** The edge's credential at the core (both sides), when the test wants one. */
  serviceToken?: string;
  /** Extra edge environment. */
  edgeEnv?: Record<string, string>;
}): Promise<PrivateRedisStack> {
  const sql = connectDatabase(testDatabaseUrl(), { max: 6, applicationName: `test-${options.name}-e2e` });
  const h = await createCoreHarness(sql);
  const redis = await startRestartableRedis();
  const tokenKeys = await loadTokenKeys({ signingJwk: await generateSigningJwk(`${options.name}-1`) });
  const roomRedis = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  roomRedis.on('error', () => {});
  const service = options.serviceToken ? { CORE_SERVICE_TOKEN: options.serviceToken } : {};
  const core = await startCore(
    parseCoreConfig({
      CORE_PORT: '0',
      ADMIN_TOKEN: options.adminToken,
      JOBS_ENABLED: 'false',
      LOG_LEVEL: 'silent',
      ...service,
    }),
    { sql, tokenKeys, admissionStore: createIoredisStore(roomRedis) },
  );
  const edge = await startEdge(
    parseEdgeConfig({
      EDGE_PORT: '0',
      EDGE_HOST: '127.0.0.1',
      CORE_URL: core.url,
      REDIS_URL: redis.url,
      ADMIN_TOKEN: options.adminToken,
      DEMO_LOGIN: '1',
      DEMO_LOGIN_PER_MINUTE: '100000',
      SNAPSHOT_TTL_MS: '50',
      ROOM_SYNC_MS: '200',
      FLOOD_POINTS: '100000',
      LOG_LEVEL: 'silent',
      ...service,
      ...options.edgeEnv,
    }),
    { tokenKeys, consumeEvents: false },
  );
  return {
    sql,
    h,
    redis,
    roomRedis,
    core,
    edge,
    async close() {
      await edge.close();
      await core.close();
      roomRedis.disconnect();
      await redis.stop();
      await sql.end();
    },
  };
}
