/**
 * The operator's view while the core stalls, on the real parts: a core on this run's
 * PostgreSQL database, an edge on this run's Redis namespace, and the admission governor
 * reading the core's health over HTTP as the queue process does. Another session holds
 * `LOCK TABLE show_seat` for six seconds, so every query of the core that touches seats waits.
 *
 * During the stall the room view (`GET /api/admin/showtimes/:id/room`) and the live stream
 * answer, before the lock is released: the room from Redis, the sale state from what the core
 * last said (marked stale, and since when), and the closed loop's decision (the lowered rate
 * and its reason) as it is taken; it answers before the core's own read does. An edge that
 * waits for the core (a budget of a minute) answers only after the core has (the broken
 * variant): the core itself answers 503 once its lock timeout passes, as the old view did.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { isolatedDatabase, testRedisNamespace, testRedisUrl } from '../support/env';
import { callJson, eventually, fetchFrom, type JsonResult } from '../support/json-call';
import { connectDatabase } from '../../core/src/db/connect';
import { parseCoreConfig } from '../../core/src/config';
import { startCore, type RunningCore } from '../../core/src/node';
import { redisStreamSink } from '../../core/src/events/event-sink';
import { parseEdgeConfig } from '../../edge/src/config';
import { startEdge, type RunningEdge } from '../../edge/src/node';
import { EDGE_ADMIN_TOKEN, testTokenKeys } from '../../edge/test/edge-harness';
import { createCoreShowtime } from '../support/core-showtime';
import { coreHealthReader, createAdmissionGovernor, type AdmissionGovernor } from '../../queue/src/admission-governor';

const STALL_MS = 6_000;
const RATE = 600;

let sql: ReturnType<typeof connectDatabase>;
let locker: ReturnType<typeof connectDatabase>;
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let redis: Redis;
let core: RunningCore;
let edge: RunningEdge;
let waiting: RunningEdge;
let governor: AdmissionGovernor;

beforeAll(async () => {
  database = await isolatedDatabase('stall');
  sql = connectDatabase(database.url, { max: 8, applicationName: 'test-stall' });
  locker = connectDatabase(database.url, { max: 1, applicationName: 'test-stall-locker' });
  redis = new Redis(testRedisUrl());
  const namespace = testRedisNamespace('stall');
  const keys = await testTokenKeys();
  core = await startCore(
    parseCoreConfig({
      CORE_PORT: '0',
      CORE_HOST: '127.0.0.1',
      ADMIN_TOKEN: EDGE_ADMIN_TOKEN,
      PAYMENT_WEBHOOK_SECRET: 'whsec_stall',
      LOG_LEVEL: 'silent',
    }),
    {
      sql,
      tokenKeys: keys,
      eventSink: redisStreamSink(redis, { keyPrefix: namespace }),
      jobSettings: { relayEveryMs: 100, sweepEveryMs: 500 },
    },
  );
  const edgeWith = (extra: Record<string, string>) =>
    startEdge(
      parseEdgeConfig({
        EDGE_PORT: '0',
        EDGE_HOST: '127.0.0.1',
        CORE_URL: core.url,
        REDIS_URL: testRedisUrl(),
        REDIS_KEY_PREFIX: namespace,
        ADMIN_TOKEN: EDGE_ADMIN_TOKEN,
        FLOOD_POINTS: '100000',
        CORE_TIMEOUT_MS: '20000',
        LOG_LEVEL: 'silent',
        ...extra,
      }),
      { tokenKeys: keys, consumeEvents: false },
    );
  edge = await edgeWith({});
  waiting = await edgeWith({ OPERATOR_VIEW_CORE_BUDGET_MS: '60000' });
  governor = createAdmissionGovernor({
    engine: edge.app.rooms.engine,
    readHealth: coreHealthReader({ coreUrl: core.url, adminToken: EDGE_ADMIN_TOKEN, timeoutMs: 1_000 }),
    everyMs: 200,
  });
  governor.start();
});

afterAll(async () => {
  await governor?.stop();
  await edge?.close();
  await waiting?.close();
  await core?.close();
  await locker?.end();
  await sql?.end();
  await database?.drop();
  redis?.disconnect();
});

const admin = { authorization: `Bearer ${EDGE_ADMIN_TOKEN}` };

async function openShowtime(): Promise<number> {
  const showtimeId = await createCoreShowtime(core.url, admin, 'Stall');
  const room = await callJson(fetchFrom(edge.url), 'PUT', `/api/admin/showtimes/${showtimeId}/room`, {
    headers: admin,
    body: { capacity: 10, admitPerMinute: RATE, adaptiveAdmission: true, state: 'open' },
  });
  expect(room.status).toBe(200);
  return showtimeId;
}

/** Holds `LOCK TABLE show_seat` for STALL_MS; `released()` says whether it has been let go. */
async function stall(): Promise<{ released: () => boolean; done: Promise<void> }> {
  let isReleased = false;
  let locked!: () => void;
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  const done = locker
    .begin(async (tx) => {
      await tx`LOCK TABLE show_seat IN ACCESS EXCLUSIVE MODE`;
      locked();
      await new Promise((resolve) => setTimeout(resolve, STALL_MS));
      isReleased = true;
    })
    .then(() => undefined);
  await lockTaken;
  return { released: () => isReleased, done };
}

