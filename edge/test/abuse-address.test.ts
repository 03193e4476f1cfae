/**
 * Abuse matrix, client addresses, on a real port (node:http) with the run's Redis: behind
 * one trusted proxy the edge keys every per-address limit on the entry that proxy appended
 * to X-Forwarded-For, never on what the client wrote to the left of it. So a spoofed
 * leftmost entry neither escapes the join flood limit nor the console lockout, nor locks
 * out somebody else; and a line takes only so many places from one address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { callJson, fetchFrom } from '../../test/support/json-call';
import { parseEdgeConfig } from '../src/config';
import { startEdge, type RunningEdge } from '../src/node';
import { EDGE_ADMIN_TOKEN, fastRoom, signCustomerToken, testTokenKeys } from './edge-harness';
import { serveRestartable, type RestartableHttp } from './private-servers';
import { createStubCore, type StubCore } from './stub-core';

let core: StubCore;
let coreServer: RestartableHttp;
let edge: RunningEdge;
/** Trusts only proxies at 10.0.0.0/8: this test's requests (from loopback) are untrusted peers. */
let untrusting: RunningEdge;
/** Limits IPv6 per full address (IPV6_LIMIT_PREFIX=128), to show spellings are one address. */
let perAddress: RunningEdge;
const JOINS_PER_SECOND = 20;

beforeAll(async () => {
  const keys = await testTokenKeys();
  core = createStubCore(keys);
  coreServer = await serveRestartable((request) => core.app.fetch(request));
  edge = await startEdge(
    parseEdgeConfig({
      EDGE_PORT: '0',
      EDGE_HOST: '127.0.0.1',
      CORE_URL: coreServer.url,
      ADMIN_TOKEN: EDGE_ADMIN_TOKEN,
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: testRedisNamespace('abuse-address'),
      TRUST_PROXY_CIDRS: '127.0.0.0/8',
      TRUST_PROXY_HOPS: '1',
      FLOOD_POINTS: String(JOINS_PER_SECOND),
      FLOOD_WINDOW_MS: '1000',
      LOG_LEVEL: 'silent',
    }),
    { tokenKeys: keys, consumeEvents: false },
  );
  const variant = (extra: Record<string, string>, namespace: string) =>
    startEdge(
      parseEdgeConfig({
        EDGE_PORT: '0',
        EDGE_HOST: '127.0.0.1',
        CORE_URL: coreServer.url,
        ADMIN_TOKEN: EDGE_ADMIN_TOKEN,
        REDIS_URL: testRedisUrl(),
        REDIS_KEY_PREFIX: testRedisNamespace(namespace),
        LOG_LEVEL: 'silent',
        ...extra,
      }),
      { tokenKeys: keys, consumeEvents: false },
    );
  untrusting = await variant({ TRUST_PROXY_CIDRS: '10.0.0.0/8', TRUST_PROXY_HOPS: '1' }, 'abuse-untrusted');
  perAddress = await variant({ TRUST_PROXY_CIDRS: '127.0.0.1', IPV6_LIMIT_PREFIX: '128' }, 'abuse-per-address');
});
afterAll(async () => {
  await untrusting?.close();
  await perAddress?.close();
  await edge?.close();
  await coreServer?.stop();
});

const api = (method: string, path: string, init?: Parameters<typeof callJson>[3]) =>
  callJson(fetchFrom(edge.url), method, path, init);
