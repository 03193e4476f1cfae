/**
 * The core enforces admission itself (real PostgreSQL and Redis): a caller who reaches the
 * core directly with an access token still needs the token's own turn to be live, and meets
 * the core's own token buckets. A turn Redis has lost keeps working, and comes back from the
 * ledger (counted against the capacity) when the room is restored; a Redis that cannot answer
 * lets known turns go on, and the metric says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { Sql } from 'postgres';
import { signAccessToken } from '../../../lib/access-token';
import { createIoredisStore, createRoomEngine, type ScriptStore } from '../../../queue/src/index';
import { testDatabaseUrl, testRedisNamespace, testRedisUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { createAdmissionCheck } from '../../src/http/admission';
import { createCoreMetrics } from '../../src/metrics';
import { createCoreHarness, releasedTogether, unique, type CoreHarness } from '../core-harness';

let sql: Sql;
let redis: Redis;
let h: CoreHarness;
let engine: ReturnType<typeof createRoomEngine>;
let prefix: string;
const metrics = createCoreMetrics();
let storeDown = false;

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 8, applicationName: 'test-core-admission' });
  redis = new Redis(testRedisUrl());
  prefix = testRedisNamespace('core-admission');
  const real = createIoredisStore(redis);
  // A switch standing in for "Redis does not answer" (the fault suite kills a real one).
  const store: ScriptStore = {
    evalsha: (...args) => (storeDown ? Promise.reject(new Error('connection refused')) : real.evalsha(...args)),
    eval: (...args) => (storeDown ? Promise.reject(new Error('connection refused')) : real.eval(...args)),
    scriptLoad: (source) => real.scriptLoad(source),
  };
  engine = createRoomEngine({ store: real, keyPrefix: prefix });
  h = await createCoreHarness(sql, { admission: createAdmissionCheck({ store, keyPrefix: prefix, metrics }) });
});
afterAll(async () => {
  await sql.end();
  redis.disconnect();
});

const room = {
  state: 'open',
  capacity: 3,
  admitPerMinute: 60_000,
  admitBurst: 1_000,
  sessionTtlMs: 60_000,
  offerWindowMs: 30_000,
  abandonGraceMs: 30_000,
  tickGapMs: 0,
} as const;

/** Joins, is offered a place and claims it: the access token the edge would sign for that turn. */
async function admitted(showtimeId: number, customerId: string) {
  const joined = await engine.join(String(showtimeId), customerId);
  expect(joined.ok).toBe(true);
  await engine.tick(String(showtimeId));
  const claimed = await engine.claim(String(showtimeId), customerId);
  if (!claimed.ok) throw new Error(`not admitted: ${claimed.code}`);
  const token = await signAccessToken(h.tokenKeys, {
    customerId,
    showtimeId,
    sessionId: claimed.sessionId,
    expiresAtMs: claimed.sessionExpiresAtMs,
  });
  return { token, sessionId: claimed.sessionId, customerId, expiresAtMs: claimed.sessionExpiresAtMs };
}

const holdWith = (token: string, showtimeId: number, seats: string[]) =>
  h.call('POST', `/showtimes/${showtimeId}/holds`, { token, body: { seats } });

