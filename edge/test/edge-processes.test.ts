/**
 * EDGE_PROCESSES=3 on the real stack: the edge entry (edge/src/main.ts) as a child process,
 * primary of three edge processes on one port, against the core on this run's PostgreSQL and
 * the run's Redis. 500 buyers, each from an address of its own, join together and poll for
 * 70 s (then those still waiting leave); those admitted leave at once, the first ones after spending their purchase bucket on fresh
 * connections (so their requests land on different processes). The room's cap is sampled from
 * Redis every 10 ms and counted on the buyers' side; each buyer's bucket grants exactly its
 * budget whichever processes served it. Meanwhile a worker is killed outright and replaced; at
 * the end SIGTERM stops every worker.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { Sql } from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { answers200, REPO_ROOT } from '../../chaos/processes';
import { createCoreHarness, type CoreHarness } from '../../core/test/core-harness';
import { parseCoreConfig } from '../../core/src/config';
import { connectDatabase } from '../../core/src/db/connect';
import { startCore, type RunningCore } from '../../core/src/node';
import { generateSigningJwk, loadTokenKeys } from '../../lib/token-keys';
import { createIoredisStore, createRoomEngine } from '../../queue/src/index';
import { freePort } from '../../queue/test/redis-servers';
import { testDatabaseUrl, testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { callJson, fetchFrom } from '../../test/support/json-call';
import { createCustomerTokens } from '../src/tokens/customer-token';

const ADMIN = 'edge-processes-admin-token-0123';
const SERVICE = 'edge-processes-service-token-0123';
const BUYERS = 500;
const CAPACITY = 10;
/** How long the line runs: the buyers still waiting then leave (a 2-core machine admits some hundreds in that time). */
const SALE_MS = 70_000;
const AT_LEAST_ADMITTED = 60;
const BUCKET_BUYERS = 12;
const PER_CUSTOMER = 5; // the room's purchase bucket per customer (set below), refilled once a minute
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let sql: Sql;
let h: CoreHarness;
let redis: Redis;
let core: RunningCore;
let edge: ChildProcess | null = null;
let edgeUrl: string;
let edgePid = 0;
let logDir: string;
let edgeLog = '';
let keyPrefix: string;
let signer: ReturnType<typeof createCustomerTokens>;

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 6, applicationName: 'test-edge-processes' });
  h = await createCoreHarness(sql);
  keyPrefix = testRedisNamespace('procs');
  const jwk = await generateSigningJwk('procs-1');
  const tokenKeys = await loadTokenKeys({ signingJwk: jwk });
  signer = createCustomerTokens({ keys: tokenKeys, demoLogin: true, idp: null, clockToleranceMs: 5_000 });
  redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
  core = await startCore(
    parseCoreConfig({
      CORE_PORT: '0',
      ADMIN_TOKEN: ADMIN,
      CORE_SERVICE_TOKEN: SERVICE,
      JOBS_ENABLED: 'false',
      LOG_LEVEL: 'silent',
      REDIS_KEY_PREFIX: keyPrefix,
    }),
    { sql, tokenKeys, admissionStore: createIoredisStore(redis) },
  );
  const port = await freePort();
  edgeUrl = `http://127.0.0.1:${port}`;
  logDir = mkdtempSync(join(tmpdir(), 'wr-edge-procs-'));
  edge = spawn(process.execPath, ['--import', 'tsx', 'edge/src/main.ts'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      NODE_ENV: 'development',
      EDGE_PROCESSES: '3',
      EDGE_PORT: String(port),
      EDGE_HOST: '127.0.0.1',
      CORE_URL: core.url,
      CORE_SERVICE_TOKEN: SERVICE,
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: keyPrefix,
      ADMIN_TOKEN: ADMIN,
      TOKEN_SIGNING_KEY: JSON.stringify(jwk),
      DEMO_LOGIN: '1',
      TRUST_PROXY: '1',
      FLOOD_POINTS: '100000',
      SNAPSHOT_TTL_MS: '100',
      ROOM_SYNC_MS: '500',
      CORE_TIMEOUT_MS: '5000',
      LOG_LEVEL: 'warn',
    },
  });
  edgePid = edge.pid!;
  edge.stdout!.on('data', (chunk: Buffer) => (edgeLog += chunk.toString()));
  edge.stderr!.on('data', (chunk: Buffer) => (edgeLog += chunk.toString()));
  // The primary says so once all three workers listen.
  for (let waited = 0; !edgeLog.includes('with 3 processes'); waited += 100) {
    if (waited > 120_000 || edge.exitCode !== null) throw new Error(`the edge did not start:\n${edgeLog}`);
    await sleep(100);
  }
  expect(await answers200(`${edgeUrl}/healthz`)).toBe(true);
});

