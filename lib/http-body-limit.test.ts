/**
 * jsonBodyLimit under @hono/node-server, over a real socket: it reads Node's own message there
 * (no web-stream Request), and must keep the same answers as hono's bodyLimit gave: 413 while a
 * chunked body is still arriving, the body intact for the handler when it fits, no body at all
 * when neither Content-Length nor Transfer-Encoding is sent, 415 still the route's to give.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sendBodySlowly } from '../test/support/slow-body';
import { createErrorHandler, jsonBodyLimit, readJsonBody } from './http';

const LIMIT = 1024;
let server: ReturnType<typeof serve>;
let port: number;

beforeAll(async () => {
  const app = new Hono();
  app.use('*', jsonBodyLimit(LIMIT));
  app.onError(createErrorHandler(() => {}));
  app.post('/json', async (c) => c.json({ got: await readJsonBody(c, z.object({ seats: z.array(z.string()) })) }));
  app.delete('/text', async (c) => c.json({ text: await c.req.text() }));
  app.get('/get', (c) => c.json({ ok: true }));
  server = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** One request; `chunks` are written one by one with Transfer-Encoding: chunked unless `declared`. */
function send(options: {
  method: string;
  path: string;
  chunks?: string[];
  declared?: boolean;
  contentType?: string;
}): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const chunks = options.chunks ?? [];
    const headers: Record<string, string> = {};
    if (options.contentType !== undefined) headers['content-type'] = options.contentType;
    if (options.declared) headers['content-length'] = String(Buffer.byteLength(chunks.join('')));
    else if (options.chunks) headers['transfer-encoding'] = 'chunked';
    const req = httpRequest(
      { host: '127.0.0.1', port, method: options.method, path: options.path, headers, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} }));
      },
    );
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('jsonBodyLimit on Node', () => {
  it('passes a chunked JSON body that fits to the handler intact', async () => {
    const answer = await send({
      method: 'POST',
      path: '/json',
      chunks: ['{"seats":', '["A1",', '"A2"]}'],
      contentType: 'application/json',
    });
    expect(answer).toEqual({ status: 200, body: { got: { seats: ['A1', 'A2'] } } });
  });

  it('passes a declared JSON body', async () => {
    const answer = await send({
      method: 'POST',
      path: '/json',
      chunks: ['{"seats":["B2"]}'],
      declared: true,
      contentType: 'application/json',
    });
    expect(answer).toEqual({ status: 200, body: { got: { seats: ['B2'] } } });
  });

  it('refuses a chunked body over the limit with 413, on any method', async () => {
    for (const method of ['POST', 'DELETE', 'PUT', 'OPTIONS']) {
      const answer = await send({ method, path: '/json', chunks: ['x'.repeat(600), 'x'.repeat(600)] });
      expect(answer.status).toBe(413);
      expect((answer.body.error as { code: string }).code).toBe('PAYLOAD_TOO_LARGE');
    }
  });

  it('leaves a chunked GET body unread, as before: nothing reads or buffers it', async () => {
    const answer = await send({ method: 'GET', path: '/get', chunks: ['x'.repeat(600), 'x'.repeat(600)] });
    expect(answer).toEqual({ status: 200, body: { ok: true } });
  });

  it('refuses a declared length over the limit with 413', async () => {
    const answer = await send({ method: 'DELETE', path: '/text', chunks: ['x'.repeat(LIMIT + 1)], declared: true });
    expect(answer.status).toBe(413);
  });

  it('answers 413 while a chunked body is still arriving', async () => {
    const total = 256 * 1024;
    const answer = await sendBodySlowly({
      port,
      method: 'DELETE',
      path: '/text',
      totalBytes: total,
      framing: 'chunked',
    });
    expect(answer).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    expect(answer.sentAtAnswer).toBeLessThan(total / 2);
  });

  it('reads an empty chunked body and a body-less DELETE as empty text', async () => {
    expect(await send({ method: 'DELETE', path: '/text', chunks: [] })).toEqual({ status: 200, body: { text: '' } });
    expect(await send({ method: 'DELETE', path: '/text' })).toEqual({ status: 200, body: { text: '' } });
    expect(await send({ method: 'DELETE', path: '/text', chunks: ['abc', 'def'] })).toEqual({
      status: 200,
      body: { text: 'abcdef' },
    });
  });

  it('leaves 415 to the route: a chunked form body is refused as not JSON', async () => {
    const answer = await send({
      method: 'POST',
      path: '/json',
      chunks: ['seats=A1'],
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(answer.status).toBe(415);
    expect((answer.body.error as { code: string }).code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});
