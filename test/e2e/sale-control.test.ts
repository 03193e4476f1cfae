/**
 * One authoritative sale state, on the real stack: the core on this run's PostgreSQL, the
 * edge and the core's own admission check on a private redis-server that the test restarts
 * empty (and whose room keys it deletes), buyers polling through the edge's HTTP API meanwhile.
 * Nobody is admitted while the room is paused, the cap holds after the restore (the turns
 * granted before come back from the ledger), settings and the audit log read back as set; a
 * catalog pause stops joins, a close ends every turn at the edge and at the core.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { callJson, eventually, fetchFrom, type JsonCallInit } from '../support/json-call';
import type { RunningCore } from '../../core/src/node';
import type { RunningEdge } from '../../edge/src/node';
import type { RestartableRedis } from '../../edge/test/private-servers';
import type { CoreHarness } from '../../core/test/core-harness';
import { startPrivateRedisStack, type PrivateRedisStack } from '../support/private-redis-stack';

const ADMIN = 'sale-control-admin-token-0123';
const SERVICE = 'sale-control-service-token-0123';
let h: CoreHarness;
let redis: RestartableRedis;
let stack: PrivateRedisStack;
let core: RunningCore;
let edge: RunningEdge;

beforeAll(async () => {
  stack = await startPrivateRedisStack({
    name: 'sale-control',
    adminToken: ADMIN,
    serviceToken: SERVICE,
    edgeEnv: { CORE_TIMEOUT_MS: '2000' },
  });
  ({ h, redis, core, edge } = stack);
});
afterAll(async () => {
  await stack?.close();
});

const api = (method: string, path: string, init?: JsonCallInit) => callJson(fetchFrom(edge.url), method, path, init);
/** Straight at the core, as a caller who found its port and holds the service credential too. */
const atCore = (method: string, path: string, init: JsonCallInit = {}) =>
  callJson(fetchFrom(core.url), method, path, { ...init, headers: { 'x-service-token': SERVICE, ...init.headers } });
const admin = { authorization: `Bearer ${ADMIN}` };
const setRoom = (showtimeId: number, body: unknown) =>
  api('PUT', `/api/admin/showtimes/${showtimeId}/room`, { headers: admin, body });
const readRoom = (showtimeId: number) => api('GET', `/api/admin/showtimes/${showtimeId}/room`, { headers: admin });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Buyer {
  token: string;
  queueToken?: string;
  accessToken?: string;
  states: string[];
}

async function newBuyer(): Promise<Buyer> {
  const login = await api('POST', '/api/auth/demo', { body: {} });
  expect(login.status).toBe(200);
  return { token: login.json.token, states: [] };
}

async function join(showtimeId: number, buyer: Buyer) {
  const joined = await api('POST', `/api/showtimes/${showtimeId}/queue`, { token: buyer.token });
  if (joined.status === 200) {
    buyer.queueToken = joined.json.queueToken ?? buyer.queueToken;
    if (joined.json.accessToken) buyer.accessToken = joined.json.accessToken;
    buyer.states.push(joined.json.state);
  } else buyer.states.push(`http-${joined.status}`);
  return joined;
}

/** Joins and polls until admitted (a fresh room offers on its next admission step). */
async function admitted(showtimeId: number, buyer: Buyer) {
  await join(showtimeId, buyer);
  await eventually(
    async () => {
      if (buyer.accessToken) return buyer;
      const poll = await api('GET', `/api/showtimes/${showtimeId}/queue`, {
        headers: { 'x-queue-token': buyer.queueToken ?? '' },
      });
      if (poll.json?.accessToken) buyer.accessToken = poll.json.accessToken;
      return buyer;
    },
    (b) => Boolean(b.accessToken),
    5_000,
  );
}

/** Each buyer polls every ~100 ms, and joins again when told the place is gone (as the page does). */
function pollers(showtimeId: number, buyers: Buyer[]) {
  let running = true;
  const loops = buyers.map(async (buyer) => {
    while (running) {
      const poll = await api('GET', `/api/showtimes/${showtimeId}/queue`, {
        headers: { 'x-queue-token': buyer.queueToken ?? '' },
      });
      if (poll.status === 200) {
        buyer.states.push(poll.json.state);
        if (poll.json.accessToken) buyer.accessToken = poll.json.accessToken;
      } else if (poll.status === 410) {
        await join(showtimeId, buyer);
      } else buyer.states.push(`http-${poll.status}`);
      await sleep(80 + Math.random() * 40);
    }
  });
  return { stop: async () => ((running = false), await Promise.all(loops)) };
}

