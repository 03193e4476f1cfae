/**
 * The whole stack in this process for end-to-end tests: a database of the run's own, a Redis
 * key namespace, the payment sandbox (its webhooks sent to the edge's public callback, as in
 * production), the core and the edge, each on a free port. Tests differ only in the
 * environment they give the core and the edge and in how often the core's jobs run.
 */
import { Redis } from 'ioredis';
import { parseCoreConfig } from '../../core/src/config';
import { connectDatabase } from '../../core/src/db/connect';
import { redisStreamSink } from '../../core/src/events/event-sink';
import { startCore, type RunningCore } from '../../core/src/node';
import { parseEdgeConfig } from '../../edge/src/config';
import { startEdge, type RunningEdge } from '../../edge/src/node';
import { generateSigningJwk, loadTokenKeys, type TokenKeyMaterial } from '../../lib/token-keys';
import { startPaymentSandbox, type RunningPaymentSandbox } from '../../payment-sandbox/src/start';
import { isolatedDatabase, testRedisNamespace, testRedisUrl } from './env';

type JobSettings = NonNullable<Parameters<typeof startCore>[1]['jobSettings']>;

export interface InProcessStackOptions {
  /** Names the database, the namespace, the key id and the connection (`test-<name>`). */
  name: string;
  adminToken: string;
  webhookSecret: string;
  paymentApiKey: string;
  /** Extra core environment (CORE_SERVICE_TOKEN, …). */
  coreEnv?: Record<string, string>;
  /** Extra edge environment, over the test defaults below. */
  edgeEnv?: Record<string, string>;
  jobSettings: JobSettings;
}

export interface InProcessStack {
  sql: ReturnType<typeof connectDatabase>;
  redis: Redis;
  namespace: string;
  keys: TokenKeyMaterial;
  sandbox: RunningPaymentSandbox;
  core: RunningCore;
  edge: RunningEdge;
  close(): Promise<void>;
}

export async function startInProcessStack(options: InProcessStackOptions): Promise<InProcessStack> {
  const database = await isolatedDatabase(options.name);
  const sql = connectDatabase(database.url, { max: 8, applicationName: `test-${options.name}` });
  const redis = new Redis(testRedisUrl());
  const namespace = testRedisNamespace(options.name);
  const keys = await loadTokenKeys({ signingJwk: await generateSigningJwk(`${options.name}-1`) });
  let edgeUrl = '';
  const sandbox = await startPaymentSandbox({
    port: 0,
    config: {
      apiKey: options.paymentApiKey,
      webhookSecrets: [options.webhookSecret],
      webhook: { baseDelayMs: 20, maxDelayMs: 200, maxAttempts: 50 },
    },
    fetch: (_url, init) => fetch(`${edgeUrl}/api/payments/callback`, init as RequestInit),
  });
  const core = await startCore(
    parseCoreConfig({
      CORE_PORT: '0',
      CORE_HOST: '127.0.0.1',
      ADMIN_TOKEN: options.adminToken,
      PAYMENT_URL: sandbox.url,
      PAYMENT_API_KEY: options.paymentApiKey,
      PAYMENT_WEBHOOK_SECRET: options.webhookSecret,
      PUBLIC_URL: 'http://127.0.0.1:1',
      LOG_LEVEL: 'silent',
      ...options.coreEnv,
    }),
    {
      sql,
      tokenKeys: keys,
      eventSink: redisStreamSink(redis, { keyPrefix: namespace }),
      jobSettings: options.jobSettings,
    },
  );
  const edge = await startEdge(
    parseEdgeConfig({
      EDGE_PORT: '0',
      EDGE_HOST: '127.0.0.1',
      CORE_URL: core.url,
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: namespace,
      ADMIN_TOKEN: options.adminToken,
      DEMO_LOGIN: '1',
      SNAPSHOT_TTL_MS: '50',
      SEAT_MAP_TTL_MS: '100',
      EVENTS_POLL_MS: '50',
      CORE_TIMEOUT_MS: '2000',
      FLOOD_POINTS: '100000',
      LOG_LEVEL: 'silent',
      ...options.edgeEnv,
    }),
    { tokenKeys: keys },
  );
  edgeUrl = edge.url;
  return {
    sql,
    redis,
    namespace,
    keys,
    sandbox,
    core,
    edge,
    async close() {
      await edge.close();
      await core.close();
      await sandbox.close();
      await sql.end();
      await database.drop();
      redis.disconnect();
    },
  };
}
