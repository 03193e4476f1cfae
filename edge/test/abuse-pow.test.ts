/**
 * Abuse matrix, proof of work at join: through the edge's HTTP API on the run's Redis. The
 * contract (README, "Proof of work at join"): without a solution a room that asks for work
 * answers 428 with the usual error body plus `challenge` and `difficulty`; the join sent again
 * with X-Pow-Challenge and X-Pow-Nonce passes once; wrong, foreign, expired or reused
 * solutions are refused with 4xx; the edge raises the difficulty by itself under load.
 */
import { POW_OPERATOR_MAX_BITS } from '../../lib/room-settings-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPowChallenges } from '../src/pow/pow-challenge';
import { powHeaders, solvePow } from '../src/pow/pow-solve-node';
import { createEdgeHarness, EDGE_ADMIN_TOKEN, fastRoom, type EdgeHarness } from './edge-harness';

let edge: EdgeHarness;
beforeAll(async () => {
  edge = await createEdgeHarness({ env: { POW_ADDRESS_JOINS_PER_MINUTE: '5', POW_SHOWTIME_JOINS_PER_SECOND: '1000' } });
});
afterAll(() => edge?.close());

const join = (showtimeId: number, token: string, headers: Record<string, string> = {}) =>
  edge.call('POST', `/api/showtimes/${showtimeId}/queue`, { token, headers });

/** A paused room: joins get a place (answered `paused`) without anyone being admitted. */
async function roomWithWork(settings: { powDifficulty: number; powMaxDifficulty?: number }) {
  const showtimeId = edge.core.addShowtime();
  await edge.configureRoom(showtimeId, { ...fastRoom, state: 'paused', capacity: 5, ...settings });
  return showtimeId;
}

