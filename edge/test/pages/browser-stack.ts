/**
 * The whole stack on free loopback ports for the browser tests: the real core (the run's
 * database, background jobs off so nothing touches other test files' rows), the real payment
 * sandbox (webhooks delivered to the core), the edge on Redis under its own key namespace,
 * and the queue ticker. The core's PUBLIC_URL is the edge, so the pay page returns there.
 * PAGES_LOG_LEVEL=error shows the core's and the edge's logs when a test needs explaining.
 */
import { createServer } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchBrowser } from './browser';
import { Redis } from 'ioredis';
import pino from 'pino';
import type { Sql } from 'postgres';
import { parseCoreConfig } from '../../../core/src/config';
import { insertShowtime } from '../../../core/src/catalog/showtime-repo';
import { insertHallWithSeats, insertVenue } from '../../../core/src/catalog/venue-repo';
import { connectDatabase } from '../../../core/src/db/connect';
import { rectangularLayout, type LayoutOptions } from '../../../core/src/demo/seat-layout';
import { startCore } from '../../../core/src/node';
import { startPaymentSandbox } from '../../../payment-sandbox/src/start';
import { redisStreamSink } from '../../../core/src/events/event-sink';
import type { BookingEvent, BookingEventType } from '../../../lib/booking-events';
import {
  createIoredisStore,
  createRoomEngine,
  createRoomTicker,
  type RoomSettingsPatch,
} from '../../../queue/src/index';
import { isolatedDatabase, testRedisNamespace, testRedisUrl } from '../../../test/support/env';
import { apiNameOf, OPERATOR_SETTING_NAMES, toApi, type RoomSettingName } from '../../../lib/room-settings-registry';
import { roomUpdateSchema } from '../../../queue/src/room-update';
import { parseEdgeConfig } from '../../src/config';
import { startEdge } from '../../src/node';
import { testTokenKeys } from '../edge-harness';

export const STACK_ADMIN_TOKEN = 'pages-test-admin-token-0123456789';
const WEBHOOK_SECRET = 'whsec_pages_test';
const SANDBOX_KEY = 'sk_test_pages';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A room that moves in milliseconds: admissions are only limited by capacity. */
export const quickRoom = (capacity: number): RoomSettingsPatch => ({
  state: 'open',
  capacity,
  admitPerMinute: 60_000,
  admitBurst: 1_000,
  sessionTtlMs: 300_000,
  offerWindowMs: 60_000,
  abandonGraceMs: 60_000,
  tickGapMs: 0,
});

/**
 * The operator API's value of a room setting, or null when an operator may not set it so (an
 * engine-only timing, or a value past the operator's bounds as the sale control checks them).
 */
function operatorValue(name: string, value: number): number | boolean | null {
  if (!(OPERATOR_SETTING_NAMES as string[]).includes(name)) return null;
  const apiValue = toApi(name as RoomSettingName, value);
  return roomUpdateSchema.safeParse({ [apiNameOf(name as RoomSettingName)]: apiValue }).success ? apiValue : null;
}

