/**
 * The edge on Node: @hono/node-server on EDGE_PORT, ioredis for the queue (Redis or the
 * in-process store when REDIS_URL is absent), flood limits (limits/node-flood-limiter.ts),
 * the booking-events consumer loop, and joins and most polls answered on node:http itself
 * (node-fast-join.ts, node-fast-poll.ts), behind load shedding (net/load-shedding.ts).
 * `startEdge` serves tests, `npm start` and the benchmark.
 */
import { getRequestListener } from '@hono/node-server';
import { createServer, type Server } from 'node:http';
import { brotliCompressSync, constants as zlibConstants } from 'node:zlib';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { Redis } from 'ioredis';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { resolveTokenKeys } from '../../lib/token-config';
import type { TokenKeyMaterial } from '../../lib/token-keys';
import { createIoredisStore, type ScriptStore } from '../../queue/src/index';
import { createMemoryStore } from '../../queue/src/memory-store';
import { startRoomSync } from './rooms/room-sync';
import type { EdgeApp } from './app';
import type { EdgeConfig } from './config';
import { createMemoryFloodLimiter, type FloodLimiter } from './limits/flood-limiter';
import { createNodeFloodLimiter } from './limits/node-flood-limiter';
import { createEdgeMetrics } from './metrics';
import type { BookingEventsConsumer } from './rooms/booking-events-consumer';
import { buildEdge } from './services';
import { fastPollListener } from './node-fast-poll';
import { fastJoinListener } from './node-fast-join';
import { nodeHmacSha256 } from './tokens/queue-token-node';
import { clientAddressFrom, clientAddressing, type ProxyTrust } from './net/client-address';
import { addAcceptors } from './net/acceptors';
import { loadSheddingListener, startLagMonitor, type LoadState } from './net/load-shedding';
import { createRedisEdgeStore, type EdgeStore } from './state/edge-store';
import { createMemoryEdgeStore } from './state/memory-edge-store';
import { createMemoryGuardStore, createRedisGuardStore } from './state/guard-store';
import { PatientRedis } from '../../lib/patient-redis';

/** Brotli at quality 5: pages are made per request, and 5 is most of 11's gain at a fraction of its time. */
const nodeBrotli = (body: Uint8Array) =>
  new Uint8Array(
    brotliCompressSync(body, {
      params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: body.byteLength },
    }),
  );

/** Idle keep-alive on buyer connections: above common proxies' and k6's idle timeouts (see below). */
export const EDGE_KEEP_ALIVE_MS = 65_000;
export interface RunningEdge {
  url: string;
  port: number;
  app: EdgeApp;
  consumer: BookingEventsConsumer;
  redis: Redis | null;
  /** The HTTP server (tests watch its connections). */
  server: Server;
  /** Descriptors polled for new connections (EDGE_ACCEPTORS; one in a node:cluster worker). */
  acceptors: number;
  /** Event-loop lag and whether the edge sheds (net/load-shedding.ts). */
  load: LoadState;
  /** `graceMs`: let requests being answered finish (at most that long) before closing their connections. */
  close(options?: { graceMs?: number }): Promise<void>;
}

export interface StartEdgeDeps {
  tokenKeys?: TokenKeyMaterial;
  /** Embedded mode: share one in-process store with the queue ticker. */
  scriptStore?: ScriptStore;
  edgeStore?: EdgeStore;
  floodLimiter?: FloodLimiter;
  /** Do not run the booking-events loop (tests drive `consumer.pumpOnce()` themselves). */
  consumeEvents?: boolean;
  /** Serve joins on node:http (node-fast-join.ts); false sends them through the Hono app (the comparison test). */
  fastJoin?: boolean;
  /** Tests: a load state to shed by instead of the measured event-loop lag. */
  load?: LoadState;
}

/**
 * Fails fast while Redis is away (no offline queue) or does not answer (1 s), so buyers get
 * 503 instead of a hang; a starved event loop is not taken for a silent Redis (PatientRedis).
 */
export function connectEdgeRedis(url: string): Redis {
  const redis = new PatientRedis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 1_000,
    commandTimeout: 1_000,
    retryStrategy: (attempt) => Math.min(1_000, attempt * 100),
    // Commands issued in one event-loop turn (the joins and polls of many buyers) travel in one
    // write: at the opening, one socket write per join was a fifth of the join's time.
    enableAutoPipelining: true,
  });
  redis.on('error', () => {}); // reported per failed command; reconnects by itself
  return redis;
}

async function waitReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The client address of a Hono request on Node (see net/client-address.ts for the rules). */
export function clientAddressFor(trust: ProxyTrust) {
  return (c: Context): string | null => {
    let socket: string | null = null;
    try {
      socket = getConnInfo(c).remote.address ?? null;
    } catch {
      socket = null; // app.request() in tests has no socket
    }
    return clientAddressFrom(trust.proxies.size > 0 ? c.req.header('x-forwarded-for') : undefined, socket, trust);
  };
}

