/**
 * Fairness anyone can check, on the real stack: the core on this run's PostgreSQL, the edge on a
 * private redis-server the test can empty. A clean sale verifies with 0 inversions (receipt
 * included, and by the command line); a buyer moved ahead by a direct ZADD on the line is
 * caught as inversions; a tampered entry, a tampered receipt and a wrong seed each fail; the log
 * and the draw commitment survive a Redis restart and the loss of the room's keys.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreHarness } from '../../core/test/core-harness';
import type { RunningEdge } from '../../edge/src/node';
import type { RestartableRedis } from '../../edge/test/private-servers';
import { seedCommitment } from '../../lib/fair-draw';
import { verifyFairness, type PublishedLog } from '../../lib/fairness-verify';
import { createKeyBuilder } from '../../queue/src/index';
import { ROOM_KEY_NAMES } from '../../queue/src/keys';
import { callJson, eventually, fetchFrom } from '../support/json-call';
import { startPrivateRedisStack, type PrivateRedisStack } from '../support/private-redis-stack';

const ADMIN = 'fairness-admin-token-0123456789';
let h: CoreHarness;
let redis: RestartableRedis;
let roomRedis: Redis;
let stack: PrivateRedisStack;
let edge: RunningEdge;

beforeAll(async () => {
  stack = await startPrivateRedisStack({ name: 'fairness', adminToken: ADMIN });
  ({ h, redis, roomRedis, edge } = stack);
}, 60_000);
afterAll(async () => {
  await stack?.close();
});

const api = (method: string, urlPath: string, init?: Parameters<typeof callJson>[3]) =>
  callJson(fetchFrom(edge.url), method, urlPath, init);
const admin = { authorization: `Bearer ${ADMIN}` };
const setRoom = async (showtimeId: number, body: unknown) => {
  const answer = await api('PUT', `/api/admin/showtimes/${showtimeId}/room`, { headers: admin, body });
  expect(answer.status).toBe(200);
  return answer;
};
const fairness = (showtimeId: number) => api('GET', `/api/showtimes/${showtimeId}/fairness`);

interface Buyer {
  token: string;
  customerId: string;
  queueToken?: string;
  accessToken?: string;
  receipt?: string;
}

async function newBuyer(): Promise<Buyer> {
  const login = await api('POST', '/api/auth/demo', { body: {} });
  expect(login.status).toBe(200);
  return { token: login.json.token, customerId: login.json.customerId };
}

async function join(showtimeId: number, buyer: Buyer) {
  const joined = await api('POST', `/api/showtimes/${showtimeId}/queue`, { token: buyer.token });
  expect(joined.status).toBe(200);
  expect(joined.json.receipt).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  buyer.queueToken = joined.json.queueToken ?? buyer.queueToken;
  buyer.receipt ??= joined.json.receipt;
  if (joined.json.accessToken) buyer.accessToken = joined.json.accessToken;
  return joined;
}

/** Everyone polls (as the page does) until admitted. */
async function allAdmitted(showtimeId: number, buyers: Buyer[]) {
  await eventually(
    async () => {
      for (const buyer of buyers) {
        if (buyer.accessToken) continue;
        const poll = await api('GET', `/api/showtimes/${showtimeId}/queue`, {
          headers: { 'x-queue-token': buyer.queueToken ?? '' },
        });
        if (poll.json?.accessToken) buyer.accessToken = poll.json.accessToken;
        if (poll.status === 410) await join(showtimeId, buyer);
      }
      return buyers.filter((b) => b.accessToken).length;
    },
    (admitted) => admitted === buyers.length,
    15_000,
  );
}

async function endedLog(showtimeId: number): Promise<PublishedLog> {
  await setRoom(showtimeId, { state: 'closed' });
  const log = await fairness(showtimeId);
  expect(log.status).toBe(200);
  expect(log.json.ended).toBe(true);
  return log.json as PublishedLog;
}

const keys = async () => (await api('GET', '/api/fairness/keys')).json;

/** npm run verify-fairness, as a journalist would run it; its exit status. */
function runVerifier(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/verify-fairness.ts', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code: code ?? -1, out }));
  });
}