/** Active turns plus open offers, sampled from the room itself, for the cap. */
function capSampler(showtimeId: number) {
  let running = true;
  let highest = 0;
  const loop = (async () => {
    while (running) {
      const stats = await edge.app.rooms.engine.stats(String(showtimeId)).catch(() => null);
      if (stats?.ok) highest = Math.max(highest, stats.active + stats.offered);
      await sleep(25);
    }
  })();
  return { stop: async () => ((running = false), await loop, highest) };
}

async function pausedRoomSurvives(showtimeId: number, loseTheRoom: () => Promise<void>) {
  expect((await setRoom(showtimeId, { capacity: 5, admitPerMinute: 6_000, sessionTtlSeconds: 120 })).status).toBe(200);
  const early = [await newBuyer(), await newBuyer()];
  for (const buyer of early) await admitted(showtimeId, buyer);
  expect((await setRoom(showtimeId, { state: 'paused' })).json.settings.state).toBe('paused');

  const line = await Promise.all(Array.from({ length: 10 }, () => newBuyer()));
  for (const buyer of line) expect((await join(showtimeId, buyer)).json.state).toBe('paused');
  const polling = pollers(showtimeId, line);
  await sleep(300);

  await loseTheRoom();
  // Restored from PostgreSQL by the sync, not from defaults: still paused, capacity 5.
  const restored = await eventually(
    () => readRoom(showtimeId),
    (r) => r.status === 200 && r.json.settings?.state === 'paused',
    10_000,
  );
  expect(restored.json.settings).toMatchObject({ capacity: 5, admitPerMinute: 6_000, sessionTtlSeconds: 120 });
  await sleep(1_500); // buyers keep polling (and joining again) against the restored room
  expect(line.flatMap((buyer) => buyer.states).filter((state) => state === 'admitted')).toEqual([]);
  const audit = (await api('GET', `/api/admin/showtimes/${showtimeId}/room/audit`, { headers: admin })).json.entries;
  // Two operator changes (newest first: the pause, then the capacity and rate), each with only
  // the fields it moved; the restore from PostgreSQL is not an operator change and writes none.
  expect(audit).toHaveLength(2);
  expect(audit[0]).toMatchObject({ before: { state: 'open' }, after: { state: 'paused' } });
  expect(audit[1].after).toMatchObject({ capacity: 5, admitPerMinute: 6_000, sessionTtlSeconds: 120 });

  // The turns granted before the loss came back with the room: they keep buying, and they count.
  const hold = await api('POST', `/api/showtimes/${showtimeId}/holds`, {
    token: early[0]!.accessToken!,
    body: { seats: ['A1'] },
  });
  expect(hold.status).toBe(201);

  const cap = capSampler(showtimeId);
  expect((await setRoom(showtimeId, { state: 'open' })).status).toBe(200);
  await eventually(
    async () => line.filter((buyer) => buyer.accessToken).length,
    (admitted) => admitted === 3,
    10_000,
  );
  await sleep(500);
  await polling.stop();
  expect(await cap.stop()).toBeLessThanOrEqual(5);
  expect(line.filter((buyer) => buyer.accessToken)).toHaveLength(3);
  const stats = await edge.app.rooms.engine.stats(String(showtimeId));
  expect(stats.ok && stats.active + stats.offered).toBe(5);
}