export async function startEdge(config: EdgeConfig, deps: StartEdgeDeps = {}): Promise<RunningEdge> {
  const logger = pino({ name: 'edge', level: config.logLevel });
  for (const warning of config.warnings) logger.warn(`UNSAFE CONFIGURATION: ${warning}`);
  const metrics = createEdgeMetrics();
  const addressing = clientAddressing(config.trustProxyCidrs, config.trustProxyHops, config.ipv6LimitPrefix);
  const tokenKeys = deps.tokenKeys ?? (await resolveTokenKeys(config));
  const redis = config.redisUrl && !deps.scriptStore ? connectEdgeRedis(config.redisUrl) : null;
  if (redis) await waitReady(redis, 2_000);
  const command = redis ? (args: string[]) => redis.call(args[0]!, ...args.slice(1)) : null;
  const scriptStore = deps.scriptStore ?? (redis ? createIoredisStore(redis) : createMemoryStore());
  const edgeStore =
    deps.edgeStore ?? (command ? createRedisEdgeStore(command, config.keyPrefix) : createMemoryEdgeStore());
  const guardStore = command ? createRedisGuardStore(command, config.keyPrefix) : createMemoryGuardStore();
  const floodLimiter: FloodLimiter & { close?(): void } =
    deps.floodLimiter ??
    (redis
      ? createNodeFloodLimiter({
          redis,
          keyPrefix: config.keyPrefix,
          points: config.flood.points,
          windowMs: config.flood.windowMs,
        })
      : createMemoryFloodLimiter({
          points: config.flood.points,
          windowMs: config.flood.windowMs,
          blockMs: config.flood.windowMs,
        }));

  const {
    app,
    deps: edgeDeps,
    consumer,
  } = buildEdge(
    config,
    {
      scriptStore,
      edgeStore,
      guardStore,
      floodLimiter,
      tokenKeys,
      metrics,
      clientAddress: clientAddressFor(addressing.trust),
      logger,
      queueTokenHmac: nodeHmacSha256(),
      brotli: nodeBrotli,
    },
    { consumerLogger: logger },
  );
  if (deps.consumeEvents !== false) consumer.start(config.eventsPollMs);
  const roomSync = startRoomSync(app.catalog, {
    everyMs: config.roomSyncMs,
    logger,
    onSynced: (count) => metrics.roomRestores.inc({}, count),
  });

  const lagMonitor = startLagMonitor({
    thresholdMs: config.shedLagMs,
    onSample: (state) => {
      metrics.eventLoopLag.set({}, state.lagMs / 1000);
      metrics.shedding.set({}, state.shedding ? 1 : 0);
      metrics.coreCallsInFlight.set({}, edgeDeps.core.inFlight());
    },
  });
  const load = deps.load ?? lagMonitor;

  const viaApp = getRequestListener(app.fetch, { hostname: config.host });
  const polls = fastPollListener(
    { rooms: app.rooms, queueTokens: edgeDeps.queueTokens, floodLimiter, metrics, addressing },
    viaApp,
  );
  const joins =
    deps.fastJoin === false
      ? polls
      : fastJoinListener(
          {
            rooms: app.rooms,
            customerTokens: edgeDeps.customerTokens,
            queueTokens: edgeDeps.queueTokens,
            receipts: app.receipts,
            pow: app.pow,
            floodLimiter,
            metrics,
            activity: app.activity,
            logger,
            addressing,
          },
          polls,
        );
  const listener = loadSheddingListener({ load, metrics, coreCallsInFlight: () => edgeDeps.core.inFlight() }, joins);
  // Keep idle connections longer than whatever sits in front: a proxy or load balancer (AWS ALB
  // 60 s, nginx upstream keepalive 60 s) or k6 reuses a connection it believes open, and with
  // Node's default 5 s the edge may close it just as a request is sent: an EOF or reset on a
  // POST that no client may retry. headersTimeout must exceed keepAliveTimeout (Node's rule).
  const server = createServer(
    { keepAliveTimeout: EDGE_KEEP_ALIVE_MS, headersTimeout: EDGE_KEEP_ALIVE_MS + 1_000 },
    listener,
  );
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const acceptors = await addAcceptors(server, config.acceptors).catch((error: unknown) => {
    logger.warn({ err: error }, 'extra acceptors not added: one connection per event-loop turn');
    return [];
  });
  // The internal port: /metrics without credentials, for a scraper inside the network, and
  // /healthz for a load balancer's probe, answered from its own accept queue however many
  // buyers' connections wait on the public port.
  const metricsServer = config.metricsPort
    ? createServer((request, response) => {
        if (request.method === 'GET' && request.url === '/healthz') return void listener(request, response);
        if (request.method !== 'GET' || request.url !== '/metrics') return void response.writeHead(404).end();
        response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(metrics.registry.render());
      })
    : null;
  if (metricsServer)
    await new Promise<void>((resolve) => metricsServer.listen(config.metricsPort, config.metricsHost, resolve));
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
  logger.info({ port, redis: redis ? 'redis' : 'in-process' }, 'edge listening');
  return {
    url: `http://${host}:${port}`,
    port,
    app,
    consumer,
    redis,
    server,
    acceptors: acceptors.length + 1,
    load,
    async close(options: { graceMs?: number } = {}) {
      for (const acceptor of acceptors) acceptor.close();
      lagMonitor.stop();
      roomSync.stop();
      floodLimiter.close?.();
      await consumer.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Graceful (a signal): idle keep-alive connections go now, requests being answered
        // may finish within the grace. Otherwise (tests) every connection goes at once.
        server.closeIdleConnections();
        if (!options.graceMs) return server.closeAllConnections();
        setTimeout(() => server.closeAllConnections(), options.graceMs).unref();
      });
      await new Promise<void>((resolve) => (metricsServer ? metricsServer.close(() => resolve()) : resolve()));
      redis?.disconnect();
    },
  };
}
