/**
 * The edge on Cloudflare Workers: the same app, with @upstash/redis (REST) for the queue,
 * secrets as bindings, an in-isolate flood limiter and CF-Connecting-IP as the client
 * address. Booking events are drained from a cron trigger and, at most once a second per
 * isolate, after a request (waitUntil), since a Worker has no background loop; the cron also
 * restores rooms from the core's sale control (a join restores a missing room at once) and
 * puts the rooms' turn lengths into the turn history the wait estimates of new rooms start from.
 */
import { Redis } from '@upstash/redis/cloudflare';
import { loadTokenKeys, parseJwkJson } from '../../lib/token-keys';
import type { RoomEngine } from '../../queue/src/room-engine';
import { recordTurnHistory } from '../../queue/src/room-ticker';
import { createUpstashStore } from '../../queue/src/upstash-store';
import type { EdgeApp } from './app';
import { parseEdgeConfig } from './config';
import { createMemoryFloodLimiter } from './limits/flood-limiter';
import { createEdgeMetrics } from './metrics';
import { isIpAddress, normalizeAddress } from './net/client-address';
import type { BookingEventsConsumer } from './rooms/booking-events-consumer';
import { buildEdge } from './services';
import { createRedisEdgeStore, upstashRestCommand } from './state/edge-store';
import { createRedisGuardStore } from './state/guard-store';

export type WorkerEnv = Record<string, string | undefined>;

interface Instance {
  app: EdgeApp;
  consumer: BookingEventsConsumer;
  engine: RoomEngine;
  lastPumpMs: number;
}

interface ExecutionContextLike {
  waitUntil(promise: Promise<unknown>): void;
}

const PUMP_EVERY_MS = 1_000;
let instance: Promise<Instance> | null = null;

async function build(env: WorkerEnv): Promise<Instance> {
  const config = parseEdgeConfig({ NODE_ENV: 'production', ...env });
  if (!config.upstash) throw new Error('UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN are required on Workers');
  if (!config.tokenSigningKey) throw new Error('TOKEN_SIGNING_KEY is required on Workers');
  // Keys are imported once per isolate, never per request.
  const [signingJwk] = parseJwkJson(config.tokenSigningKey);
  const tokenKeys = await loadTokenKeys({
    signingJwk: signingJwk ?? null,
    publicJwks: config.tokenPublicJwks ? parseJwkJson(config.tokenPublicJwks) : [],
  });
  const redis = new Redis({
    url: config.upstash.url,
    token: config.upstash.token,
    automaticDeserialization: false, // customer ids such as "1e3" must stay strings
    enableTelemetry: false,
  });
  const command = upstashRestCommand(config.upstash.url, config.upstash.token);
  const edgeStore = createRedisEdgeStore(command, config.keyPrefix);
  const metrics = createEdgeMetrics();
  const { app, consumer, deps } = buildEdge(config, {
    scriptStore: createUpstashStore(redis),
    edgeStore,
    guardStore: createRedisGuardStore(command, config.keyPrefix),
    floodLimiter: createMemoryFloodLimiter({
      points: config.flood.points,
      windowMs: config.flood.windowMs,
      blockMs: config.flood.windowMs,
    }),
    tokenKeys,
    metrics,
    // Cloudflare sets CF-Connecting-IP itself (a client-sent one is replaced), so it is the
    // client's address; X-Forwarded-For is never read here.
    clientAddress: (c) => {
      const address = c.req.header('cf-connecting-ip');
      return address && isIpAddress(address) ? normalizeAddress(address) : null;
    },
    logger: {
      error: (object, message) => console.error(message ?? 'error', object),
      warn: (object, message) => console.warn(message ?? 'warning', object),
    },
  });
  return { app, consumer, engine: deps.engine, lastPumpMs: 0 };
}

function instanceFor(env: WorkerEnv): Promise<Instance> {
  instance ??= build(env).catch((error: unknown) => {
    instance = null; // a bad deploy fails loudly per request and is retried, not cached
    throw error;
  });
  return instance;
}

function pumpSoon(current: Instance, ctx: ExecutionContextLike) {
  const now = Date.now();
  if (now - current.lastPumpMs < PUMP_EVERY_MS) return;
  current.lastPumpMs = now;
  ctx.waitUntil(
    current.consumer.pumpOnce().catch((error: unknown) => console.error('booking events: pump failed', error)),
  );
}

export default {
  async fetch(request: Request, env: WorkerEnv, ctx: ExecutionContextLike): Promise<Response> {
    const current = await instanceFor(env);
    const response = await current.app.fetch(request, env, ctx as never);
    pumpSoon(current, ctx);
    return response;
  },

  async scheduled(_event: unknown, env: WorkerEnv, ctx: ExecutionContextLike): Promise<void> {
    const current = await instanceFor(env);
    ctx.waitUntil(current.consumer.pumpOnce());
    // Rooms Redis lost, or holds an older copy of, come back from the core's sale control.
    ctx.waitUntil(current.app.catalog.syncAll().catch((error: unknown) => console.error('room sync failed', error)));
    // A Worker has no ticker: the cron puts each room's turn length into the cinema's turn history.
    ctx.waitUntil(
      recordTurnHistory(current.engine).catch((error: unknown) =>
        console.error('recording turn history failed', error),
      ),
    );
  },
};
