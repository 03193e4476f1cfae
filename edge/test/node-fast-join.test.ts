/**
 * Joins on node:http (node-fast-join.ts) answer what the Hono route answers. Two edges on real
 * ports, one with the fast path and one sending joins through the app, each on a Redis
 * namespace of its own behind the same stub core, run the same scenarios (a good join and a
 * join again, the cookie identity, refused tokens, paused/closed/sold-out/scheduled/unknown
 * showtimes, an admission at join, proof of work, places per address, the flood limit, HTTPS
 * cookies); the answers are compared after masking what differs by nature (token signatures
 * and times, challenges, request ids). Also: a join makes exactly one Redis call.
 */
import { decodeJwt } from 'jose';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, fetchFrom } from '../../test/support/json-call';
import { testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { startPrivateRedis, type PrivateRedis } from '../../queue/test/redis-servers';
import { scripts } from '../../queue/src/scripts.gen';
import { parseEdgeConfig } from '../src/config';
import { startEdge, type RunningEdge } from '../src/node';
import { leadingZeroBits } from '../src/pow/pow-challenge';
import { solvePow, powHeaders } from '../src/pow/pow-solve-node';
import { createCustomerTokens } from '../src/tokens/customer-token';
import { EDGE_ADMIN_TOKEN, signCustomerToken, testTokenKeys } from './edge-harness';
import { serveRestartable, type RestartableHttp } from './private-servers';
import { createStubCore, type StubCore } from './stub-core';

const FLOOD_POINTS = 6;
// Each edge has a stub core of its own: a core shared by both would hand the second edge the
// turns the first recorded (restored with the room), and the runs would differ.
let cores: { fast: StubCore; app: StubCore };
let coreServers: RestartableHttp[] = [];
let fast: RunningEdge;
let viaApp: RunningEdge;

const edgeEnv = (coreUrl: string, redisUrl: string, keyPrefix: string) =>
  parseEdgeConfig({
    EDGE_PORT: '0',
    EDGE_HOST: '127.0.0.1',
    CORE_URL: coreUrl,
    ADMIN_TOKEN: EDGE_ADMIN_TOKEN,
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: keyPrefix,
    TRUST_PROXY_HOPS: '1',
    FLOOD_POINTS: String(FLOOD_POINTS),
    FLOOD_WINDOW_MS: '60000',
    ROOM_SYNC_MS: '60000',
    LOG_LEVEL: 'silent',
  });

beforeAll(async () => {
  const keys = await testTokenKeys();
  cores = { fast: createStubCore(keys), app: createStubCore(keys) };
  coreServers = [
    await serveRestartable((request) => cores.fast.app.fetch(request)),
    await serveRestartable((request) => cores.app.app.fetch(request)),
  ];
  fast = await startEdge(edgeEnv(coreServers[0]!.url, testRedisUrl(), testRedisNamespace('fast-join')), {
    tokenKeys: keys,
    consumeEvents: false,
  });
  viaApp = await startEdge(edgeEnv(coreServers[1]!.url, testRedisUrl(), testRedisNamespace('app-join')), {
    tokenKeys: keys,
    consumeEvents: false,
    fastJoin: false,
  });
});
afterAll(async () => {
  await fast?.close();
  await viaApp?.close();
  for (const server of coreServers) await server.stop();
});

const openRoom = {
  capacity: 1,
  admitPerMinute: 1,
  admitBurst: 1,
  sessionTtlMs: 60_000,
  offerWindowMs: 30_000,
  tickGapMs: 0,
};

interface Ids {
  fast: string;
  app: string;
}

/** The same showtime in both stub cores (ids differ); each edge restores its room on its first join. */
function showtime(settings: Record<string, unknown>, saleState = 'on_sale'): Ids {
  const [fastId, appId] = [cores.fast.addShowtime(saleState), cores.app.addShowtime(saleState)];
  cores.fast.setRoomSettings(fastId, settings);
  cores.app.setRoomSettings(appId, settings);
  return { fast: String(fastId), app: String(appId) };
}

let addressSeq = 0;
/** A client address of its own (the edges trust one proxy hop), so scenarios do not share flood counts. */
const newAddress = () => `203.0.113.${++addressSeq}`;

interface Step {
  path?: string;
  token?: string;
  headers?: Record<string, string>;
  /** Builds the headers from the previous answer (proof of work). */
  after?: (previous: Answer) => Record<string, string>;
}

interface Answer {
  status: number;
  json: any;
  headers: Record<string, string | null>;
  cookies: string[];
}

/** Masks what differs by nature between two runs: signatures and times in tokens, challenges, generated ids, jitter. */
function normalise(result: Awaited<ReturnType<typeof callJson>>, showtimeId: string): Answer {
  const json = result.json ? JSON.parse(JSON.stringify(result.json).replaceAll(showtimeId, ':id')) : null;
  for (const field of ['queueToken', 'accessToken']) {
    if (json?.[field]) {
      const {
        iat: _iat,
        exp,
        jti: _jti,
        ...claims
      } = JSON.parse(JSON.stringify(decodeJwt(json[field])).replaceAll(showtimeId, ':id'));
      json[field] = { ...claims, expIn: Math.round(((exp ?? 0) * 1000 - Date.now()) / 60_000) };
    }
  }
  if (typeof json?.receipt === 'string') {
    // The receipt's claims, times masked (both paths must sign the same place, rank and stage).
    const {
      iat: _iat,
      joinedAtMs: _joinedAt,
      ...claims
    } = JSON.parse(JSON.stringify(decodeJwt(json.receipt)).replaceAll(showtimeId, ':id'));
    json.receipt = claims;
  }
  if (json?.sessionExpiresAt) json.sessionExpiresAt = 'iso';
  // Jittered, or moving with the clock between the two runs.
  for (const field of ['pollAfterMs', 'etaSeconds']) if (typeof json?.[field] === 'number') json[field] = 'number';
  if (typeof json?.queueId === 'string') json.queueId = 'string'; // derived from the showtime id
  if (typeof json?.challenge === 'string') json.challenge = json.challenge.split('.').slice(0, 3).join('.');
  const cookies = result.headers.getSetCookie().map((cookie) =>
    cookie
      .replace(showtimeId, ':id')
      .replace(/=[^;]*/, '=<token>')
      .replace(/Max-Age=(\d+)/, (_, s) => `Max-Age~${Math.round(Number(s) / 60)}`),
  );
  const headers: Record<string, string | null> = {};
  for (const name of ['content-type', 'cache-control', 'retry-after']) headers[name] = result.headers.get(name);
  headers['x-request-id'] = result.headers.get('x-request-id') ? 'present' : null;
  return { status: result.status, json, headers, cookies };
}

async function play(edge: RunningEdge, showtimeId: string, steps: Step[]): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const step of steps) {
    const headers = { ...step.headers, ...(step.after ? step.after(answers.at(-1)!) : {}) };
    const path = (step.path ?? '/api/showtimes/:id/queue').replace(':id', showtimeId);
    const result = await callJson(fetchFrom(edge.url), 'POST', path, { token: step.token, headers });
    answers.push(normalise(result, showtimeId));
  }
  return answers;
}

