/**
 * Extra descriptors for the edge's listening socket (net/acceptors.ts): Node accepts one
 * connection per event-loop turn and descriptor, so with EDGE_ACCEPTORS=4 a turn that finds
 * many connections waiting takes in up to four of them, and with one it takes in one. Counted
 * per turn of this process's own loop (no clock involved); the connections are answered alike.
 */
import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callJson, fetchFrom } from '../../test/support/json-call';
import { parseEdgeConfig } from '../src/config';
import { startEdge, type RunningEdge } from '../src/node';
import { EDGE_ADMIN_TOKEN, testTokenKeys } from './edge-harness';
import { serveRestartable, type RestartableHttp } from './private-servers';
import { createStubCore } from './stub-core';

let coreServer: RestartableHttp;
const edges: RunningEdge[] = [];

async function edgeWith(acceptors: number): Promise<RunningEdge> {
  const edge = await startEdge(
    parseEdgeConfig({
      EDGE_PORT: '0',
      EDGE_HOST: '127.0.0.1',
      CORE_URL: coreServer.url,
      ADMIN_TOKEN: EDGE_ADMIN_TOKEN,
      ROOM_SYNC_MS: '60000',
      LOG_LEVEL: 'silent',
      EDGE_ACCEPTORS: String(acceptors),
    }),
    { tokenKeys: await testTokenKeys(), consumeEvents: false },
  );
  edges.push(edge);
  return edge;
}

beforeAll(async () => {
  const core = createStubCore(await testTokenKeys());
  coreServer = await serveRestartable((request) => core.app.fetch(request));
});
afterAll(async () => {
  for (const edge of edges) await edge.close();
  await coreServer?.stop();
});

/**
 * Opens `count` connections at once (the kernel completes them before the edge's next turn),
 * then follows the edge's turns: how many it accepted in each, until all are in.
 */
async function acceptedPerTurn(edge: RunningEdge, count: number): Promise<number[]> {
  let accepted = 0;
  const onConnection = () => void accepted++;
  edge.server.on('connection', onConnection);
  const sockets: Socket[] = [];
  try {
    for (let i = 0; i < count; i++) sockets.push(connect(edge.port, '127.0.0.1').on('error', () => {}));
    const perTurn: number[] = [];
    let seen = 0;
    for (let turn = 0; seen < count && turn < 10 * count; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      perTurn.push(accepted - seen);
      seen = accepted;
    }
    return perTurn;
  } finally {
    edge.server.off('connection', onConnection);
    for (const socket of sockets) socket.destroy();
  }
}

it('with four descriptors a turn takes in up to four waiting connections; with one, one', async () => {
  const four = await edgeWith(4);
  const one = await edgeWith(1);
  expect([four.acceptors, one.acceptors]).toEqual([4, 1]);

  const withFour = await acceptedPerTurn(four, 40);
  expect(withFour.reduce((a, b) => a + b, 0)).toBe(40);
  expect(Math.max(...withFour)).toBeGreaterThan(1);
  expect(Math.max(...withFour)).toBeLessThanOrEqual(4);

  const withOne = await acceptedPerTurn(one, 40);
  expect(withOne.reduce((a, b) => a + b, 0)).toBe(40);
  expect(Math.max(...withOne)).toBe(1);
});

it('serves a connection taken in by any descriptor like any other', async () => {
  const edge = edges[0]!;
  // A new connection each (no keep-alive), so the descriptors share them.
  const healthz = () =>
    new Promise<[number, string]>((resolve, reject) => {
      get({ host: '127.0.0.1', port: edge.port, path: '/healthz', agent: false }, (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve([response.statusCode ?? 0, JSON.parse(body).status]));
      }).on('error', reject);
    });
  const answers = await Promise.all(Array.from({ length: 24 }, healthz));
  expect(answers).toEqual(Array(24).fill([200, 'ok']));
  const showtimes = await callJson(fetchFrom(edge.url), 'GET', '/api/showtimes');
  expect(showtimes.status).toBe(200);
});
