/**
 * Body limits on every method, over a real socket: a DELETE with a body past
 * MAX_BODY_BYTES is refused 413 while it is read, declared or chunked, and nothing reaches the
 * core; a DELETE's body is never forwarded. (A GET's body is never read by anything: the
 * Node adapter builds its Request without one.) The old rule, which let every DELETE through
 * unchecked, is shown buffering the same body whole (the broken variant).
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendBodySlowly } from '../../test/support/slow-body';
import { createEdgeHarness, type EdgeHarness } from './edge-harness';

const LIMIT = 64 * 1024;
const BIG = 1024 * 1024;

let h: EdgeHarness;
let server: ReturnType<typeof serve>;
let port: number;
let coreCalls: string[] = [];
let customer: string;

beforeAll(async () => {
  h = await createEdgeHarness({
    store: 'memory',
    env: { MAX_BODY_BYTES: String(LIMIT) },
    coreFetch: (stub) =>
      (async (input: string | URL | Request, init?: RequestInit) => {
        const request = new Request(input, init);
        coreCalls.push(
          `${request.method} ${new URL(request.url).pathname} ${(await request.arrayBuffer()).byteLength}`,
        );
        return stub.fetch(input, init);
      }) as typeof fetch,
  });
  customer = (await h.login('body-limit-buyer')).token;
  server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
});

/** Sends `bytes` as the body, declared (Content-Length) or chunked; the status and error code. */
function send(
  method: string,
  path: string,
  bytes: number,
  mode: 'declared' | 'chunked',
  targetPort = port,
): Promise<{ status: number; code: string | null }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${customer}`, 'content-type': 'application/json' };
    // Node frames a DELETE or GET body only when told to (it does not chunk them by default).
    if (mode === 'declared') headers['content-length'] = String(bytes);
    else headers['transfer-encoding'] = 'chunked';
    const req = httpRequest({ host: '127.0.0.1', port: targetPort, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        let code: string | null = null;
        try {
          code = JSON.parse(text).error?.code ?? null;
        } catch {
          code = null;
        }
        resolve({ status: res.statusCode ?? 0, code });
      });
    });
    // The server may answer and close before the whole body is sent: that is the point.
    req.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < bytes) {
        const piece = chunk.subarray(0, Math.min(chunk.length, bytes - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

describe('body limits on every method', () => {
  it('refuses a DELETE with a declared body past the limit, before any work', async () => {
    coreCalls = [];
    expect(await send('DELETE', '/api/bookings/9d0f1b2c-0000-4000-8000-000000000001', BIG, 'declared')).toEqual({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
    });
    expect(coreCalls).toEqual([]);
  });

  it('refuses a chunked DELETE body past the limit while reading it', async () => {
    coreCalls = [];
    expect(await send('DELETE', '/api/holds/some-hold', BIG, 'chunked')).toEqual({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
    });
    expect(coreCalls).toEqual([]);
  });

  it('lets a DELETE with a small body through, and never forwards the body to the core', async () => {
    coreCalls = [];
    const answer = await send('DELETE', '/api/bookings/9d0f1b2c-0000-4000-8000-000000000002', 100, 'declared');
    expect(answer.status).toBe(404); // the stub core knows no such booking: it was asked
    expect(coreCalls.length).toBe(1);
    expect(coreCalls[0]).toMatch(/^DELETE \/bookings\/9d0f1b2c-0000-4000-8000-000000000002 0$/);
  });

  for (const framing of ['declared', 'chunked'] as const)
    it(`answers a slowly streamed 2 MB DELETE (${framing}) with 413 long before its end`, async () => {
      coreCalls = [];
      const answer = await sendBodySlowly({
        port,
        method: 'DELETE',
        path: '/api/bookings/9d0f1b2c-0000-4000-8000-000000000003',
        totalBytes: 2 * BIG,
        framing,
        headers: { authorization: `Bearer ${customer}` },
      });
      expect(answer).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
      expect(answer.sentAtAnswer).toBeLessThan(BIG);
      expect(coreCalls).toEqual([]);
    });

  it('the old rule (DELETE never checked) lets the whole body be buffered: the broken variant', async () => {
    const old = new Hono();
    const bodyless = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);
    let buffered = 0;
    old.use('*', async (c, next) => {
      if (bodyless.has(c.req.method)) return next();
      const declared = Number(c.req.header('content-length') ?? 0);
      if (declared > LIMIT) return c.json({ error: { code: 'PAYLOAD_TOO_LARGE' } }, 413);
      return next();
    });
    old.delete('*', async (c) => {
      buffered = (await c.req.arrayBuffer()).byteLength;
      return c.body(null, 204);
    });
    const oldServer = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: old.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    try {
      const answer = await send('DELETE', '/api/bookings/x', BIG, 'chunked', (oldServer.address() as AddressInfo).port);
      expect(answer.status).toBe(204);
      expect(buffered).toBe(BIG);
    } finally {
      await new Promise<void>((resolve) => oldServer.close(() => resolve()));
    }
  });
});
