/**
 * The waiting room's routes in process on the in-memory store and the stub core (no server):
 * join, poll and leave, each with its success answer and its main refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEdgeHarness, fastRoom, type EdgeHarness } from '../../test/edge-harness';
import { exportJWK, generateKeyPair } from 'jose';
import { createReceiptSigner, verifyReceipt } from '../../../lib/fairness-receipt';
import { createMemoryFloodLimiter } from '../limits/flood-limiter';

/** A P-256 private key of its own: receipts it signs must not pass for the sale's. */
async function freshKey() {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const { x, y, d } = await exportJWK(privateKey);
  return { x, y, d };
}

let edge: EdgeHarness;

beforeAll(async () => {
  edge = await createEdgeHarness({
    store: 'memory',
    floodLimiter: createMemoryFloodLimiter({ points: 5, windowMs: 60_000 }),
  });
});
afterAll(async () => {
  await edge?.close();
});

/** A showtime with an open room; each request from an address of its own unless told (the flood limit is 5). */
async function openRoom(patch = {}) {
  const showtimeId = edge.core.addShowtime();
  await edge.configureRoom(showtimeId, { ...fastRoom, ...patch });
  return showtimeId;
}
let address = 0;
const fresh = () => ({ 'x-test-client': `10.1.${Math.floor(++address / 250)}.${address % 250}` });

