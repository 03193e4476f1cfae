/**
 * Idle buyer connections stay open past Node's default 5 s keep-alive: a load balancer or k6
 * that reuses a connection after a few idle seconds must not have it closed under a request it
 * is sending (an EOF or reset on a POST nobody may retry). One real socket, idle for 6 s, then
 * a second request on it.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseEdgeConfig } from '../src/config';
import { EDGE_KEEP_ALIVE_MS, startEdge, type RunningEdge } from '../src/node';
import { EDGE_ADMIN_TOKEN, testTokenKeys } from './edge-harness';
import { serveRestartable, type RestartableHttp } from './private-servers';
import { createStubCore } from './stub-core';

let coreServer: RestartableHttp;
let edge: RunningEdge;

beforeAll(async () => {
  const core = createStubCore(await testTokenKeys());
  coreServer = await serveRestartable((request) => core.app.fetch(request));
  edge = await startEdge(
    parseEdgeConfig({
      EDGE_PORT: '0',
      EDGE_HOST: '127.0.0.1',
      CORE_URL: coreServer.url,
      ADMIN_TOKEN: EDGE_ADMIN_TOKEN,
      ROOM_SYNC_MS: '60000',
      LOG_LEVEL: 'silent',
    }),
    { tokenKeys: await testTokenKeys(), consumeEvents: false },
  );
});
afterAll(async () => {
  await edge?.close();
  await coreServer?.stop();
});

/** Sends one request on the socket and resolves with the status line of its answer. */
function ask(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const onData = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (!received.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      resolve(received.slice(0, received.indexOf('\r\n')));
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.write('GET /healthz HTTP/1.1\r\nHost: edge\r\nConnection: keep-alive\r\n\r\n');
  });
}

it('keeps an idle connection open past 5 s, and headersTimeout stays above the keep-alive', async () => {
  expect(edge.server.keepAliveTimeout).toBe(EDGE_KEEP_ALIVE_MS);
  expect(EDGE_KEEP_ALIVE_MS).toBeGreaterThanOrEqual(61_000); // above a 60 s proxy idle timeout
  expect(edge.server.headersTimeout).toBeGreaterThan(EDGE_KEEP_ALIVE_MS);
  const socket = connect(edge.port, '127.0.0.1');
  let closedAtMs: number | null = null;
  socket.on('close', () => (closedAtMs = Date.now()));
  try {
    expect(await ask(socket)).toMatch(/^HTTP\/1\.1 200/);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(closedAtMs).toBeNull();
    expect(await ask(socket)).toMatch(/^HTTP\/1\.1 200/);
  } finally {
    socket.destroy();
  }
}, 20_000);
