/**
 * The waiting room as buyers reach it, for bench/eta.ts: the core on a throwaway database (sale
 * control decides the room's settings), a real edge on a port of its own (node:http, the fast
 * join path) over the bench's private Redis, the room ticker, and buyers that join, poll and
 * leave over HTTP, recording every wait they are told. (Underscore prefix: not a benchmark.)
 */
import { Redis } from 'ioredis';
import type { Sql } from 'postgres';
import { parseCoreConfig } from '../core/src/config';
import { insertShowtime } from '../core/src/catalog/showtime-repo';
import { insertHallWithSeats, insertVenue } from '../core/src/catalog/venue-repo';
import { rectangularLayout } from '../core/src/demo/seat-layout';
import { startCore, type RunningCore } from '../core/src/node';
import { parseEdgeConfig } from '../edge/src/config';
import { startEdge, type RunningEdge } from '../edge/src/node';
import { generateSigningJwk, loadTokenKeys, type TokenKeyMaterial } from '../lib/token-keys';
import { createIoredisStore, createRoomTicker, type RoomEngine } from '../queue/src/index';
import { sleep, type BuyerPlan, type BuyerRecord } from './_room-buyers';

const ADMIN = 'bench-eta-admin-token-0123456789';
const SERVICE = 'bench-eta-service-token-0123456789';

export interface Json {
  status: number;
  body: Record<string, any>;
}

/** One core for the run: showtimes and their rooms' settings live in its database. */
export async function startBenchCore(sql: Sql, redisUrl: string) {
  const tokenKeys = await loadTokenKeys({ signingJwk: await generateSigningJwk('bench-eta') });
  const redis = new Redis(redisUrl);
  const core = await startCore(
    parseCoreConfig({
      CORE_PORT: '0',
      ADMIN_TOKEN: ADMIN,
      CORE_SERVICE_TOKEN: SERVICE,
      JOBS_ENABLED: 'false',
      LOG_LEVEL: 'silent',
    }),
    { sql, tokenKeys, admissionStore: createIoredisStore(redis) },
  );
  // One hall for every showtime of the run, made once (scenarios start side by side).
  let hall: Promise<number> | null = null;
  const hallOnce = () =>
    (hall ??= insertVenue(sql, { name: `bench-${Date.now()}`, city: 'Bench' }).then(
      async (venue) =>
        (
          await insertHallWithSeats(sql, {
            venueId: venue.id,
            name: 'Hall',
            seats: rectangularLayout({ rows: 10, columns: 20 }),
          })
        ).id,
    ));
  return {
    core,
    tokenKeys,
    /** A showtime on sale now; its room's settings are set through an edge (`setRoom`). */
    async createShowtime(title: string): Promise<number> {
      const hallId = await hallOnce();
      const now = Date.now();
      const { id } = await insertShowtime(sql, {
        hallId,
        title,
        startsAt: new Date(now + 86_400_000),
        opensAt: new Date(now - 3_600_000),
        saleState: 'OPEN',
        priceCents: 1000,
        currency: 'EUR',
        maxSeatsPerCustomer: 8,
        holdTtlMs: 600_000,
      });
      return id;
    },
    async stop() {
      await core.close();
      redis.disconnect();
    },
  };
}

export type BenchCore = Awaited<ReturnType<typeof startBenchCore>>;

/**
 * An edge with its own key prefix (a cinema of its own: its rooms and turn history) and a
 * ticker on the edge's own engine, as the queue process runs it in production.
 */