describe('POST /api/showtimes/:id/queue (join)', () => {
  it('admits into a room with a free slot, with a queue token, cookies and no caching', async () => {
    const showtimeId = await openRoom();
    const { token } = await edge.login('join-a');
    const joined = await edge.call('POST', `/api/showtimes/${showtimeId}/queue`, { token, headers: fresh() });
    expect(joined.status).toBe(200);
    expect(joined.json).toMatchObject({
      state: 'admitted',
      queueToken: expect.any(String),
      accessToken: expect.any(String),
    });
    expect(joined.headers.get('cache-control')).toBe('no-store');
    expect(joined.headers.get('set-cookie')).toContain('HttpOnly');
  });

  it('answers with a join receipt signed by the keys at /api/fairness/keys (another key: refused)', async () => {
    const showtimeId = await openRoom({ capacity: 1 });
    await edge.call('POST', `/api/showtimes/${showtimeId}/queue`, {
      token: (await edge.login('receipt-first')).token,
      headers: fresh(),
    });
    const { token, customerId } = await edge.login('receipt-b');
    const joined = await edge.call('POST', `/api/showtimes/${showtimeId}/queue`, { token, headers: fresh() });
    expect(joined.json.state).toBe('waiting');
    const keys = await edge.call('GET', '/api/fairness/keys', { headers: fresh() });
    expect(keys.json.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    expect(keys.json.keys[0].d).toBeUndefined();
    const checked = await verifyReceipt(joined.json.receipt, keys.json);
    expect(checked).toMatchObject({
      ok: true,
      claims: { showtimeId: String(showtimeId), customerId, rank: 2, stage: 'line' },
    });
    // Broken variant: a forger's own key under the sale's kid signs a receipt the keys refuse.
    const elsewhere = createReceiptSigner({ kty: 'EC', crv: 'P-256', ...(await freshKey()), kid: 'fairness-dev-1' });
    expect(
      (
        await verifyReceipt(
          await elsewhere.sign({ showtimeId: String(showtimeId), customerId, rank: 1, stage: 'line' }),
          keys.json,
        )
      ).ok,
    ).toBe(false);
  });

  it('refuses without a customer token (401), with a forged one (401), for a malformed or unknown showtime (404)', async () => {
    const showtimeId = await openRoom();
    const missing = await edge.call('POST', `/api/showtimes/${showtimeId}/queue`, { headers: fresh() });
    expect([missing.status, missing.json.error.code]).toEqual([401, 'MISSING_TOKEN']);
    const forged = await edge.call('POST', `/api/showtimes/${showtimeId}/queue`, {
      token: 'not.a.token',
      headers: fresh(),
    });
    expect([forged.status, forged.json.error.code]).toEqual([401, 'INVALID_TOKEN']);
    const { token } = await edge.login('join-b');
    const malformed = await edge.call('POST', '/api/showtimes/abc/queue', { token, headers: fresh() });
    expect([malformed.status, malformed.json.error.code]).toEqual([404, 'SHOWTIME_NOT_FOUND']);
    const unknown = await edge.call('POST', '/api/showtimes/999999999/queue', { token, headers: fresh() });
    expect(unknown.status).toBe(404);
  });

  it('asks for proof of work when the room does (428 with a challenge)', async () => {
    const showtimeId = await openRoom({ powDifficulty: 8 });
    const { token } = await edge.login('join-pow');
    const asked = await edge.call('POST', `/api/showtimes/${showtimeId}/queue`, { token, headers: fresh() });
    expect(asked.status).toBe(428);
    expect(asked.json).toMatchObject({ error: { code: 'POW_REQUIRED' }, difficulty: 8, challenge: expect.any(String) });
  });

  it('refuses a place beyond the address limit (403) and a flood from one address (429 with Retry-After)', async () => {
    const showtimeId = await openRoom({ placesPerAddress: 1 });
    const headers = fresh();
    expect(
      (
        await edge.call('POST', `/api/showtimes/${showtimeId}/queue`, {
          token: (await edge.login('addr-1')).token,
          headers,
        })
      ).status,
    ).toBe(200);
    const second = await edge.call('POST', `/api/showtimes/${showtimeId}/queue`, {
      token: (await edge.login('addr-2')).token,
      headers,
    });
    expect([second.status, second.json.error.code]).toEqual([403, 'ADDRESS_PLACE_LIMIT']);
    const { token } = await edge.login('flood');
    let last = second;
    for (let i = 0; i < 6 && last.status !== 429; i++)
      last = await edge.call('POST', `/api/showtimes/${showtimeId}/queue`, { token, headers });
    expect([last.status, last.json.error.code]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('GET /api/showtimes/:id/queue (poll)', () => {
  it('answers the place in line for the queue token', async () => {
    const showtimeId = await openRoom({ capacity: 1 });
    await edge.call('POST', `/api/showtimes/${showtimeId}/queue`, {
      token: (await edge.login('poll-first')).token,
      headers: fresh(),
    });
    const joined = await edge.call('POST', `/api/showtimes/${showtimeId}/queue`, {
      token: (await edge.login('poll-second')).token,
      headers: fresh(),
    });
    const polled = await edge.call('GET', `/api/showtimes/${showtimeId}/queue`, {
      headers: { 'x-queue-token': joined.json.queueToken, ...fresh() },
    });
    expect(polled.status).toBe(200);
    expect(polled.json).toMatchObject({ state: 'waiting', position: 1 });
  });

  it("refuses without a queue token (401), a forged one (401), another showtime's (403) and another customer's (403)", async () => {
    const showtimeId = await openRoom();
    const other = await openRoom();
    const { token } = await edge.login('poll-owner');
    const joined = await edge.call('POST', `/api/showtimes/${showtimeId}/queue`, { token, headers: fresh() });
    const missing = await edge.call('GET', `/api/showtimes/${showtimeId}/queue`, { headers: fresh() });
    expect([missing.status, missing.json.error.code]).toEqual([401, 'MISSING_TOKEN']);
    const forged = await edge.call('GET', `/api/showtimes/${showtimeId}/queue`, {
      headers: { 'x-queue-token': 'x.y.z', ...fresh() },
    });
    expect(forged.status).toBe(401);
    const wrong = await edge.call('GET', `/api/showtimes/${other}/queue`, {
      headers: { 'x-queue-token': joined.json.queueToken, ...fresh() },
    });
    expect([wrong.status, wrong.json.error.code]).toEqual([403, 'WRONG_SHOWTIME']);
    const stranger = await edge.login('poll-stranger');
    const notYours = await edge.call('GET', `/api/showtimes/${showtimeId}/queue`, {
      token: stranger.token,
      headers: { 'x-queue-token': joined.json.queueToken, ...fresh() },
    });
    expect([notYours.status, notYours.json.error.code]).toEqual([403, 'NOT_YOUR_TOKEN']);
  });
});

describe('DELETE /api/showtimes/:id/queue (leave)', () => {
  it('removes the place and clears the queue cookie; leaving again removes nothing', async () => {
    const showtimeId = await openRoom();
    const { token } = await edge.login('leaver');
    await edge.call('POST', `/api/showtimes/${showtimeId}/queue`, { token, headers: fresh() });
    const left = await edge.call('DELETE', `/api/showtimes/${showtimeId}/queue`, { token, headers: fresh() });
    expect([left.status, left.json]).toEqual([200, { state: 'left', removed: true }]);
    expect(left.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect(
      (await edge.call('DELETE', `/api/showtimes/${showtimeId}/queue`, { token, headers: fresh() })).json.removed,
    ).toBe(false);
  });

  it('refuses without a customer token (401) and for a malformed showtime (404)', async () => {
    const missing = await edge.call('DELETE', `/api/showtimes/${await openRoom()}/queue`, { headers: fresh() });
    expect([missing.status, missing.json.error.code]).toEqual([401, 'MISSING_TOKEN']);
    const { token } = await edge.login('leaver-2');
    expect((await edge.call('DELETE', '/api/showtimes/x1/queue', { token, headers: fresh() })).status).toBe(404);
  });
});