afterAll(async () => {
  if (edge && edge.exitCode === null) edge.kill('SIGKILL');
  await core?.close();
  redis?.disconnect();
  await sql?.end();
  if (logDir) rmSync(logDir, { recursive: true, force: true });
});

/** Child processes of `pid`, from /proc (the workers of the primary). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** CPU time a process has used (user + system, clock ticks), from /proc. */
function cpuTicks(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** One request on a connection of its own (no keep-alive), so the kernel may hand it to any worker. */
const lastBodies: string[] = [];
function freshRequest(method: string, path: string, headers: Record<string, string>, body?: string): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest(
      `${edgeUrl}${path}`,
      {
        method,
        agent: false,
        headers: {
          ...headers,
          connection: 'close',
          ...(body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          if (lastBodies.length < 6) lastBodies.push(`${res.statusCode} ${text.slice(0, 200)}`);
          resolve(res.statusCode ?? 0);
        });
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

it('three edge processes keep the room cap and the purchase buckets with 500 concurrent buyers; a killed worker is replaced', async () => {
  const workers = childrenOf(edgePid);
  expect(workers).toHaveLength(3);
  const { showtimeId } = await h.createShowtime({ layout: { rows: 4, columns: 10 } });
  const room = await callJson(fetchFrom(core.url), 'PUT', `/admin/showtimes/${showtimeId}/room`, {
    headers: { authorization: `Bearer ${ADMIN}`, 'x-service-token': SERVICE },
    body: {
      capacity: CAPACITY,
      admitPerMinute: 60_000,
      sessionTtlSeconds: 120,
      customerBucketCapacity: PER_CUSTOMER,
      customerRefillPerMinute: 1,
    },
  });
  expect(room.status).toBe(200);
  const engine = createRoomEngine({ store: createIoredisStore(redis), keyPrefix });
  // The edge's room sync may have copied the room with its first settings already: buyers come
  // once Redis holds the capacity set here (a room that admitted at its default capacity first
  // would measure the operator's change, not the cap).
  for (let waited = 0; ; waited += 100) {
    const settings = await engine.getSettings(String(showtimeId));
    if (
      settings.ok &&
      settings.settings.capacity === CAPACITY &&
      settings.settings.customerBucketCapacity === PER_CUSTOMER
    )
      break;
    if (waited > 30_000) throw new Error('the room never reached Redis with its capacity');
    await sleep(100);
  }

  // The cap, from the room itself every 10 ms, and on the buyers' side (admitted until they send their leave).
  let sampling = true;
  let highest = 0;
  let samples = 0;
  const sampler = (async () => {
    while (sampling) {
      const stats = await engine.stats(String(showtimeId)).catch(() => null);
      if (stats?.ok) (highest = Math.max(highest, stats.active + stats.offered)), samples++;
      await sleep(10);
    }
  })();
  let holding = 0;
  let mostHolding = 0;

  const cpuBefore = workers.map(cpuTicks);
  const tokens = await Promise.all(Array.from({ length: BUYERS }, (_, i) => signer.signDemo(`procs-${i}`)));
  const outcomes: { admitted: boolean; bucket: number[] }[] = [];
  let admittedCount = 0;
  let killed = false;
  let bucketsDone = 0;

  async function buyer(i: number) {
    const address = `10.${(i >> 8) & 255}.${i & 255}.7`;
    const headers = { authorization: `Bearer ${tokens[i]}`, 'x-forwarded-for': address };
    const api = (method: string, path: string, init: Parameters<typeof callJson>[3] = {}) =>
      callJson(fetchFrom(edgeUrl), method, path, { ...init, headers: { ...headers, ...init.headers } }).catch(
        () => null,
      );
    let answer = await api('POST', `/api/showtimes/${showtimeId}/queue`);
    for (let attempt = 0; attempt < 20 && answer?.status !== 200; attempt++)
      answer = (await sleep(200), await api('POST', `/api/showtimes/${showtimeId}/queue`));
    expect(answer?.status).toBe(200);
    let queueToken = answer!.json.queueToken as string;
    while (answer?.json?.state !== 'admitted' && Date.now() < saleEndsAt) {
      await sleep(Math.min(1_000, Math.max(100, answer?.json?.pollAfterMs ?? 200)) * (0.5 + Math.random()));
      const polled = await api('GET', `/api/showtimes/${showtimeId}/queue`, {
        headers: { 'x-queue-token': queueToken },
      });
      if (polled?.status === 200) {
        answer = polled;
        queueToken = (polled.json.queueToken as string | undefined) ?? queueToken;
      }
    }
    if (answer?.json?.state !== 'admitted') {
      for (let attempt = 0; attempt < 10; attempt++)
        if ((await api('DELETE', `/api/showtimes/${showtimeId}/queue`))?.status === 200) break;
      outcomes.push({ admitted: false, bucket: [] });
      return;
    }
    holding++;
    mostHolding = Math.max(mostHolding, holding);
    const order = ++admittedCount;
    if (process.env.DEBUG_PROCS && order % 50 === 0) console.error(`${order} admitted, most at once ${highest}`);
    if (order >= 30 && bucketsDone === BUCKET_BUYERS && !killed) {
      killed = true;
      process.kill(workers[0]!, 'SIGKILL'); // a worker dies mid-sale: its connections drop, buyers retry
    }
    const bucket: number[] = [];
    if (order <= BUCKET_BUYERS) {
      const access = { authorization: `Bearer ${answer!.json.accessToken}`, 'x-forwarded-for': address };
      const body = JSON.stringify({ seats: ['ZZ99'] });
      for (let n = 0; n < PER_CUSTOMER + 4; n++)
        bucket.push(await freshRequest('POST', `/api/showtimes/${showtimeId}/holds`, access, body));
      bucketsDone++;
    }
    holding--;
    for (let attempt = 0; attempt < 10; attempt++)
      if ((await api('DELETE', `/api/showtimes/${showtimeId}/queue`))?.status === 200) break;
    outcomes.push({ admitted: true, bucket });
  }

  const saleEndsAt = Date.now() + SALE_MS;
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const running = Array.from({ length: BUYERS }, (_, i) => gate.then(() => buyer(i)));
  open();
  await Promise.all(running);
  sampling = false;
  await sampler;

  expect(outcomes).toHaveLength(BUYERS);
  const admittedTotal = outcomes.filter((o) => o.admitted).length;
  if (process.env.DEBUG_PROCS)
    console.error(
      `${admittedTotal} admitted, most at once ${highest} (room) ${mostHolding} (buyers), ${samples} samples`,
    );
  expect(admittedTotal).toBeGreaterThanOrEqual(AT_LEAST_ADMITTED);
  expect(samples).toBeGreaterThan(100);
  expect(highest).toBeLessThanOrEqual(CAPACITY);
  expect(mostHolding).toBeLessThanOrEqual(CAPACITY);
  expect(highest).toBe(CAPACITY); // the room was full at times: the cap was what held it

  // Each of the first buyers: exactly the bucket's budget granted, the rest 429, whichever process answered.
  const buckets = outcomes.filter((o) => o.bucket.length > 0).map((o) => o.bucket);
  expect(buckets).toHaveLength(BUCKET_BUYERS);
  for (const statuses of buckets) {
    expect(
      statuses.filter((s) => s === 429),
      JSON.stringify(statuses) + lastBodies.join(' | '),
    ).toHaveLength(4);
    expect(statuses.filter((s) => s !== 429 && s !== 0).length).toBe(PER_CUSTOMER);
  }

  // Every process served (CPU time went up in each survivor), and the killed one was replaced.
  expect(killed).toBe(true);
  for (let waited = 0; childrenOf(edgePid).length < 3 && waited < 60_000; waited += 200) await sleep(200);
  const after = childrenOf(edgePid);
  expect(after).toHaveLength(3);
  expect(after).not.toContain(workers[0]);
  workers.slice(1).forEach((pid, i) => expect(cpuTicks(pid) - cpuBefore[i + 1]!, `worker ${pid}`).toBeGreaterThan(20));

  expect(edgeLog).toContain('edge process died; starting another');

  // SIGTERM to the primary stops every worker, then the primary.
  const exited = new Promise((resolve) => edge!.once('exit', resolve));
  edge!.kill('SIGTERM');
  await exited;
  for (const pid of after) expect(() => process.kill(pid, 0)).toThrow();
}, 420_000);