describe('a clean sale', () => {
  let showtimeId: number;
  let log: PublishedLog;
  let buyers: Buyer[];

  beforeAll(async () => {
    ({ showtimeId } = await h.createShowtime({ layout: { rows: 2, columns: 10 } }));
    await setRoom(showtimeId, { capacity: 20, admitPerMinute: 6_000, sessionTtlSeconds: 120 });
    buyers = [];
    for (let i = 0; i < 6; i++) {
      const buyer = await newBuyer();
      await join(showtimeId, buyer);
      buyers.push(buyer);
    }
    await allAdmitted(showtimeId, buyers);
    const live = await fairness(showtimeId);
    // Live: the head and the commitment, nothing that would tell who is who.
    expect(live.json).toMatchObject({ ended: false, entries: null, seed: null, salt: null });
    expect(live.json.head.seq).toBeGreaterThan(0);
    log = await endedLog(showtimeId);
    expect(log.commitment).toBe(live.json.commitment);
    expect(log.entries!.length).toBeGreaterThanOrEqual(live.json.head.seq);
    expect(log.entries![live.json.head.seq - 1]!.hash).toBe(live.json.head.hash);
  }, 60_000);

  it('verifies with 0 inversions, and the receipt is signed and its place is in the log', async () => {
    const result = await verifyFairness(log, { receipt: buyers[2]!.receipt!, jwks: await keys() });
    expect(result.summary).toMatch(/^VERIFIED/);
    expect(result).toMatchObject({ verdict: 'verified', inversions: 0, admitted: 6 });
    expect(result.receipt).toMatchObject({ admitted: true, overtakenBy: 0, claims: { stage: 'line' } });
    expect(log.entries!.filter((e) => e.kind === 'joined').map((e) => e.rank)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('a tampered entry fails (broken variant of the chain check)', async () => {
    const tampered = structuredClone(log);
    tampered.entries![1]!.rank += 1;
    const result = await verifyFairness(tampered);
    expect(result.verdict).toBe('failed');
    expect(result.checks.find((c) => c.id === 'chain')).toMatchObject({ ok: false });
  });

  it('a tampered receipt fails (broken variant of the receipt check)', async () => {
    const [header, payload, signature] = buyers[2]!.receipt!.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, rank: 1 })).toString('base64url')}.${signature}`;
    const result = await verifyFairness(log, { receipt: forged, jwks: await keys() });
    expect(result.verdict).toBe('failed');
    expect(result.checks.find((c) => c.id === 'receipt')).toMatchObject({ ok: false });
  });

  it('a wrong seed fails (broken variant of the commitment check)', async () => {
    const result = await verifyFairness({ ...log, seed: 'ab'.repeat(32) });
    expect(result.verdict).toBe('failed');
    expect(result.checks.find((c) => c.id === 'commitment')).toMatchObject({ ok: false });
  });

  it('npm run verify-fairness: 0 verified, 1 failed, 2 could not run', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'fairness-'));
    const logFile = path.join(dir, 'log.json');
    const keysFile = path.join(dir, 'keys.json');
    const tamperedFile = path.join(dir, 'tampered.json');
    await writeFile(logFile, JSON.stringify(log));
    await writeFile(keysFile, JSON.stringify(await keys()));
    const tampered = structuredClone(log);
    tampered.entries![0]!.atMs += 1;
    await writeFile(tamperedFile, JSON.stringify(tampered));
    const byUrl = await runVerifier([`${edge.url}/showtimes/${showtimeId}`, buyers[0]!.receipt!]);
    expect(byUrl.out).toMatch(/VERIFIED/);
    expect(byUrl.code).toBe(0);
    expect((await runVerifier([logFile, buyers[1]!.receipt!, '--keys', keysFile])).code).toBe(0);
    const failed = await runVerifier([tamperedFile]);
    expect(failed.out).toMatch(/FAILED/);
    expect(failed.code).toBe(1);
    expect((await runVerifier([path.join(dir, 'missing.json')])).code).toBe(2);
    expect((await runVerifier(['http://127.0.0.1:9/showtimes/1'])).code).toBe(2);
  }, 60_000);
});

describe('a sale with an opening draw', () => {
  it("verifies the draw from the revealed seed, and a pre-queue buyer's receipts, before and after the draw", async () => {
    const { showtimeId } = await h.createShowtime({
      layout: { rows: 2, columns: 10 },
      opensAt: new Date(Date.now() + 3_600_000),
    });
    await setRoom(showtimeId, { capacity: 20, admitPerMinute: 6_000, sessionTtlSeconds: 120 });
    const buyers: Buyer[] = [];
    for (let i = 0; i < 6; i++) {
      const buyer = await newBuyer();
      expect((await join(showtimeId, buyer)).json.state).toBe('prequeue');
      buyers.push(buyer);
    }
    const before = (await fairness(showtimeId)).json.commitment;
    await setRoom(showtimeId, { state: 'open' });
    await allAdmitted(showtimeId, buyers);
    // Joining again after the draw: the drawn place, in a receipt of its own.
    const again = await api('POST', `/api/showtimes/${showtimeId}/queue`, { token: buyers[3]!.token });
    const log = await endedLog(showtimeId);
    expect(log.commitment).toBe(before);
    expect(log.entries!.filter((e) => e.kind === 'drawn')).toHaveLength(6);
    const jwks = await keys();
    for (const receipt of [buyers[3]!.receipt!, again.json.receipt as string]) {
      const result = await verifyFairness(log, { receipt, jwks });
      expect(result.checks.filter((c) => !c.ok)).toEqual([]);
      expect(result).toMatchObject({ verdict: 'verified', inversions: 0, admitted: 6 });
    }
    // Broken variant: another seed with its own (matching) commitment does not give the drawn places.
    const other = 'cd'.repeat(32);
    const forged = await verifyFairness({ ...log, seed: other, commitment: await seedCommitment(other) });
    expect(forged.checks.filter((c) => !c.ok).map((c) => c.id)).toEqual(expect.arrayContaining(['draw']));
  }, 60_000);
});

describe('a planted line jump', () => {
  it('a buyer moved ahead by a direct ZADD on the line is caught as inversions', async () => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 2, columns: 10 } });
    await setRoom(showtimeId, { capacity: 20, admitPerMinute: 6_000, sessionTtlSeconds: 120 });
    await setRoom(showtimeId, { state: 'paused' });
    const buyers: Buyer[] = [];
    for (let i = 0; i < 5; i++) {
      const buyer = await newBuyer();
      expect((await join(showtimeId, buyer)).json.state).toBe('paused');
      buyers.push(buyer);
    }
    // The jump: the last buyer written to the head of the line, behind the room's back.
    const lineKey = createKeyBuilder('').forShowtime(String(showtimeId)).room[ROOM_KEY_NAMES.indexOf('line')]!;
    expect(await roomRedis.zadd(lineKey, 0, buyers[4]!.customerId)).toBe(0);
    await setRoom(showtimeId, { state: 'open' });
    await allAdmitted(showtimeId, buyers);
    const log = await endedLog(showtimeId);
    const result = await verifyFairness(log, { receipt: buyers[0]!.receipt!, jwks: await keys() });
    expect(result.verdict).toBe('failed');
    expect(result.inversions).toBe(4);
    expect(result.checks.find((c) => c.id === 'order')).toMatchObject({ ok: false });
    expect(result.receipt).toMatchObject({ overtakenBy: 1 });
  }, 60_000);
});

describe('the log and the commitment survive losing Redis', () => {
  it.each([
    [
      'a Redis restart (empty)',
      async () => {
        await redis.stop();
        await redis.start();
      },
    ],
    [
      "the room's keys deleted",
      async (showtimeId: number) => {
        const found = await roomRedis.keys(`wr:{show:${showtimeId}}:*`);
        expect(found.length).toBeGreaterThan(3);
        await roomRedis.del(...found);
      },
    ],
  ])(
    '%s',
    async (_name, loseTheRoom: (showtimeId: number) => Promise<void>) => {
      const { showtimeId } = await h.createShowtime({ layout: { rows: 2, columns: 10 } });
      await setRoom(showtimeId, { capacity: 20, admitPerMinute: 6_000, sessionTtlSeconds: 120 });
      const before = [await newBuyer(), await newBuyer(), await newBuyer()];
      for (const buyer of before) await join(showtimeId, buyer);
      await allAdmitted(showtimeId, before);
      const published = (await fairness(showtimeId)).json;
      // null while the room is gone (or Redis still coming back).
      const roomSeedHash = async () => {
        const stats = await edge.app.rooms.engine.stats(String(showtimeId)).catch(() => null);
        return stats?.ok ? stats.seedHash : null;
      };
      // The room drew its seed from PostgreSQL: the commitment published is the room's.
      expect(await roomSeedHash()).toBe(published.commitment);

      await loseTheRoom(showtimeId);
      await eventually(roomSeedHash, (hash) => hash !== null, 10_000);
      expect(await roomSeedHash()).toBe(published.commitment);
      const after = [await newBuyer(), await newBuyer()];
      for (const buyer of after) await join(showtimeId, buyer);
      await allAdmitted(showtimeId, after);

      const log = await endedLog(showtimeId);
      expect(log.commitment).toBe(published.commitment);
      // What was copied before the loss is still there, and the loss is said in the log.
      expect(log.entries![published.head.seq - 1]!.hash).toBe(published.head.hash);
      expect(log.entries!.filter((e) => e.kind === 'line_reset')).toHaveLength(1);
      const result = await verifyFairness(log, { receipt: after[1]!.receipt!, jwks: await keys() });
      expect(result).toMatchObject({ verdict: 'verified', inversions: 0, admitted: 5 });
    },
    60_000,
  );
});
