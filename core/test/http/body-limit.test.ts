/**
 * The core's body limit holds on every method, over a real socket: a DELETE streaming 2 MB
 * (declared or chunked) is answered 413 PAYLOAD_TOO_LARGE while most of it is still unsent, so
 * the core never buffers it. The broken variant, a server that reads the body before judging
 * it, answers only after the last byte: the harness tells the two apart.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../../../test/support/env';
import { sendBodySlowly } from '../../../test/support/slow-body';
import { connectDatabase } from '../../src/db/connect';
import { createCoreHarness, unique, type CoreHarness } from '../core-harness';

const TWO_MB = 2 * 1024 * 1024;
let sql: ReturnType<typeof connectDatabase>;
let h: CoreHarness;
let server: ReturnType<typeof serve>;
let port: number;

const listen = (fetch: (request: Request) => Response | Promise<Response>) =>
  new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
const close = (s: ReturnType<typeof serve>) => new Promise<void>((resolve) => s.close(() => resolve()));

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 2, applicationName: 'test-core-body-limit' });
  h = await createCoreHarness(sql);
  server = await listen(h.app.fetch);
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await close(server);
  await sql.end();
});

describe('the core refuses an oversized body while reading it', () => {
  for (const framing of ['declared', 'chunked'] as const)
    for (const path of [`/holds/${randomUUID()}`, `/bookings/${randomUUID()}`])
      it(`DELETE ${path.split('/')[1]} with 2 MB ${framing}: 413 long before the end`, async () => {
        const token = await h.tokenFor(unique('big-delete'), 1);
        const answer = await sendBodySlowly({
          port,
          method: 'DELETE',
          path,
          totalBytes: TWO_MB,
          framing,
          headers: { authorization: `Bearer ${token}` },
        });
        expect(answer).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
        expect(answer.sentAtAnswer).toBeLessThan(TWO_MB / 2);
      });

  it('a server that reads the body first answers only after the last byte: the broken variant', async () => {
    const buffering = new Hono();
    buffering.delete('*', async (c) => {
      const bytes = (await c.req.arrayBuffer()).byteLength;
      return c.json({ error: { code: 'PAYLOAD_TOO_LARGE', message: `${bytes} bytes` } }, 413);
    });
    const broken = await listen(buffering.fetch);
    try {
      const answer = await sendBodySlowly({
        port: (broken.address() as AddressInfo).port,
        method: 'DELETE',
        path: `/holds/${randomUUID()}`,
        totalBytes: TWO_MB,
        framing: 'chunked',
      });
      expect(answer.status).toBe(413);
      expect(answer.sentAtAnswer).toBe(TWO_MB);
    } finally {
      await close(broken);
    }
  });
});