export async function startBrowserStack() {
  // A database of its own: the landing page lists the soonest showtimes, and other files'
  // stacks run background jobs (relay, sweeper) that would act on this one's rows.
  const database = await isolatedDatabase('pages');
  const databaseUrl = database.url;
  const sql: Sql = connectDatabase(databaseUrl, { max: 4 });
  const tokenKeys = await testTokenKeys();
  const keyPrefix = testRedisNamespace('pages');
  const edgePort = await freePort();
  const edgeUrl = `http://127.0.0.1:${edgePort}`;
  let coreUrl = '';

  const sandbox = await startPaymentSandbox({
    port: 0,
    config: {
      apiKey: SANDBOX_KEY,
      webhookUrl: 'http://core.internal/payments/callback',
      webhookSecrets: [WEBHOOK_SECRET],
      expirySweepIntervalMs: 200,
      webhook: { baseDelayMs: 20, maxDelayMs: 200, maxAttempts: 30, timeoutMs: 10_000 },
    },
    fetch: (input, init) => fetch(String(input).replace('http://core.internal', coreUrl), init as RequestInit),
  });
  const core = await startCore(
    parseCoreConfig({
      CORE_PORT: '0',
      CORE_HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      ADMIN_TOKEN: STACK_ADMIN_TOKEN,
      PAYMENT_URL: sandbox.url,
      PAYMENT_API_KEY: SANDBOX_KEY,
      PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PUBLIC_URL: edgeUrl,
      JOBS_ENABLED: 'false',
      LOG_LEVEL: process.env.PAGES_LOG_LEVEL ?? 'silent',
    }),
    { sql, tokenKeys },
  );
  coreUrl = core.url;
  const edge = await startEdge(
    parseEdgeConfig({
      EDGE_PORT: String(edgePort),
      EDGE_HOST: '127.0.0.1',
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: keyPrefix,
      CORE_URL: core.url,
      ADMIN_TOKEN: STACK_ADMIN_TOKEN,
      SNAPSHOT_TTL_MS: '200',
      SEAT_MAP_TTL_MS: '0',
      FLOOD_POINTS: '100000',
      // Every buyer of a test file logs in from 127.0.0.1: a line of them is not a flood.
      DEMO_LOGIN_PER_MINUTE: '1000',
      LOG_LEVEL: process.env.PAGES_LOG_LEVEL ?? 'silent',
    }),
    { tokenKeys, consumeEvents: false },
  );
  const tickerRedis = new Redis(testRedisUrl());
  const engine = createRoomEngine({ store: createIoredisStore(tickerRedis), keyPrefix });
  const ticker = createRoomTicker({ engine, intervalMs: 100, logger: pino({ level: 'silent' }) });
  ticker.start();

  let counter = 0;
  /** A showtime on sale now in a small hall (row D is couple seats, A1 and A2 wheelchair spaces). */
  async function createShowtime(
    options: { layout?: LayoutOptions; opensAt?: Date; startsAt?: Date; holdTtlMs?: number; title?: string } = {},
  ) {
    const label = `${process.pid}-${Date.now().toString(36)}-${++counter}`;
    const venue = await insertVenue(sql, { name: `Pages venue ${label}`, city: 'Test' });
    const layout = options.layout ?? {
      rows: 4,
      columns: 6,
      coupleRows: [4],
      accessible: [
        [1, 1],
        [1, 2],
      ],
    };
    const hall = await insertHallWithSeats(sql, {
      venueId: venue.id,
      name: 'Hall 1',
      seats: rectangularLayout(layout),
    });
    const { id } = await insertShowtime(sql, {
      hallId: hall.id,
      title: options.title ?? `Premiere ${label}`,
      startsAt: options.startsAt ?? new Date(Date.now() + 86_400_000),
      opensAt: options.opensAt ?? new Date(Date.now() - 3_600_000),
      saleState: 'OPEN',
      priceCents: 1250,
      currency: 'EUR',
      maxSeatsPerCustomer: 4,
      holdTtlMs: options.holdTtlMs ?? 300_000,
    });
    return id;
  }

  /** The edge's JSON API as a non-browser client would call it. */
  async function api(
    method: string,
    path: string,
    init: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${edgeUrl}${path}`, {
      method,
      headers,
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : null };
  }

  /** A buyer through the API: demo login and join; the answer carries the access token when admitted. */
  async function apiBuyer(showtimeId: number, customerId: string) {
    const { json: login } = await api('POST', '/api/auth/demo', { body: { customerId } });
    let joined = await api('POST', `/api/showtimes/${showtimeId}/queue`, { token: login.token });
    // A join answers "waiting" when the core could not record the turn in time (a busy machine);
    // the buyer keeps the slot and the next poll admits, as the waiting page's poll would.
    for (let i = 0; i < 3 && joined.json?.state === 'waiting'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const polled = await api('GET', `/api/showtimes/${showtimeId}/queue`, {
        headers: { 'x-queue-token': joined.json.queueToken },
      });
      if (polled.status !== 200) break;
      joined = { ...polled, json: { ...polled.json, queueToken: polled.json.queueToken ?? joined.json.queueToken } };
    }
    return { token: login.token as string, ...joined.json };
  }

  /**
   * What the outbox relay and the edge's consumer do in production, for one showtime only
   * (the jobs are off here: they would act on other test files' rows): this showtime's
   * unpublished outbox rows go to the edge's booking-events stream, plus any extra events
   * (what the sweeper would have written), and the edge applies them.
   */
  async function deliverBookingEvents(showtimeId: number, extra: Omit<BookingEvent, 'eventId' | 'occurredAt'>[] = []) {
    const rows = await sql<
      { id: number; event_id: string; type: BookingEventType; payload: Record<string, unknown>; created_at: Date }[]
    >`
      UPDATE outbox SET published_at = now()
       WHERE showtime_id = ${showtimeId} AND published_at IS NULL
      RETURNING id, event_id, type, payload, created_at`;
    const events: BookingEvent[] = rows
      .sort((a, b) => Number(a.id) - Number(b.id))
      .map((row) => ({
        eventId: row.event_id,
        type: row.type,
        showtimeId,
        occurredAt: row.created_at.toISOString(),
        payload: row.payload,
      }));
    for (const event of extra)
      events.push({
        ...event,
        eventId: `extra-${showtimeId}-${++counter}`,
        occurredAt: new Date().toISOString(),
      } as BookingEvent);
    await redisStreamSink(tickerRedis, { keyPrefix }).publish(events);
    await edge.consumer.pumpOnce();
    return events;
  }

  return {
    edgeUrl,
    sandbox,
    deliverBookingEvents,
    core,
    edge,
    engine,
    sql,
    createShowtime,
    /**
     * Sets a room as an operator would: what an operator may set goes through the core's sale
     * control (PostgreSQL, versioned, so the edge's room sync keeps it); the engine's test-only
     * timings (offer window, tick gap…) are then written to Redis stamped with that version.
     */
    configureRoom: async (showtimeId: number, patch: RoomSettingsPatch) => {
      // Every setting an operator may set goes through the core, so PostgreSQL holds it too:
      // the edge's room sync copies the stored settings into Redis at the same version, and a
      // setting written only to Redis (an inventory margin, say) was put back to its stored
      // default whenever that sync ran after this call. Values past an operator's bounds (a
      // test's 17-bit proof of work) can only be written to Redis.
      const { state, opensAtMs, version: _version, ...settings } = patch;
      const update: Record<string, unknown> = { state };
      const engineOnly: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(settings)) {
        if (value === undefined) continue;
        const apiValue = operatorValue(name, value as number);
        if (apiValue === null) engineOnly[name] = value;
        else update[apiNameOf(name as RoomSettingName)] = apiValue;
      }
      if (opensAtMs !== undefined && opensAtMs !== null) update.opensAt = new Date(opensAtMs).toISOString();
      for (const key of Object.keys(update)) if (update[key] === undefined) delete update[key];
      const response = await fetch(`${core.url}/admin/showtimes/${showtimeId}/room`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${STACK_ADMIN_TOKEN}`,
          'content-type': 'application/json',
          'x-operator': 'page-tests',
        },
        body: JSON.stringify(update),
      });
      const control = (await response.json()) as {
        version?: number;
        room?: RoomSettingsPatch;
        error?: { message: string };
      };
      if (!response.ok || !control.room)
        throw new Error(
          `sale control refused ${JSON.stringify(update)}: ${response.status} ${control.error?.message ?? ''}`,
        );
      const result = await engine.configure(String(showtimeId), {
        ...control.room,
        ...engineOnly,
        version: control.version!,
      });
      if (!result.ok) throw new Error(`configure failed: ${result.code}`);
    },
    api,
    apiBuyer,
    async close() {
      await ticker.stop();
      await edge.close();
      await core.close();
      await sandbox.close();
      tickerRedis.disconnect();
      await sql.end({ timeout: 2 });
      await database.drop();
    },
  };
}

export type BrowserStack = Awaited<ReturnType<typeof startBrowserStack>>;

/**
 * A test file's browser and stack: started before its tests, closed after. `receive` hands
 * both to the file's own variables.
 */
export function useBrowserStack(receive: (browser: Browser, stack: BrowserStack) => void) {
  let browser: Browser | undefined;
  let stack: BrowserStack | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
    stack = await startBrowserStack();
    receive(browser, stack);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });
}
