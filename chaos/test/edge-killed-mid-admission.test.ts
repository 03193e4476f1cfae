import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../core/src/db/connect';
import { createSale } from '../../loadtest/journey/setup';
import { freePort } from '../../queue/test/redis-servers';
import { createKeyBuilder } from '../../queue/src/keys';
import { answers200, serviceProcess, type ServiceProcess } from '../processes';
import { startChaosStack, type ChaosStack } from '../stack';

/**
 * An edge process killed (SIGKILL) in the one window where a turn exists in Redis and not yet
 * in the core's ledger: it has claimed the buyer's slot and is waiting for the core to record
 * the turn, before signing an access token. A proxy in front of the core holds that one request
 * so the kill lands exactly there. What must hold: no token was issued, so nothing can be
 * bought on the lost turn; the slot stays counted, so the room never runs over its cap; the
 * buyer who comes back (to any edge) gets the same turn, recorded; a buyer who never comes back
 * costs the room that slot only until the turn's own end.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const TURN_SECONDS = 8;

interface Buyer {
  token: string;
  address: string;
  queueToken?: string;
}

let stack: ChaosStack;
let sql: Sql;
let redis: Redis;

/** Forwards everything to the core, except that it holds (never answers) turn records while `stall` is set. */
function coreProxy(coreUrl: string) {
  const target = new URL(coreUrl);
  let stall = false;
  let stalled: (() => void) | null = null;
  let sawStalled = new Promise<void>((resolve) => (stalled = resolve));
  const server: Server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    if (stall && incoming.method === 'POST' && /\/showtimes\/\d+\/turns$/.test(incoming.url ?? '')) {
      stalled?.();
      return; // the edge waits on this until it dies
    }
    const forwarded = request(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  return {
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    stallTurnRecords() {
      stall = true;
      sawStalled = new Promise<void>((resolve) => (stalled = resolve));
      return sawStalled;
    },
    release() {
      stall = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function demoBuyer(edgeUrl: string): Promise<Buyer> {
  const address = `10.77.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
  const response = await fetch(`${edgeUrl}/api/auth/demo`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: '{}',
  });
  expect(response.status).toBeLessThan(300);
  return { token: ((await response.json()) as { token: string }).token, address };
}

async function queueCall(edgeUrl: string, showtimeId: string, buyer: Buyer, method: 'POST' | 'GET') {
  const headers: Record<string, string> = { authorization: `Bearer ${buyer.token}`, 'x-forwarded-for': buyer.address };
  if (method === 'GET' && buyer.queueToken) headers['x-queue-token'] = buyer.queueToken;
  const response = await fetch(`${edgeUrl}/api/showtimes/${showtimeId}/queue`, {
    method,
    headers,
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json()) as {
    state?: string;
    queueToken?: string;
    accessToken?: string;
    error?: { code: string };
  };
  if (body.queueToken) buyer.queueToken = body.queueToken;
  return { status: response.status, body };
}

async function customerOf(buyer: Buyer): Promise<string> {
  const payload = JSON.parse(Buffer.from(buyer.token.split('.')[1]!, 'base64url').toString()) as { sub: string };
  return payload.sub;
}

async function ledgerTurns(showtimeId: string, customerId: string): Promise<number> {
  const [row] = await sql<
    { n: number }[]
  >`SELECT count(*)::int AS n FROM admission_turn WHERE showtime_id = ${Number(showtimeId)} AND customer_id = ${customerId}`;
  return row!.n;
}

/** Live sessions in the room (score = expiry), the figure the cap is about. */
async function activeNow(showtimeId: string): Promise<number> {
  return redis.zcount(createKeyBuilder('').forShowtime(showtimeId).active, Date.now(), '+inf');
}

/** A second edge whose core calls go through the proxy; killed mid-admission. */
async function killedMidAdmission(showtimeId: string, buyer: Buyer): Promise<void> {
  const proxy = coreProxy(stack.coreUrl);
  const proxyUrl = await proxy.listen();
  const port = await freePort();
  const doomed: ServiceProcess = serviceProcess({
    name: 'edge-doomed',
    entry: 'edge/src/main.ts',
    logDir: stack.logDir,
    env: { ...stack.edgeEnv, EDGE_PORT: String(port), CORE_URL: proxyUrl },
    ready: () => answers200(`http://127.0.0.1:${port}/healthz`),
  });
  await doomed.start();
  try {
    const doomedUrl = `http://127.0.0.1:${port}`;
    const recordAsked = proxy.stallTurnRecords();
    let asked = false;
    void recordAsked.then(() => (asked = true));
    // The join itself may claim (an empty room offers at once); otherwise a poll does. Neither
    // answer is awaited: the kill comes the moment the edge asks the core to record the turn.
    const joining = queueCall(doomedUrl, showtimeId, buyer, 'POST').catch(() => null);
    await Promise.race([recordAsked, joining]);
    for (let i = 0; i < 100 && !asked; i++) {
      if (buyer.queueToken) void queueCall(doomedUrl, showtimeId, buyer, 'GET').catch(() => null);
      await Promise.race([recordAsked, sleep(200)]);
    }
    expect(asked).toBe(true);
    await doomed.kill9();
  } finally {
    await doomed.stop();
    await proxy.close();
  }
}

beforeAll(async () => {
  stack = await startChaosStack();
  sql = connectDatabase(stack.databaseUrl, { max: 2, applicationName: 'edge-killed-test', sequentialScans: true });
  redis = new Redis(stack.redis.url, { maxRetriesPerRequest: 1 });
}, 180_000);

afterAll(async () => {
  redis?.disconnect();
  await sql?.end({ timeout: 2 });
  await stack?.close();
});

async function newSale(): Promise<string> {
  const { showtimeId } = await createSale({
    coreUrl: stack.coreUrl,
    edgeUrl: stack.edgeUrl,
    adminToken: stack.adminToken,
    serviceToken: stack.serviceToken,
    rows: 2,
    columns: 5,
    holdTtlMs: 60_000,
    capacity: 1,
    admitPerMinute: 6_000,
    sessionTtlSeconds: TURN_SECONDS,
  });
  return showtimeId;
}

describe('an edge killed between claiming a turn in Redis and recording it in the core', () => {
  it('issued no token, kept the slot counted, and gives the returning buyer the same turn, recorded', async () => {
    const showtimeId = await newSale();
    const buyer = await demoBuyer(stack.edgeUrl);
    const customerId = await customerOf(buyer);
    await killedMidAdmission(showtimeId, buyer);

    // The claim landed in Redis; the ledger never heard of it; nobody holds a token for it.
    expect(await activeNow(showtimeId)).toBe(1);
    expect(await ledgerTurns(showtimeId, customerId)).toBe(0);

    // The cap holds: a second buyer waits while the unrecorded turn occupies the only slot.
    const other = await demoBuyer(stack.edgeUrl);
    await queueCall(stack.edgeUrl, showtimeId, other, 'POST');
    for (let i = 0; i < 6; i++) {
      const poll = await queueCall(stack.edgeUrl, showtimeId, other, 'GET');
      expect(poll.body.state).not.toBe('admitted');
      expect(await activeNow(showtimeId)).toBeLessThanOrEqual(1);
      await sleep(250);
    }

    // The buyer comes back through the surviving edge: same turn, now recorded, and it buys.
    const back = await queueCall(stack.edgeUrl, showtimeId, buyer, 'POST');
    expect(back.body.state).toBe('admitted');
    expect(back.body.accessToken).toBeTruthy();
    expect(await ledgerTurns(showtimeId, customerId)).toBe(1);
    expect(await activeNow(showtimeId)).toBe(1);
    const hold = await fetch(`${stack.edgeUrl}/api/showtimes/${showtimeId}/holds`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${back.body.accessToken}`,
        'content-type': 'application/json',
        'x-forwarded-for': buyer.address,
      },
      body: JSON.stringify({ seats: ['A1'] }),
    });
    expect(hold.status).toBe(201);
    expect((await queueCall(stack.edgeUrl, showtimeId, other, 'GET')).body.state).not.toBe('admitted');
  }, 120_000);

  it('a buyer who never comes back costs the slot only until the turn ends; the room never exceeds its cap', async () => {
    const showtimeId = await newSale();
    const buyer = await demoBuyer(stack.edgeUrl);
    const customerId = await customerOf(buyer);
    await killedMidAdmission(showtimeId, buyer);
    // When the lost turn ends: the session the doomed edge claimed, as Redis holds it.
    const turnEndsAt = Number(await redis.zscore(createKeyBuilder('').forShowtime(showtimeId).active, customerId));
    expect(turnEndsAt).toBeGreaterThan(Date.now());
    expect(await ledgerTurns(showtimeId, customerId)).toBe(0);

    const next = await demoBuyer(stack.edgeUrl);
    await queueCall(stack.edgeUrl, showtimeId, next, 'POST');
    let admittedAt: number | null = null;
    let highest = 0;
    while (Date.now() < turnEndsAt + 20_000) {
      highest = Math.max(highest, await activeNow(showtimeId));
      const poll = await queueCall(stack.edgeUrl, showtimeId, next, 'GET');
      if (poll.body.state === 'admitted') {
        admittedAt = Date.now();
        break;
      }
      await sleep(200);
    }
    expect(highest).toBeLessThanOrEqual(1);
    expect(admittedAt).not.toBeNull();
    // Not before the lost turn's own end (Redis's clock and ours are the same machine's).
    expect(admittedAt!).toBeGreaterThanOrEqual(turnEndsAt - 50);
    expect(await ledgerTurns(showtimeId, await customerOf(next))).toBe(1);
    expect(await ledgerTurns(showtimeId, customerId)).toBe(0);
  }, 120_000);
});

describe("the fault suite's own checks can fail", () => {
  it('an event published but never applied by the edge is reported as lost', async () => {
    const { eventsNotAppliedByEdge } = await import('../checks/events');
    const showtimeId = Number(await newSale());
    // Every event so far was applied; then one the relay marks published that never reached the edge.
    for (let i = 0; i < 40 && (await eventsNotAppliedByEdge(sql, redis, showtimeId)).length > 0; i++) await sleep(250);
    expect(await eventsNotAppliedByEdge(sql, redis, showtimeId)).toEqual([]);
    const [row] = await sql<{ event_id: string }[]>`
      INSERT INTO outbox (type, showtime_id, payload, published_at)
      VALUES ('BookingConfirmed', ${showtimeId}, ${sql.json({ customerId: 'ghost' })}, now()) RETURNING event_id::text`;
    expect(await eventsNotAppliedByEdge(sql, redis, showtimeId)).toEqual([row!.event_id]);
  });
});
