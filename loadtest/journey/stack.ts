/**
 * The whole stack in this process for a load run, wired like `npm start` (scripts/start.ts) but
 * on free loopback ports, with fresh token keys and a trusted X-Forwarded-For (each virtual
 * buyer has an address of its own, so the per-address flood limits see buyers, not the load
 * generator). Database: DATABASE_URL, or embedded PGlite. Waiting room and booking events:
 * REDIS_URL under a key prefix, or the in-process store.
 */
import { Redis } from 'ioredis';
import pino from 'pino';
import type { Sql } from 'postgres';
import { encodeBookingEvent } from '../../lib/booking-events';
import { generateSigningJwk, loadTokenKeys } from '../../lib/token-keys';
import { inProcessSink, redisStreamSink } from '../../core/src/events/event-sink';
import { parseCoreConfig } from '../../core/src/config';
import { connectDatabase } from '../../core/src/db/connect';
import { startEmbeddedDatabase } from '../../core/src/db/embedded';
import { migrate } from '../../core/src/db/migrate';
import { startCore } from '../../core/src/node';
import { createGatewayClient } from '../../core/src/payments/gateway-client';
import { parseEdgeConfig } from '../../edge/src/config';
import { connectEdgeRedis, startEdge } from '../../edge/src/node';
import { createMemoryEdgeStore } from '../../edge/src/state/memory-edge-store';
import { startPaymentSandbox } from '../../payment-sandbox/src/start';
import { createIoredisStore, createMemoryStore, createRoomEngine, createRoomTicker } from '../../queue/src/index';

export interface LocalStackOptions {
  databaseUrl?: string | null;
  redisUrl?: string | null;
  /** Namespace for every Redis key of this run (the room, limits, the event stream). */
  keyPrefix?: string;
  adminToken?: string;
  paymentApiKey?: string;
  databasePoolSize?: number;
  /** The edge's SHED_LAG_MS (0: never shed); the edge's default when unset. */
  shedLagMs?: number;
  logLevel?: 'silent' | 'error' | 'warn' | 'info';
}

export interface LocalStack {
  edgeUrl: string;
  coreUrl: string;
  paymentsUrl: string;
  adminToken: string;
  paymentApiKey: string;
  databaseUrl: string;
  sql: Sql;
  description: string;
  close(): Promise<void>;
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const level = options.logLevel ?? ((process.env.LOADTEST_LOG_LEVEL as LocalStackOptions['logLevel']) || 'silent');
  const adminToken = options.adminToken ?? 'loadtest-admin-token-0123456789';
  const paymentApiKey = options.paymentApiKey ?? 'sk_test_sandbox';
  const webhookSecret = 'whsec_loadtest';
  const keyPrefix = options.keyPrefix ?? '';
  const redisUrl = options.redisUrl || null;

  const embedded = options.databaseUrl ? null : await startEmbeddedDatabase();
  const databaseUrl = options.databaseUrl ?? embedded!.url;
  const sql = embedded
    ? embedded.sql
    : connectDatabase(databaseUrl, { max: options.databasePoolSize ?? 10, applicationName: 'loadtest-core' });
  await migrate(sql);

  const tokenKeys = await loadTokenKeys({
    signingJwk: await generateSigningJwk(`loadtest-${Date.now().toString(36)}`),
  });

  // The sandbox starts first (the core needs its URL); its webhooks go to the core once it listens.
  let coreUrl = '';
  const sandbox = await startPaymentSandbox({
    port: 0,
    config: {
      apiKey: paymentApiKey,
      webhookUrl: 'http://core.invalid/payments/callback',
      webhookSecrets: [webhookSecret],
      webhook: { baseDelayMs: 100, maxDelayMs: 2_000 },
    },
    fetch: (input, init) => fetch(String(input).replace('http://core.invalid', coreUrl), init),
    logger: pino({ name: 'payment-sandbox', level }),
  });

  const memoryEvents = redisUrl ? null : { sink: inProcessSink(), store: createMemoryEdgeStore() };
  memoryEvents?.sink.subscribe((events) => {
    for (const event of events) memoryEvents.store.publishEvent(encodeBookingEvent(event));
  });
  const eventsRedis = redisUrl ? new Redis(redisUrl) : null;
  const eventSink = eventsRedis ? redisStreamSink(eventsRedis, { keyPrefix }) : memoryEvents!.sink;

  const coreConfig = parseCoreConfig({
    CORE_PORT: '0',
    CORE_HOST: '127.0.0.1',
    ADMIN_TOKEN: adminToken,
    PAYMENT_WEBHOOK_SECRET: webhookSecret,
    PAYMENT_API_KEY: paymentApiKey,
    PAYMENT_URL: sandbox.url,
    LOG_LEVEL: level,
    JOBS_ENABLED: 'true',
  });
  const core = await startCore(coreConfig, {
    sql,
    tokenKeys,
    eventSink,
    gateway: createGatewayClient({ baseUrl: sandbox.url, apiKey: paymentApiKey }),
  });
  coreUrl = core.url;

  const edgeConfig = parseEdgeConfig({
    EDGE_PORT: '0',
    EDGE_HOST: '127.0.0.1',
    CORE_URL: core.url,
    ADMIN_TOKEN: adminToken,
    REDIS_KEY_PREFIX: keyPrefix,
    TRUST_PROXY: '1',
    LOG_LEVEL: level,
    EVENTS_POLL_MS: '100',
    ...(options.shedLagMs !== undefined ? { SHED_LAG_MS: String(options.shedLagMs) } : {}),
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
  });
  const tickerRedis = redisUrl ? connectEdgeRedis(redisUrl) : null;
  const roomStore = tickerRedis ? createIoredisStore(tickerRedis) : createMemoryStore();
  const edge = await startEdge(edgeConfig, {
    tokenKeys,
    ...(redisUrl ? {} : { scriptStore: roomStore, edgeStore: memoryEvents!.store }),
  });
  const ticker = createRoomTicker({
    engine: createRoomEngine({ store: roomStore, keyPrefix }),
    intervalMs: 200,
    logger: pino({ name: 'queue-ticker', level }),
  });
  ticker.start();

  return {
    edgeUrl: edge.url,
    coreUrl: core.url,
    paymentsUrl: sandbox.url,
    adminToken,
    paymentApiKey,
    databaseUrl,
    sql,
    description: `in process: ${embedded ? 'embedded PGlite' : 'PostgreSQL (DATABASE_URL)'}, ${redisUrl ? `Redis (prefix "${keyPrefix}")` : 'in-process room store'}`,
    async close() {
      await ticker.stop();
      await Promise.allSettled([edge.close(), core.close(), sandbox.close()]);
      tickerRedis?.disconnect();
      eventsRedis?.disconnect();
      if (embedded) await embedded.close();
      else await sql.end({ timeout: 2 });
    },
  };
}