/** What our proxy forwards: whatever the client wrote, then the address it saw. */
const via = (
  realAddress: string,
  clientWrote = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.1`,
) => ({
  'x-forwarded-for': `${clientWrote}, ${realAddress}`,
});

async function openRoom(settings: object = {}, on: RunningEdge = edge) {
  const showtimeId = core.addShowtime();
  const configured = await on.app.rooms.engine.configure(String(showtimeId), {
    ...fastRoom,
    state: 'paused',
    ...settings,
  });
  expect(configured.ok).toBe(true);
  return showtimeId;
}

describe('addresses behind a trusted proxy', () => {
  it('counts a burst of joins with spoofed leftmost entries against the one real address', async () => {
    const showtimeId = await openRoom({ placesPerAddress: 1_000 });
    const tokens = await Promise.all(
      Array.from({ length: 100 }, (_, i) => signCustomerToken(`burst-${showtimeId}-${i}`)),
    );
    const results = await Promise.all(
      tokens.map((token) => api('POST', `/api/showtimes/${showtimeId}/queue`, { token, headers: via('198.51.100.1') })),
    );
    const passed = results.filter((r) => r.status === 200).length;
    expect(passed).toBeGreaterThan(0);
    expect(passed).toBeLessThanOrEqual(2 * JOINS_PER_SECOND); // at most two windows if the burst straddles one
    expect(results.filter((r) => r.status === 429).length).toBe(100 - passed);
  });

  it('locks out the real address however the leftmost entry changes, and never the address it names', async () => {
    // redirect: 'manual', so a successful sign-in shows as its 303.
    const signIn = (token: string, headers: Record<string, string>) =>
      fetch(`${edge.url}/admin/login`, {
        method: 'POST',
        redirect: 'manual',
        body: new URLSearchParams({ token }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      });
    // The attacker (real address 203.0.113.66) writes the operator's address on the left.
    for (let i = 0; i < 10; i++)
      expect((await signIn(`guess-${i}-0123456789abcdef`, via('203.0.113.66', '198.51.100.5'))).status).toBe(401);
    expect((await signIn(EDGE_ADMIN_TOKEN, via('203.0.113.66'))).status).toBe(429);
    expect((await signIn(EDGE_ADMIN_TOKEN, via('203.0.113.66', '192.0.2.1'))).status).toBe(429);
    // The operator, whose address the attacker wrote, signs in as usual.
    expect((await signIn(EDGE_ADMIN_TOKEN, via('198.51.100.5'))).status).toBe(303);
  });

  it('caps the places one address takes in a line; other addresses still join', async () => {
    const showtimeId = await openRoom({ placesPerAddress: 3 });
    const join = async (customerId: string, address: string) =>
      api('POST', `/api/showtimes/${showtimeId}/queue`, {
        token: await signCustomerToken(customerId),
        headers: via(address),
      });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await join(`cap-${showtimeId}-${i}`, '198.51.100.20')).status);
    expect(statuses).toEqual([200, 200, 200, 403, 403]);
    expect((await join(`cap-${showtimeId}-0`, '198.51.100.20')).status).toBe(200); // a re-join keeps its place
    const refused = await join(`cap-${showtimeId}-9`, '198.51.100.20');
    expect(refused.json.error.code).toBe('ADDRESS_PLACE_LIMIT');
    expect((await join(`cap-${showtimeId}-10`, '198.51.100.21')).status).toBe(200);
  });
});

describe('addresses: who is believed, and how addresses are grouped', () => {
  const joinOn = async (on: RunningEdge, showtimeId: number, customerId: string, headers: Record<string, string>) =>
    callJson(fetchFrom(on.url), 'POST', `/api/showtimes/${showtimeId}/queue`, {
      token: await signCustomerToken(customerId),
      headers,
    });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy, whatever it names', async () => {
    const showtimeId = await openRoom({ placesPerAddress: 1 }, untrusting);
    // A client reaching the edge directly names two other addresses: both joins count against
    // its own socket address, so the second is refused.
    const first = await joinOn(untrusting, showtimeId, `direct-${showtimeId}-1`, {
      'x-forwarded-for': '198.51.100.61',
    });
    const second = await joinOn(untrusting, showtimeId, `direct-${showtimeId}-2`, {
      'x-forwarded-for': '198.51.100.62',
    });
    expect([first.status, second.status]).toEqual([200, 403]);
  });

  it('locks out the untrusted peer itself, not the address its X-Forwarded-For names', async () => {
    const metrics = (token: string, named: string) =>
      fetch(`${untrusting.url}/metrics`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': named } });
    // The attacker names the operator's address on every guess.
    for (let i = 0; i < 10; i++)
      expect((await metrics(`guess-${i}-0123456789abcdef`, '198.51.100.5')).status).toBe(401);
    // The lockout fell on the attacker's own (socket) address, whatever it writes next.
    expect((await metrics(EDGE_ADMIN_TOKEN, '192.0.2.1')).status).toBe(429);
  });

  it("honours a trusted proxy's entry: two real clients behind it are two addresses", async () => {
    const showtimeId = await openRoom({ placesPerAddress: 1 });
    const join = (customerId: string, address: string) => joinOn(edge, showtimeId, customerId, via(address));
    expect((await join(`proxied-${showtimeId}-1`, '198.51.100.71')).status).toBe(200);
    expect((await join(`proxied-${showtimeId}-2`, '198.51.100.72')).status).toBe(200);
    expect((await join(`proxied-${showtimeId}-3`, '198.51.100.72')).status).toBe(403);
  });

  it('limits IPv6 clients per /64: thirty addresses of one network share its places', async () => {
    const showtimeId = await openRoom({ placesPerAddress: 3 });
    const statuses = [];
    for (let i = 1; i <= 30; i++) {
      const address = `2001:db8:77:1:${i.toString(16)}::${i.toString(16)}`;
      statuses.push((await joinOn(edge, showtimeId, `v6-${showtimeId}-${i}`, via(address))).status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    // The rest are refused: the places (403), or the join flood limit, which counts the /64 too (429).
    expect(statuses.filter((s) => s === 403 || s === 429)).toHaveLength(27);
    expect((await joinOn(edge, showtimeId, `v6-${showtimeId}-other`, via('2001:db8:77:2::1'))).status).toBe(200);
  });

  it('counts one IPv6 address written three ways as one client', async () => {
    const showtimeId = await openRoom({ placesPerAddress: 1 }, perAddress);
    const spellings = ['2001:DB8:0:0::1', '2001:db8::1', '2001:0db8:0000:0000:0000:0000:0000:0001'];
    const statuses = [];
    for (const [i, spelling] of spellings.entries()) {
      const headers = { 'x-forwarded-for': spelling };
      statuses.push((await joinOn(perAddress, showtimeId, `spelt-${showtimeId}-${i}`, headers)).status);
    }
    expect(statuses).toEqual([200, 403, 403]);
    // Per full address here: another address of the same /64 is another client.
    const neighbour = await joinOn(perAddress, showtimeId, `spelt-${showtimeId}-n`, {
      'x-forwarded-for': '2001:db8::2',
    });
    expect(neighbour.status).toBe(200);
  });
});