describe('proof of work at join', () => {
  it('answers 428 with a challenge, takes the solved join, and refuses the same solution again', async () => {
    const showtimeId = await roomWithWork({ powDifficulty: 8 });
    const buyer = await edge.login();
    const first = await join(showtimeId, buyer.token);
    expect(first.status).toBe(428);
    expect(first.json).toMatchObject({
      error: { code: 'POW_REQUIRED', message: expect.any(String) },
      difficulty: 8,
      challenge: expect.any(String),
    });
    const { nonce } = solvePow(first.json.challenge, first.json.difficulty);
    const solved = await join(showtimeId, buyer.token, powHeaders(first.json.challenge, nonce));
    expect(solved.status, solved.text).toBe(200);
    expect(solved.json.state).toBe('paused');
    // The same solution, twice at once or later: never again; and never for anyone else.
    const replays = await Promise.all(
      Array.from({ length: 10 }, () => join(showtimeId, buyer.token, powHeaders(first.json.challenge, nonce))),
    );
    expect(replays.map((r) => r.status)).toEqual(Array(10).fill(428));
    expect(replays[0]!.json.error.code).toBe('POW_REUSED');
    expect(replays[0]!.json.challenge).not.toBe(first.json.challenge);
    const other = await edge.login();
    const foreign = await join(showtimeId, other.token, powHeaders(first.json.challenge, nonce));
    expect(foreign.status).toBe(428);
    expect(foreign.json.error.code).toBe('POW_INVALID');
  });

  it('lets exactly one of many concurrent joins through with one solution', async () => {
    const showtimeId = await roomWithWork({ powDifficulty: 4 });
    const buyers = await Promise.all(Array.from({ length: 20 }, () => edge.login()));
    const challenge = (await join(showtimeId, buyers[0]!.token)).json.challenge as string;
    const { nonce } = solvePow(challenge, 4);
    const results = await Promise.all(buyers.map((b) => join(showtimeId, b.token, powHeaders(challenge, nonce))));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 428)).toHaveLength(19);
  });

  it('refuses wrong, foreign, forged and expired solutions with 4xx and a fresh challenge', async () => {
    const showtimeId = await roomWithWork({ powDifficulty: 12 });
    const otherShowtimeId = await roomWithWork({ powDifficulty: 12 });
    const buyer = await edge.login();
    const challenge = (await join(showtimeId, buyer.token)).json.challenge as string;
    let wrong = 0;
    const pow = createPowChallenges({ secret: edge.config.pow.secret, ttlMs: 60_000 });
    const client = { address: '127.0.0.1', customerId: buyer.customerId };
    while ((await pow.verify(challenge, wrong.toString(36), String(showtimeId), client)).ok) wrong++;
    const stale = await createPowChallenges({
      secret: edge.config.pow.secret,
      ttlMs: 60_000,
      now: () => Date.now() - 120_000,
    }).issue(String(showtimeId), 12, client);
    const forged = await createPowChallenges({ secret: 'not-the-edge-secret', ttlMs: 60_000 }).issue(
      String(showtimeId),
      12,
      client,
    );
    const foreign = (await join(otherShowtimeId, buyer.token)).json.challenge as string;
    const cases: [string, Record<string, string>, string][] = [
      ['wrong nonce', powHeaders(challenge, wrong.toString(36)), 'POW_INVALID'],
      ['expired', powHeaders(stale, solvePow(stale, 12).nonce), 'POW_EXPIRED'],
      ['forged', powHeaders(forged, solvePow(forged, 12).nonce), 'POW_INVALID'],
      ['another showtime', powHeaders(foreign, solvePow(foreign, 12).nonce), 'POW_INVALID'],
      ['nonce missing', { 'x-pow-challenge': challenge }, 'POW_REQUIRED'],
      ['junk', powHeaders('v1.x', '!!'), 'POW_INVALID'],
    ];
    for (const [name, headers, code] of cases) {
      const refused = await join(showtimeId, buyer.token, headers);
      expect(refused.status, name).toBe(428);
      expect(refused.json.error.code, name).toBe(code);
      expect(refused.json.difficulty, name).toBe(12);
    }
    expect(
      (await edge.call('GET', `/api/admin/showtimes/${showtimeId}/room`, { token: EDGE_ADMIN_TOKEN })).json.stats
        .joined,
    ).toBe(0);
  });

  it('raises the difficulty for an address that joins too often, up to the ceiling, and not for others', async () => {
    const showtimeId = await roomWithWork({ powDifficulty: 2, powMaxDifficulty: 5 });
    const difficulties: number[] = [];
    for (let i = 0; i < 30; i++) {
      const refused = await join(showtimeId, (await edge.login()).token, { 'x-test-client': '203.0.113.50' });
      difficulties.push(refused.json.difficulty);
    }
    expect(difficulties[0]).toBe(2);
    expect(Math.max(...difficulties)).toBe(5);
    expect(difficulties).toEqual([...difficulties].sort((a, b) => a - b));
    const elsewhere = await join(showtimeId, (await edge.login()).token, { 'x-test-client': '198.51.100.50' });
    expect(elsewhere.json.difficulty).toBe(2);
  });

  it('refuses a cheap challenge solved from a quiet address when spent from a raised one', async () => {
    const showtimeId = await roomWithWork({ powDifficulty: 4, powMaxDifficulty: 7 });
    const buyer = await edge.login();
    const quiet = await join(showtimeId, buyer.token, { 'x-test-client': '198.51.100.60' });
    expect(quiet.json.difficulty).toBe(4);
    let raised = 0;
    for (let i = 0; i < 30 && raised < 7; i++)
      raised = (await join(showtimeId, (await edge.login()).token, { 'x-test-client': '203.0.113.60' })).json
        .difficulty;
    expect(raised).toBe(7);
    const cheap = powHeaders(quiet.json.challenge, solvePow(quiet.json.challenge, 4).nonce);
    const spent = await join(showtimeId, buyer.token, { 'x-test-client': '203.0.113.60', ...cheap });
    expect([spent.status, spent.json.error.code, spent.json.difficulty]).toEqual([428, 'POW_INVALID', 7]);
    // From the address it was issued to, by the customer it was issued to, it still works.
    expect((await join(showtimeId, buyer.token, { 'x-test-client': '198.51.100.60', ...cheap })).status).toBe(200);
  });

  it('keeps joins without work when the room asks for none', async () => {
    const showtimeId = await roomWithWork({ powDifficulty: 0, powMaxDifficulty: 0 });
    expect((await join(showtimeId, (await edge.login()).token)).status).toBe(200);
  });

  it('takes powDifficulty, powMaxDifficulty and placesPerAddress in the operator API, and refuses out-of-range values', async () => {
    const showtimeId = edge.core.addShowtime();
    const put = (body: object) =>
      edge.call('PUT', `/api/admin/showtimes/${showtimeId}/room`, { token: EDGE_ADMIN_TOKEN, body });
    expect((await put({ powDifficulty: 40 })).status).toBe(422);
    // The ceiling a throttled browser meets in about five seconds at worst; one bit more is 422.
    for (const field of ['powDifficulty', 'powMaxDifficulty']) {
      const over = await put({ [field]: POW_OPERATOR_MAX_BITS + 1 });
      expect(over.status).toBe(422);
      expect(over.json.error.code).toBe('VALIDATION_FAILED');
    }
    expect((await put({ powMaxDifficulty: POW_OPERATOR_MAX_BITS })).status).toBe(200);
    expect((await put({ powDifficulty: -1 })).status).toBe(422);
    const saved = await put({ powDifficulty: 6, powMaxDifficulty: 14, placesPerAddress: 50 });
    expect(saved.status).toBe(200);
    expect(saved.json.settings).toMatchObject({ powDifficulty: 6, powMaxDifficulty: 14, placesPerAddress: 50 });
    const refused = await join(showtimeId, (await edge.login()).token);
    expect(refused).toMatchObject({ status: 428, json: { difficulty: 6 } });
  });
});
