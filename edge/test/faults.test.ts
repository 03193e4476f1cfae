/**
 * The failure policy, per route, against a private Redis (killed and restarted on its port)
 * and a private core (stopped and started), with the edge on a real port via startEdge:
 *
 *   Redis down → admitted buyers keep buying (stateless access tokens, local fallback
 *                limiter); join and poll answer 503 with Retry-After; admissions pause.
 *   core down  → purchase routes answer 503 with Retry-After; the queue keeps working;
 *                seat maps come from the cache.
 *   Recovery without restarting the edge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEdgeConfig } from '../src/config';
import { startEdge, type RunningEdge } from '../src/node';
import { EDGE_ADMIN_TOKEN, fastRoom, signCustomerToken, testTokenKeys } from './edge-harness';
import {
  serveRestartable,
  startRestartableRedis,
  type RestartableHttp,
  type RestartableRedis,
} from './private-servers';
import { createStubCore, type StubCore } from './stub-core';
import { callJson, eventually, fetchFrom, type JsonCallInit } from '../../test/support/json-call';

let redis: RestartableRedis;
let coreServer: RestartableHttp;
let core: StubCore;
let edge: RunningEdge;

beforeAll(async () => {
  const keys = await testTokenKeys();
  core = createStubCore(keys);
  coreServer = await serveRestartable((request) => core.app.fetch(request));
  redis = await startRestartableRedis();
  edge = await startEdge(
    parseEdgeConfig({
      EDGE_PORT: '0',
      EDGE_HOST: '127.0.0.1',
      REDIS_URL: redis.url,
      CORE_URL: coreServer.url,
      SNAPSHOT_TTL_MS: '100',
      SEAT_MAP_TTL_MS: '100',
      CORE_TIMEOUT_MS: '2000',
      FLOOD_POINTS: '100000',
      ADMIN_TOKEN: EDGE_ADMIN_TOKEN,
      DEMO_LOGIN_PER_MINUTE: '100000',
      // Rooms come back here on the request that finds them missing (what these tests show);
      // the periodic sync would race them to it.
      ROOM_SYNC_MS: '600000',
      LOG_LEVEL: 'silent',
    }),
    { tokenKeys: keys, consumeEvents: false },
  );
});
afterAll(async () => {
  await edge?.close();
  await redis?.stop();
  await coreServer?.stop();
});

const api = (method: string, path: string, init?: JsonCallInit) => callJson(fetchFrom(edge.url), method, path, init);

const login = (customerId: string) => signCustomerToken(customerId);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('failure policy', () => {
  it('Redis down: admitted buyers keep buying, joins and polls get 503 with Retry-After, then it recovers', async () => {
    const showtimeId = core.addShowtime();
    // Set as an operator would: in the core (the source of truth), then copied into Redis.
    core.setRoomSettings(showtimeId, { ...fastRoom, capacity: 1 });
    await edge.app.catalog.ensureRoom(String(showtimeId));
    const admitted = await api('POST', `/api/showtimes/${showtimeId}/queue`, { token: await login('fault-a') });
    expect(admitted.json.state).toBe('admitted');
    const access = admitted.json.accessToken as string;
    const waiting = await api('POST', `/api/showtimes/${showtimeId}/queue`, { token: await login('fault-b') });
    expect(waiting.json.state).toBe('waiting');
    const lateToken = await login('fault-c');

    await redis.stop();
    await sleep(200); // past the snapshot TTL

    const seats = await api('GET', `/api/showtimes/${showtimeId}/seats`, { token: access });
    expect(seats.status).toBe(200);
    const hold = await api('POST', `/api/showtimes/${showtimeId}/holds`, { token: access, body: { seats: ['A1'] } });
    expect(hold.status).toBe(201);
    expect(edge.app.rooms.engine).toBeTruthy();

    const join = await api('POST', `/api/showtimes/${showtimeId}/queue`, { token: lateToken });
    expect(join.status).toBe(503);
    expect(Number(join.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(join.json.error.code).toBe('QUEUE_UNAVAILABLE');
    const poll = await api('GET', `/api/showtimes/${showtimeId}/queue`, {
      headers: { 'x-queue-token': waiting.json.queueToken },
    });
    expect(poll.status).toBe(503);
    expect(poll.headers.get('retry-after')).toBeTruthy();
    expect((await api('GET', '/readyz')).json).toMatchObject({ status: 'degraded', redis: 'down', core: 'ok' });
    const metrics = await (
      await fetch(`${edge.url}/metrics`, { headers: { authorization: `Bearer ${EDGE_ADMIN_TOKEN}` } })
    ).text();
    expect(metrics).toMatch(/edge_limiter_fallback_total [1-9]/);

    // An operator's change while Redis is away is saved (the core holds it) and said to be pending.
    const change = await api('PUT', `/api/admin/showtimes/${showtimeId}/room`, {
      headers: { authorization: `Bearer ${EDGE_ADMIN_TOKEN}` },
      body: { admitPerMinute: 90 },
    });
    expect(change).toMatchObject({ status: 202, json: { applied: false } });

    // A fresh Redis (data gone: Redis is a gate, not the truth). No edge restart.
    await redis.start();
    const rejoined = await eventually(
      () => api('POST', `/api/showtimes/${showtimeId}/queue`, { token: lateToken }),
      (result) => result.status === 200,
    );
    expect(rejoined.status).toBe(200);
    // The room came back from the core with its settings and the turn it had granted (the
    // ledger): the admitted buyer keeps buying, and that turn still fills the capacity of 1.
    expect(rejoined.json.state).toBe('waiting');
    expect((await api('GET', `/api/holds/${hold.json.holdId}`, { token: access })).status).toBe(200);
    const holdAfter = await api('POST', `/api/showtimes/${showtimeId}/holds`, {
      token: access,
      body: { seats: ['A2'] },
    });
    expect(holdAfter.status).toBe(201);
    const stats = await edge.app.rooms.engine.stats(String(showtimeId));
    expect(stats.ok && stats.active).toBe(1);
    // The change made while Redis was away is in the restored room.
    const settings = await edge.app.rooms.engine.getSettings(String(showtimeId));
    expect(settings.ok && settings.settings).toMatchObject({ admitPerMinute: 90, capacity: 1 });
  });

  it('a room that asks for proof of work asks it of the very first join after Redis lost the room', async () => {
    const showtimeId = core.addShowtime();
    const admin = { authorization: `Bearer ${EDGE_ADMIN_TOKEN}` };
    const set = await api('PUT', `/api/admin/showtimes/${showtimeId}/room`, {
      headers: admin,
      body: { state: 'open', capacity: 1, powDifficulty: 6 },
    });
    expect(set.status, set.text).toBe(200);
    expect((await api('POST', `/api/showtimes/${showtimeId}/queue`, { token: await login('pow-before') })).status).toBe(
      428,
    );
    // Redis comes back empty: the room (and its settings) exist only in the core's copy now.
    await redis.stop();
    await redis.start();
    // The edge is connected again, and its one-second copy of the room's settings has lapsed.
    await eventually(
      () => edge.redis!.ping().catch(() => 'down'),
      (reply) => reply === 'PONG',
    );
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await edge.app.rooms.engine.getSettings(String(showtimeId))).ok).toBe(false); // the room is gone
    const token = await login('pow-after');
    const first = await eventually(
      () => api('POST', `/api/showtimes/${showtimeId}/queue`, { token }),
      (result) => result.status !== 503,
    );
    expect(first.status, first.text).toBe(428);
    expect(first.json).toMatchObject({ error: { code: 'POW_REQUIRED' }, difficulty: 6 });
    const stats = await edge.app.rooms.engine.stats(String(showtimeId));
    expect(stats.ok && stats.waiting).toBe(0); // nobody got a place without the work
  });

  it('after Redis lost what the wait estimate learned, joiners are quoted the rate the operator set, and it learns again', async () => {
    const showtimeId = core.addShowtime();
    // One a second, one slot held by the first buyer: the line moves at the rate.
    core.setRoomSettings(showtimeId, { ...fastRoom, capacity: 3, admitPerMinute: 60, admitBurst: 1 });
    await edge.app.catalog.ensureRoom(String(showtimeId));
    // Turns end quickly before the loss: the room learns short turns and a busy line.
    for (let i = 0; i < 4; i++) {
      const joined = await api('POST', `/api/showtimes/${showtimeId}/queue`, {
        token: await login(`learn-${showtimeId}-${i}`),
      });
      expect(joined.status).toBe(200);
      await api('DELETE', `/api/showtimes/${showtimeId}/queue`, { token: await login(`learn-${showtimeId}-${i}`) });
    }
    const before = await edge.app.rooms.engine.snapshot(String(showtimeId));
    expect(before.ok && before.snapshot.learning.turnsEnded).toBeGreaterThan(0);
    await redis.stop();
    await redis.start();
    await eventually(
      () => edge.redis!.ping().catch(() => 'down'),
      (reply) => reply === 'PONG',
    );
    const answers = [];
    for (let i = 0; i < 6; i++) {
      const token = await login(`after-loss-${showtimeId}-${i}`);
      answers.push(
        (
          await eventually(
            () => api('POST', `/api/showtimes/${showtimeId}/queue`, { token }),
            (r) => r.status !== 503,
          )
        ).json,
      );
    }
    // Nothing learned survived (the room came back from the core's copy without it) ...
    const snapshot = await edge.app.rooms.engine.snapshot(String(showtimeId));
    expect(snapshot.ok && snapshot.snapshot.learning.turnsEnded).toBe(0);
    // ... and every waiting joiner hears the wait at the rate set: about a second a place.
    const waiting = answers.filter((a) => a.state === 'waiting');
    expect(waiting.length).toBeGreaterThan(0);
    for (const answer of waiting) {
      expect(Number.isFinite(answer.etaSeconds)).toBe(true);
      expect(answer.etaSeconds).toBeGreaterThanOrEqual(answer.position - 1);
      expect(answer.etaSeconds).toBeLessThanOrEqual(answer.position * 1.25 + 1);
    }
    // Turns that end from now on are learned again.
    const admitted = answers.find((a) => a.state === 'admitted');
    expect(admitted).toBeDefined();
    await edge.app.rooms.leave(String(showtimeId), `after-loss-${showtimeId}-${answers.indexOf(admitted!)}`);
    const again = await edge.app.rooms.engine.snapshot(String(showtimeId));
    expect(again.ok && again.snapshot.learning.turnsEnded).toBeGreaterThan(0);
  });

  it('a released turn cannot start another purchase: an access token outliving its slot gets 410', async () => {
    const showtimeId = core.addShowtime();
    await edge.app.rooms.engine.configure(String(showtimeId), { ...fastRoom, capacity: 1 });
    const admitted = await api('POST', `/api/showtimes/${showtimeId}/queue`, { token: await login('turn-a') });
    const access = admitted.json.accessToken as string;
    expect(
      (await api('POST', `/api/showtimes/${showtimeId}/holds`, { token: access, body: { seats: ['A1'] } })).status,
    ).toBe(201);
    // The booking completed: the core's event releases the slot.
    await edge.app.rooms.engine.release(String(showtimeId), 'turn-a');
    const again = await api('POST', `/api/showtimes/${showtimeId}/holds`, { token: access, body: { seats: ['A2'] } });
    expect(again.status).toBe(410);
    expect(again.json.error.code).toBe('TURN_ENDED');
  });

  it('core down: purchases get 503 with Retry-After, the queue keeps working, seat maps come from the cache', async () => {
    const showtimeId = core.addShowtime();
    await edge.app.rooms.engine.configure(String(showtimeId), { ...fastRoom, capacity: 5 });
    const admitted = await api('POST', `/api/showtimes/${showtimeId}/queue`, { token: await login('core-a') });
    const access = admitted.json.accessToken as string;
    const warm = await api('GET', `/api/showtimes/${showtimeId}/seats`, { token: access });
    expect(warm.status).toBe(200);

    await coreServer.stop();
    await sleep(150); // past the seat-map TTL: the cache must fall back to the stale copy

    const hold = await api('POST', `/api/showtimes/${showtimeId}/holds`, { token: access, body: { seats: ['A1'] } });
    expect(hold.status).toBe(503);
    expect(hold.json.error.code).toBe('CORE_UNAVAILABLE');
    expect(Number(hold.headers.get('retry-after'))).toBeGreaterThan(0);
    const seats = await api('GET', `/api/showtimes/${showtimeId}/seats`, { token: access });
    expect(seats.status).toBe(200);
    expect(seats.json).toEqual(warm.json);
    expect(seats.headers.get('warning')).toContain('stale');
    const join = await api('POST', `/api/showtimes/${showtimeId}/queue`, { token: await login('core-b') });
    // A free slot, but no admission while the core cannot record the turn: the buyer waits.
    expect(join.status).toBe(200);
    expect(join.json.state).toBe('waiting');
    const poll = await api('GET', `/api/showtimes/${showtimeId}/queue`, {
      headers: { 'x-queue-token': join.json.queueToken },
    });
    expect(poll.status).toBe(200);
    expect((await api('GET', '/readyz')).json).toMatchObject({ status: 'degraded', redis: 'ok', core: 'down' });

    await coreServer.start();
    const recovered = await eventually(
      () => api('POST', `/api/showtimes/${showtimeId}/holds`, { token: access, body: { seats: ['A3'] } }),
      (result) => result.status === 201,
    );
    expect(recovered.status).toBe(201);
  });
});