describe('sale control on the real stack', () => {
  it('Redis restarts empty while a room of capacity 5 is paused: nobody admitted while paused, never more than 5 after', async () => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 4, columns: 10 } });
    await pausedRoomSurvives(showtimeId, async () => {
      await redis.stop();
      await redis.start();
    });
  });

  it("the same when only the room's keys are deleted (FLUSHDB of one showtime)", async () => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 4, columns: 10 } });
    await pausedRoomSurvives(showtimeId, async () => {
      const probe = new Redis(redis.url);
      const keys = await probe.keys(`wr:{show:${showtimeId}}:*`);
      expect(keys.length).toBeGreaterThan(3);
      await probe.del(...keys);
      probe.disconnect();
    });
  });

  it('a catalog pause stops joins; a close ends every turn at the edge and at the core within 5 s; a left turn is dead at the core', async () => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 2, columns: 10 } });
    const holder = await newBuyer();
    await admitted(showtimeId, holder);
    const leaver = await newBuyer();
    await admitted(showtimeId, leaver);
    expect(
      (await api('POST', `/api/showtimes/${showtimeId}/holds`, { token: holder.accessToken!, body: { seats: ['A1'] } }))
        .status,
    ).toBe(201);

    // The buyer who left: their token is refused by the core itself, not only by the edge.
    expect((await api('DELETE', `/api/showtimes/${showtimeId}/queue`, { token: leaver.token })).status).toBeLessThan(
      300,
    );
    const direct = await atCore('POST', `/showtimes/${showtimeId}/holds`, {
      token: leaver.accessToken!,
      body: { seats: ['B1'] },
    });
    expect(direct).toMatchObject({ status: 410, json: { error: { code: 'TURN_ENDED' } } });

    // The catalog's switch, changed straight at the core: the room follows within the sync interval.
    expect(
      (await atCore('PATCH', `/admin/showtimes/${showtimeId}`, { headers: admin, body: { saleState: 'PAUSED' } }))
        .status,
    ).toBe(200);
    const late = await newBuyer();
    await eventually(
      () => join(showtimeId, late),
      (r) => r.json?.state === 'paused',
      5_000,
    );
    // Pause stops admissions, not the buyers already admitted.
    expect(
      (await api('POST', `/api/showtimes/${showtimeId}/holds`, { token: holder.accessToken!, body: { seats: ['A2'] } }))
        .status,
    ).toBe(201);
    await eventually(
      () => api('GET', '/api/showtimes'),
      (r) => r.json.find((s: { id: number }) => s.id === showtimeId)?.saleState === 'paused',
      3_000,
    );

    const closedAt = Date.now();
    expect(
      (await atCore('PATCH', `/admin/showtimes/${showtimeId}`, { headers: admin, body: { saleState: 'CLOSED' } }))
        .status,
    ).toBe(200);
    const atEdge = await eventually(
      () => api('POST', `/api/showtimes/${showtimeId}/holds`, { token: holder.accessToken!, body: { seats: ['A3'] } }),
      (r) => r.status === 410,
      5_000,
    );
    expect(atEdge.json.error.code).toBe('TURN_ENDED');
    const coreSide = await atCore('POST', `/showtimes/${showtimeId}/holds`, {
      token: holder.accessToken!,
      body: { seats: ['A4'] },
    });
    expect(coreSide.status).toBe(410);
    expect(Date.now() - closedAt).toBeLessThan(5_000);
    const poll = await api('GET', `/api/showtimes/${showtimeId}/queue`, {
      headers: { 'x-queue-token': late.queueToken! },
    });
    expect(poll.json.state).toBe('closed');
    // The edge's copy of the showtime list is at most a second old.
    await eventually(
      () => api('GET', '/api/showtimes'),
      (r) => !r.json.some((s: { id: number }) => s.id === showtimeId),
      3_000,
    );
  });

  it('the core listens on loopback by default and answers only the edge: without its credential every buyer and operator route is 401', async () => {
    expect(new URL(core.url).hostname).toBe('127.0.0.1');
    const bare = (method: string, path: string, init?: JsonCallInit) =>
      callJson(fetchFrom(core.url), method, path, init);
    expect((await bare('GET', '/showtimes')).json.error.code).toBe('SERVICE_TOKEN_REQUIRED');
    expect((await bare('GET', '/admin/rooms', { headers: admin })).status).toBe(401);
    expect((await bare('POST', '/showtimes/1/holds', { body: { seats: ['A1'] } })).status).toBe(401);
    expect(
      (await bare('GET', '/showtimes', { headers: { 'x-service-token': 'wrong-wrong-wrong-wrong' } })).status,
    ).toBe(401);
    // Probes and the gateway's (signed) webhook stay open.
    expect((await bare('GET', '/healthz')).status).toBe(200);
    expect((await bare('POST', '/payments/callback', { rawBody: '{}' })).json.error.code).not.toBe(
      'SERVICE_TOKEN_REQUIRED',
    );
    expect((await atCore('GET', '/showtimes')).status).toBe(200);
  });

  it('an operator configures a room before anyone joins; a showtime that does not exist has no room', async () => {
    const { showtimeId } = await h.createShowtime({ opensAt: new Date(Date.now() + 3_600_000) });
    const read = await readRoom(showtimeId);
    expect(read).toMatchObject({ status: 200, json: { saleState: 'opening_soon', settings: { state: 'scheduled' } } });
    expect((await setRoom(showtimeId, { capacity: 42, powDifficulty: 0 })).json.settings.capacity).toBe(42);
    const buyer = await newBuyer();
    expect((await join(showtimeId, buyer)).json.state).toBe('prequeue');
    expect((await setRoom(999_999_999, { capacity: 5 })).status).toBe(404);
    expect((await readRoom(999_999_999)).status).toBe(404);
    const stranger = await newBuyer();
    expect((await api('POST', '/api/showtimes/999999999/queue', { token: stranger.token })).status).toBe(404);
  });
});