const fastJoins = async (edge: RunningEdge) =>
  Number(
    /edge_queue_joins_fast_total (\d+)/.exec(
      await (await fetch(`${edge.url}/metrics`, { headers: { authorization: `Bearer ${EDGE_ADMIN_TOKEN}` } })).text(),
    )?.[1] ?? 0,
  );

/** Runs a scenario through both edges (same showtime id, each in its own Redis) and returns both transcripts. */
async function compare(ids: Ids, steps: (address: string) => Step[]) {
  const address = newAddress();
  const before = [await fastJoins(fast), await fastJoins(viaApp)];
  const viaFast = await play(fast, ids.fast, steps(address));
  const viaHono = await play(viaApp, ids.app, steps(address));
  expect([await fastJoins(fast), await fastJoins(viaApp)]).toEqual([before[0]! + steps(address).length, before[1]]);
  expect(viaFast).toEqual(viaHono);
  return viaFast;
}

/** A nonce that does not solve the challenge at difficulty 4 (a fixed one would, one time in 16). */
function wrongNonce(challenge: string): string {
  for (let n = 0; ; n++)
    if (leadingZeroBits(createHash('sha256').update(`${challenge}:w${n}`).digest()) < 4) return `w${n}`;
}

const from = (address: string, extra: Record<string, string> = {}) => ({ 'x-forwarded-for': address, ...extra });