export async function startBenchEdge(
  core: { core: RunningCore; tokenKeys: TokenKeyMaterial },
  redisUrl: string,
  keyPrefix: string,
) {
  const edge: RunningEdge = await startEdge(
    parseEdgeConfig({
      EDGE_PORT: '0',
      EDGE_HOST: '127.0.0.1',
      CORE_URL: core.core.url,
      CORE_SERVICE_TOKEN: SERVICE,
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: keyPrefix,
      ADMIN_TOKEN: ADMIN,
      DEMO_LOGIN: '1',
      DEMO_LOGIN_PER_MINUTE: '1000000',
      FLOOD_POINTS: '1000000',
      LOG_LEVEL: 'silent',
      // The buyers share the edge's event loop here: their own lag is not the edge's load.
      SHED_LAG_MS: '0',
    }),
    { tokenKeys: core.tokenKeys, consumeEvents: false },
  );
  const engine: RoomEngine = edge.app.rooms.engine;
  const ticker = createRoomTicker({ engine, intervalMs: 200 });
  ticker.start();
  /** One request; a 503 (busy, store away for a moment) is retried after its Retry-After, as the pages do. */
  async function api(
    method: string,
    path: string,
    init: { token?: string; headers?: Record<string, string>; body?: unknown } = {},
  ): Promise<Json> {
    for (let attempt = 0; ; attempt++) {
      const answer = await request(method, path, init);
      if (answer.status !== 503 || attempt >= 5) return answer;
      await sleep(1_000 * (Number(answer.body.retryAfterSeconds) || 1));
    }
  }
  async function request(
    method: string,
    path: string,
    init: { token?: string; headers?: Record<string, string>; body?: unknown },
  ): Promise<Json> {
    const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${edge.url}${path}`, {
      method,
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : {} };
  }
  return {
    edge,
    engine,
    api,
    /** The operator's PUT, as the console sends it. */
    async setRoom(showtimeId: number, body: Record<string, unknown>) {
      const result = await api('PUT', `/api/admin/showtimes/${showtimeId}/room`, {
        headers: { authorization: `Bearer ${ADMIN}` },
        body,
      });
      if (result.status !== 200)
        throw new Error(`room update refused: ${result.status} ${JSON.stringify(result.body)}`);
      return result.body;
    },
    async stop() {
      await ticker.stop();
      await edge.close();
    },
  };
}

export type BenchEdge = Awaited<ReturnType<typeof startBenchEdge>>;

/**
 * One buyer over HTTP: demo login, join, poll when told, and once admitted keep the turn for
 * a while and leave (giving the slot back). Told waits are the answers' etaSeconds; the
 * offer is taken as seen at the poll that found the buyer admitted (the edge claims it there).
 */
export async function runHttpBuyer(
  stack: BenchEdge,
  showtimeId: number,
  plan: BuyerPlan,
  untilMs: number,
): Promise<BuyerRecord> {
  // A buyer the edge kept refusing is reported as never offered, not allowed to end the run
  // (and leave its private Redis and database behind).
  return httpBuyer(stack, showtimeId, plan, untilMs).catch((error: unknown) => {
    console.warn(`  buyer ${plan.id}: ${error instanceof Error ? error.message : String(error)}`);
    return { id: plan.id, joinedAtMs: Date.now(), position: null, heard: [], offeredAtMs: null, vanished: false };
  });
}

async function httpBuyer(stack: BenchEdge, showtimeId: number, plan: BuyerPlan, untilMs: number): Promise<BuyerRecord> {
  const login = await stack.api('POST', '/api/auth/demo', { body: {} });
  if (login.status !== 200) throw new Error(`demo login refused: ${login.status}`);
  const token = login.body.token as string;
  const path = `/api/showtimes/${showtimeId}/queue`;
  const joinedAtMs = Date.now();
  let answer = await stack.api('POST', path, { token });
  if (answer.status !== 200) throw new Error(`join refused: ${answer.status} ${JSON.stringify(answer.body)}`);
  const queueToken = answer.body.queueToken as string;
  const record: BuyerRecord = {
    id: plan.id,
    joinedAtMs,
    position: answer.body.position ?? null,
    heard: [],
    offeredAtMs: null,
    vanished: false,
  };
  if (plan.vanish && plan.vanish !== 'stay') {
    record.vanished = true;
    if (plan.vanish === 'beacon') await stack.api('DELETE', path, { token });
    return record;
  }
  let atMs = joinedAtMs;
  while (Date.now() < untilMs) {
    const state = answer.body.state as string;
    if (state === 'admitted' || state === 'offered') {
      record.offeredAtMs = atMs;
      await sleep(plan.turnMs());
      await stack.api('DELETE', path, { token });
      return record;
    }
    if (state === 'waiting' || state === 'paused') {
      const eta = typeof answer.body.etaSeconds === 'number' ? answer.body.etaSeconds * 1000 : null;
      record.heard.push({ atMs, etaMs: eta, snapshotEtaMs: null, oldEtaMs: null });
    } else if (state !== 'prequeue') {
      return record;
    }
    await sleep(answer.body.pollAfterMs ?? 1_000);
    atMs = Date.now();
    answer = await stack.api('GET', path, { headers: { 'x-queue-token': queueToken } });
    if (answer.status !== 200) return record;
  }
  return record;
}