const view = (at: RunningEdge, showtimeId: number) =>
  callJson(fetchFrom(at.url), 'GET', `/api/admin/showtimes/${showtimeId}/room`, { headers: admin });

describe("the operator's room view while the core stalls", () => {
  let shared: number | null = null;
  const showtimeId0 = () => shared as number;
  beforeAll(async () => {
    shared = await openShowtime();
  });

  it("answers during the stall, with the sale state last known (stale since when) and the closed loop's lowered rate", async () => {
    const showtimeId = await openShowtime();
    const healthy = await eventually(
      () => view(edge, showtimeId),
      (r) => r.json?.admission?.reason === 'healthy',
    );
    expect(healthy.json).toMatchObject({ saleState: 'on_sale', core: { fresh: true, staleSince: null, stale: [] } });

    const lock = await stall();
    const during: JsonResult[] = [];
    while (!lock.released()) {
      const answer = await view(edge, showtimeId);
      if (lock.released()) break;
      during.push(answer);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await lock.done;

    // Answered all through the stall (each before the lock went), none refused.
    expect(during.length).toBeGreaterThan(3);
    expect(during.map((answer) => answer.status)).toEqual(during.map(() => 200));
    const stale = during.filter((answer) => answer.json.core.fresh === false);
    expect(stale.length).toBeGreaterThan(0);
    for (const answer of stale) {
      expect(answer.json).toMatchObject({ saleState: 'on_sale', core: { stale: ['saleState', 'version', 'audit'] } });
      expect(Date.parse(answer.json.core.staleSince)).toBeGreaterThanOrEqual(Date.parse(answer.json.core.answeredAt));
    }
    // The governor could not read the core's health: its cut is visible while the stall lasts.
    const cut = during.find(
      (answer) => answer.json.admission.reason !== 'healthy' && answer.json.admission.effectiveAdmitPerMinute < RATE,
    );
    expect(cut?.json.admission).toBeDefined();

    // After the stall the view is fresh again.
    const after = await eventually(
      () => view(edge, showtimeId),
      (r) => r.json?.core?.fresh === true,
    );
    expect(after.json.core).toMatchObject({ fresh: true, staleSince: null });
  });

  it("the live stream keeps sending stats during the stall, saying the core's part is stale", async () => {
    const showtimeId = await openShowtime();
    await eventually(
      () => view(edge, showtimeId),
      (r) => r.json?.core?.fresh === true,
    );
    const lock = await stall();
    const controller = new AbortController();
    const response = await fetch(`${edge.url}/api/admin/showtimes/${showtimeId}/room/events`, {
      headers: admin,
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const events: { event: string; data: any }[] = [];
    while (!lock.released() && events.filter((e) => e.data?.core?.fresh === false).length < 2) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (data && !lock.released()) events.push({ event, data: JSON.parse(data) });
      }
    }
    controller.abort();
    await lock.done;
    const staleStats = events.filter((e) => e.event === 'stats' && e.data.core.fresh === false);
    expect(staleStats.length).toBeGreaterThanOrEqual(2);
    expect(staleStats[0]?.data).toMatchObject({ saleState: 'on_sale', core: { reason: expect.any(String) } });
  });

  /**
   * Which answers first during the stall: the core's own room read (sent first, it waits on the
   * lock until the core gives up) or the edge's view (sent 300 ms later). Order, not speed.
   */
  async function firstDuringStall(at: RunningEdge, showtimeId: number): Promise<string[]> {
    await eventually(
      () => view(at, showtimeId),
      (r) => r.json?.core?.fresh === true,
    );
    const lock = await stall();
    const order: string[] = [];
    const direct = callJson(fetchFrom(core.url), 'GET', `/admin/showtimes/${showtimeId}/room`, { headers: admin }).then(
      () => order.push('core'),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const viewed = view(at, showtimeId).then((answer) => order.push(`view ${answer.status}`));
    await Promise.all([direct, viewed]);
    await lock.done;
    return order;
  }

  it('answers before the core itself does', async () => {
    expect(await firstDuringStall(edge, showtimeId0())).toEqual(['view 200', 'core']);
  });

  it('an edge that waits for the core (a budget of a minute) answers only after the core has: the broken variant', async () => {
    expect((await firstDuringStall(waiting, showtimeId0()))[0]).toBe('core');
  });
});