describe('the core checks admission itself', () => {
  it('a live turn holds; after leaving, or with a token of an earlier turn, the core answers 410 TURN_ENDED', async () => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 2, columns: 6 } });
    await engine.configure(String(showtimeId), room);
    const buyer = unique('buyer');
    const first = await admitted(showtimeId, buyer);
    expect((await holdWith(first.token, showtimeId, ['A1'])).status).toBe(201);

    await engine.leave(String(showtimeId), buyer);
    expect(await holdWith(first.token, showtimeId, ['A2'])).toMatchObject({
      status: 410,
      json: { error: { code: 'TURN_ENDED' } },
    });
    // Joining again is a new turn: the old token stays dead, the new one works.
    const second = await admitted(showtimeId, buyer);
    expect(second.sessionId).not.toBe(first.sessionId);
    expect((await holdWith(first.token, showtimeId, ['A3'])).status).toBe(410);
    expect((await holdWith(second.token, showtimeId, ['A3'])).status).toBe(201);

    // A token for a customer never admitted (signed keys alone are not a turn).
    const stranger = await signAccessToken(h.tokenKeys, {
      customerId: unique('never'),
      showtimeId,
      sessionId: `${showtimeId}.999999`,
      expiresAtMs: Date.now() + 60_000,
    });
    expect((await holdWith(stranger, showtimeId, ['A4'])).status).toBe(410);
    // Nothing was written for the refused holds.
    expect((await h.seatStatusCounts(showtimeId)).held).toBe(2);
  });

  it('closing the room ends every turn at the core; checkout needs a live turn too', async () => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 1, columns: 6 } });
    await engine.configure(String(showtimeId), room);
    const buyer = await admitted(showtimeId, unique('closing'));
    const hold = await holdWith(buyer.token, showtimeId, ['A1']);
    expect(hold.status).toBe(201);
    await engine.configure(String(showtimeId), { state: 'closed' });
    expect(await holdWith(buyer.token, showtimeId, ['A2'])).toMatchObject({
      status: 410,
      json: { error: { code: 'TURN_ENDED' } },
    });
    const checkout = await h.call('POST', `/holds/${hold.json.holdId}/checkout`, {
      token: buyer.token,
      headers: { 'idempotency-key': unique('k') },
    });
    expect(checkout).toMatchObject({ status: 410, json: { error: { code: 'TURN_ENDED' } } });
    // Reading and cancelling the hold need only the token.
    expect((await h.call('DELETE', `/holds/${hold.json.holdId}`, { token: buyer.token })).status).toBe(204);
  });

  it('40 rapid holds straight at the core by one customer: 429 with Retry-After once the bucket (10) is empty', async () => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 4, columns: 10 } });
    await engine.configure(String(showtimeId), room);
    const buyer = await admitted(showtimeId, unique('rapid'));
    const results = await releasedTogether(40, (i) =>
      holdWith(buyer.token, showtimeId, [`${String.fromCharCode(65 + Math.floor(i / 10))}${(i % 10) + 1}`]),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    // Ten passed the bucket; the per-customer seat limit (8) refuses two of them.
    expect(statuses.filter((s) => s === 201)).toHaveLength(8);
    expect(statuses.filter((s) => s === 422)).toHaveLength(2);
    expect(results.find((r) => r.status === 429)!.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('a turn Redis lost keeps working: unknown until the room is restored, then back in the active set from the ledger', async () => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 1, columns: 6 } });
    await engine.configure(String(showtimeId), room);
    const kept = await admitted(showtimeId, unique('kept'));
    const leaver = unique('left');
    const left = await admitted(showtimeId, leaver);
    await engine.leave(String(showtimeId), leaver);
    const ledger = [
      { customerId: kept.customerId, ticket: Number(kept.sessionId.split('.')[1]), expiresAtMs: kept.expiresAtMs },
    ];
    // Redis loses the room (its keys only: the shared server is not flushed).
    const keys = await redis.keys(`${prefix}wr:{show:${showtimeId}}:*`);
    expect(keys.length).toBeGreaterThan(0);
    await redis.del(...keys);
    const unknown = () =>
      (
        metrics.admissionUnchecked.get() as unknown as Promise<{
          values: { labels: { reason?: string }; value: number }[];
        }>
      ).then((m) => m.values.find((v) => v.labels.reason === 'turn_unknown')?.value ?? 0);
    const before = await unknown();
    // No copy at all: nothing is known, the turn goes on (and is counted as unchecked).
    expect((await holdWith(kept.token, showtimeId, ['A1'])).status).toBe(201);
    expect(await unknown()).toBe(before + 1);
    // Restored from the database: the settings, then the ledger's live turns (the leaver's is ended).
    await engine.configure(String(showtimeId), room);
    await engine.restoreTurns(String(showtimeId), ledger);
    expect((await holdWith(kept.token, showtimeId, ['A2'])).status).toBe(201);
    expect((await holdWith(left.token, showtimeId, ['A3'])).status).toBe(410);
    const stats = await engine.stats(String(showtimeId));
    expect(stats.ok && stats.active).toBe(1);
  });

  it('when the room store does not answer, known turns go on (failure policy) and the metric counts it', async () => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 1, columns: 6 } });
    await engine.configure(String(showtimeId), room);
    const turn = await admitted(showtimeId, unique('outage'));
    storeDown = true;
    try {
      expect((await holdWith(turn.token, showtimeId, ['A1'])).status).toBe(201);
    } finally {
      storeDown = false;
    }
    const unchecked = (await metrics.admissionUnchecked.get()).values.find((v) => v.labels.reason === 'store_down');
    expect(unchecked?.value).toBeGreaterThanOrEqual(1);
  });
});