describe('joins on node:http answer as the Hono route does', () => {
  it('a join, a join again, and the customer cookie instead of the header', async () => {
    const id = showtime(openRoom);
    const [a, b, c] = [
      await signCustomerToken('fj-a'),
      await signCustomerToken('fj-b'),
      await signCustomerToken('fj-c'),
    ];
    const answers = await compare(id, (ip) => [
      { token: a, headers: from(ip, { 'x-request-id': 'fj-1' }) },
      { token: b, headers: from(ip) },
      { token: b, headers: from(ip) },
      { headers: from(ip, { cookie: `other=1; wr_customer=${c}` }) },
    ]);
    expect(answers.map((x) => x.status)).toEqual([200, 200, 200, 200]);
    expect(answers[1]!.json).toMatchObject({ state: 'waiting', queueToken: { sub: 'fj-b', aud: 'showtime::id' } });
    expect(answers[1]!.cookies).toEqual(['wr_q_:id=<token>; Max-Age~360; Path=/; HttpOnly; SameSite=Lax']);
    expect(answers[1]!.headers['cache-control']).toBe('no-store');
  });

  it('refused customer tokens: missing, junk, another key, expired', async () => {
    const id = showtime(openRoom);
    const expired = await createCustomerTokens({
      keys: await testTokenKeys(),
      demoLogin: true,
      idp: null,
      clockToleranceMs: 0,
      demoTtlMs: 1_000,
      now: () => Date.now() - 3_600_000,
    }).signDemo('fj-old');
    const good = await signCustomerToken('fj-forged');
    const forged = `${good.slice(0, -6)}AAAAAA`;
    const answers = await compare(id, (ip) => [
      { headers: from(ip) },
      { token: 'not-a-token', headers: from(ip) },
      { token: forged, headers: from(ip) },
      { token: expired, headers: from(ip) },
      { headers: from(ip, { authorization: 'Basic abc', cookie: 'wr_customer=' }) },
    ]);
    expect(answers.map((x) => [x.status, x.json.error.code])).toEqual([
      [401, 'MISSING_TOKEN'],
      [401, 'INVALID_TOKEN'],
      [401, 'INVALID_TOKEN'],
      [401, 'TOKEN_EXPIRED'],
      [401, 'MISSING_TOKEN'],
    ]);
  });

  it('paused, closed, sold-out, scheduled and unknown showtimes', async () => {
    const token = await signCustomerToken('fj-states');
    const states: [string, string][] = [
      ['paused', 'on_sale'],
      ['closed', 'closed'],
      ['sold_out', 'sold_out'],
      ['scheduled', 'opening_soon'],
    ];
    for (const [state, saleState] of states) {
      const id = showtime({ ...openRoom, state }, saleState);
      const [answer] = await compare(id, (ip) => [{ token, headers: from(ip) }]);
      expect(answer!.status, state).toBe(200);
    }
    const [unknown] = await compare({ fast: '99999999999', app: '99999999999' }, (ip) => [
      { token, headers: from(ip) },
    ]);
    expect([unknown!.status, unknown!.json.error.code]).toEqual([404, 'SHOWTIME_NOT_FOUND']);
  });

  it('an admission at join: access token and its cookie, over HTTPS (a proxy said so) with Secure cookies', async () => {
    const id = showtime({ ...openRoom, capacity: 5, admitPerMinute: 60_000, admitBurst: 1_000 });
    const token = await signCustomerToken('fj-admitted');
    const [answer] = await compare(id, (ip) => [{ token, headers: from(ip, { 'x-forwarded-proto': 'https' }) }]);
    expect(answer!.json.state).toBe('admitted');
    expect(answer!.json.accessToken).toMatchObject({ sub: 'fj-admitted' });
    expect(answer!.cookies).toHaveLength(2);
    expect(answer!.cookies.every((cookie) => cookie.includes('; Secure'))).toBe(true);
  });

  it('proof of work: 428 with a challenge, solved, reused, forged', async () => {
    const ids = showtime({ ...openRoom, powDifficulty: 4 });
    const [a, b] = [await signCustomerToken('fj-pow-a'), await signCustomerToken('fj-pow-b')];
    // The challenge is issued by each edge: solve what that edge answered (kept unmasked here).
    const solved = new Map<RunningEdge, Record<string, string>>();
    const idOf = (edge: RunningEdge) => (edge === fast ? ids.fast : ids.app);
    for (const edge of [fast, viaApp]) {
      const id = idOf(edge);
      // The room is not in this edge's Redis before its first join: that join restores it and
      // is asked for work like every other.
      const zero = await callJson(fetchFrom(edge.url), 'POST', `/api/showtimes/${id}/queue`, {
        token: await signCustomerToken('fj-pow-0'),
        headers: from('198.51.100.6'),
      });
      expect([zero.status, zero.json.difficulty]).toEqual([428, 4]);
      const zeroSolved = powHeaders(zero.json.challenge, solvePow(zero.json.challenge, 4, 1 << 16).nonce);
      expect(
        (
          await callJson(fetchFrom(edge.url), 'POST', `/api/showtimes/${id}/queue`, {
            token: await signCustomerToken('fj-pow-0'),
            headers: from('198.51.100.6', zeroSolved),
          })
        ).status,
      ).toBe(200);
      const first = await callJson(fetchFrom(edge.url), 'POST', `/api/showtimes/${id}/queue`, {
        token: a,
        headers: from('198.51.100.7'),
      });
      expect([first.status, first.json.difficulty]).toEqual([428, 4]);
      const { nonce } = solvePow(first.json.challenge, first.json.difficulty, 1 << 16);
      solved.set(edge, powHeaders(first.json.challenge, nonce));
    }
    const play2 = async (edge: RunningEdge) => {
      const headers = solved.get(edge)!;
      const id = idOf(edge);
      const out = [];
      // A challenge counts only for the address and customer it was issued to (a, from .7).
      for (const step of [
        { token: a, headers },
        { token: a, headers },
        { token: b, headers },
        { token: a, headers: { ...headers, 'x-pow-nonce': wrongNonce(headers['x-pow-challenge']!) } },
        { token: b, headers: { 'x-pow-challenge': 'v1.junk', 'x-pow-nonce': '1' } },
      ]) {
        out.push(
          normalise(
            await callJson(fetchFrom(edge.url), 'POST', `/api/showtimes/${id}/queue`, {
              token: step.token,
              headers: from('198.51.100.7', step.headers),
            }),
            id,
          ),
        );
      }
      return out;
    };
    const [viaFast, viaHono] = [await play2(fast), await play2(viaApp)];
    expect(viaFast).toEqual(viaHono);
    expect(viaFast.map((x) => [x.status, x.json.error?.code ?? x.json.state])).toEqual([
      [200, 'waiting'],
      [428, 'POW_REUSED'],
      [428, 'POW_INVALID'],
      [428, 'POW_INVALID'],
      [428, 'POW_INVALID'],
    ]);
    expect(viaFast[1]!.headers['cache-control']).toBe('no-store');
    const [missing] = await compare(ids, (ip) => [{ token: b, headers: from(ip) }]);
    expect([missing!.status, missing!.json.error.code, missing!.json.difficulty]).toEqual([428, 'POW_REQUIRED', 4]);
  });

  it('places per address (403) and the flood limit (429 with Retry-After)', async () => {
    const id = showtime({ ...openRoom, placesPerAddress: 2 });
    const tokens = await Promise.all([1, 2, 3, 4, 5, 6, 7].map((i) => signCustomerToken(`fj-addr-${i}`)));
    const answers = await compare(id, (ip) => tokens.map((token) => ({ token, headers: from(ip) })));
    expect(answers.map((x) => x.status)).toEqual([200, 200, 403, 403, 403, 403, 429]);
    expect(answers[2]!.json.error.code).toBe('ADDRESS_PLACE_LIMIT');
    expect(answers[6]!.json.error.code).toBe('RATE_LIMITED');
    expect(Number(answers[6]!.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('the cost of a join', () => {
  let redis: PrivateRedis;
  let edge: RunningEdge;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    edge = await startEdge(edgeEnv(coreServers[0]!.url, `redis://127.0.0.1:${redis.ports[0]}`, ''), {
      tokenKeys: await testTokenKeys(),
      consumeEvents: false,
    });
  });
  afterAll(async () => {
    await edge?.close();
    await redis?.stop();
  });

  it('is exactly one Redis command (the join script); flood counts travel in batches, not per join', async () => {
    const id = showtime({ ...openRoom, placesPerAddress: 1_000 }).fast;
    const tokens = await Promise.all(Array.from({ length: 60 }, (_, i) => signCustomerToken(`fj-cost-${i}`)));
    const join = (token: string, i: number) =>
      callJson(fetchFrom(edge.url), 'POST', `/api/showtimes/${id}/queue`, { token, headers: from(`192.0.2.${i}`) });
    expect((await join(tokens[0]!, 0)).status).toBe(200); // restores the room, loads the scripts, caches its settings, starts a snapshot
    await new Promise((resolve) => setTimeout(resolve, 200)); // the first join's flood count is flushed
    expect((await join(tokens[1]!, 1)).json.state).toBe('waiting'); // with the snapshot: loads the script for the buyer's place only
    await new Promise((resolve) => setTimeout(resolve, 200));

    // redis-cli's MONITOR: every command the server runs, one line each; a script's own calls
    // are marked [0 lua] and do not count (only what clients sent does).
    const monitor = spawn('redis-cli', ['-p', String(redis.ports[0]), 'monitor']);
    let output = '';
    monitor.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise((resolve) => monitor.stdout.once('data', resolve)); // "OK"
    const startedAt = Date.now();
    const answers = await Promise.all(tokens.slice(2).map((token, i) => join(token, i + 2)));
    expect(answers.every((a) => a.status === 200 && a.json.state === 'waiting')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    monitor.kill();
    const seen = output
      .split('\n')
      .filter((line) => /^\d+\.\d+ \[\d+ [\d.:]+\]/.test(line))
      .map((line) => [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!));

    const elapsedSeconds = (Date.now() - startedAt) / 1000;
    const floodBatches = seen.filter((args) => args.some((arg) => arg.includes('wr:edge:flood:')));
    const joins = seen.filter((args) => args.some((arg) => arg.startsWith('fj-cost-')));
    const rest = seen.filter((args) => !floodBatches.includes(args) && !joins.includes(args));
    // One command per join, carrying that buyer: the join script.
    expect(joins).toHaveLength(answers.length);
    expect(joins.every((args) => args[0]!.toLowerCase() === 'evalsha')).toBe(true);
    // With a fresh snapshot in the process, the script that answers with the buyer's place only.
    expect(joins.every((args) => args[1] === scripts.enter.sha1)).toBe(true);
    for (let i = 2; i < tokens.length; i++)
      expect(joins.filter((args) => args.includes(`fj-cost-${i}`))).toHaveLength(1);
    // Not per join: the flood counts go in one script call per 50 ms flush whatever the number of
    // joins, and the room's proof-of-work settings are read at most once a second per showtime.
    expect(floodBatches.length).toBeGreaterThan(0);
    expect(floodBatches.length).toBeLessThanOrEqual(Math.ceil((elapsedSeconds * 1000) / 50) + 1);
    expect(rest.length).toBeLessThanOrEqual(Math.ceil(elapsedSeconds) + 1);
  });
});
