import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { randomUUID } from 'node:crypto';
import { signWebhook } from '../../../lib/webhook-signature';
import { freePort } from '../../../queue/test/redis-servers';
import { testDatabaseUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { isDatabaseUnavailable, mapDatabaseError } from '../../src/db/sql-errors';
import { createCoreHarness, TEST_ADMIN_TOKEN, TEST_WEBHOOK_SECRET, unique, type CoreHarness } from '../core-harness';

/**
 * Every route answers a database it cannot reach with 503 and Retry-After, never 500: the
 * mapping lives in the core's one error handler, so a route cannot forget it. The pool
 * reconnects by itself once the server answers again (here: our own backends terminated by
 * the server, SQLSTATE 57P01, as a fast shutdown does).
 */
describe('the core without its database', () => {
  let down: Sql;
  let h: CoreHarness;
  beforeAll(async () => {
    // Nothing listens on this port: every connect is refused, as while PostgreSQL restarts.
    down = connectDatabase(`postgres://postgres@127.0.0.1:${await freePort()}/nowhere`, { max: 2 });
    h = await createCoreHarness(down);
  });
  afterAll(async () => {
    await down.end({ timeout: 1 });
  });

  it('answers 503 with Retry-After on every route that needs it', async () => {
    const holdId = randomUUID();
    const token = await h.tokenFor(unique('buyer'), 1);
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const callbackBody = JSON.stringify({
      id: `evt_${randomUUID()}`,
      type: 'payment.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: { paymentId: 'pay_x', amount: 1000, currency: 'EUR' },
    });
    const routes: [string, string, Parameters<CoreHarness['call']>[2]][] = [
      ['GET', '/showtimes', {}],
      ['GET', '/showtimes/1/seats', { token }],
      ['POST', '/showtimes/1/holds', { token, body: { seats: ['A1'] } }],
      ['GET', `/holds/${holdId}`, { token }],
      ['DELETE', `/holds/${holdId}`, { token }],
      ['POST', `/holds/${holdId}/checkout`, { token, headers: { 'idempotency-key': unique('key') } }],
      ['GET', `/bookings/${randomUUID()}`, { token }],
      [
        'POST',
        '/payments/callback',
        {
          rawBody: callbackBody,
          headers: {
            'content-type': 'application/json',
            'x-signature': signWebhook(callbackBody, [TEST_WEBHOOK_SECRET], Math.floor(Date.now() / 1000)),
          },
        },
      ],
      ['GET', '/admin/venues', { headers: admin }],
      ['POST', '/admin/venues', { headers: admin, body: { name: 'x' } }],
      ['GET', '/admin/showtimes/1', { headers: admin }],
      ['PATCH', '/admin/showtimes/1', { headers: admin, body: { title: 'x' } }],
      ['GET', `/admin/bookings/${randomUUID()}`, { headers: admin }],
      ['POST', `/admin/bookings/${randomUUID()}/refund`, { headers: admin }],
      ['GET', '/readyz', {}],
    ];
    const seen: string[] = [];
    for (const [method, path, init] of routes) {
      const response = await h.call(method, path, init);
      seen.push(
        `${method} ${path.replace(/[0-9a-f-]{36}/, ':id')} ${response.status} ${response.json?.error?.code ?? response.json?.status ?? ''}`,
      );
      expect(response.status, `${method} ${path}`).toBe(503);
      expect(Number(response.headers.get('retry-after')), `${method} ${path}`).toBeGreaterThan(0);
    }
    expect(seen.filter((line) => line.includes('DATABASE_UNAVAILABLE')).length).toBeGreaterThan(10);
  });
});

describe('a connection the server ends', () => {
  let sql: Sql;
  let h: CoreHarness;
  beforeAll(async () => {
    sql = connectDatabase(testDatabaseUrl(), { max: 1, applicationName: `test-outage-${process.pid}` });
    h = await createCoreHarness(sql);
  });
  afterAll(async () => {
    await sql.end({ timeout: 1 });
  });

  it('is 503 while it breaks, and the pool reconnects by itself', async () => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 1, columns: 4 } });
    const customer = unique('reconnect');
    expect((await h.hold(showtimeId, customer, ['A1'])).status).toBe(201);
    // A long statement on the pool's only connection, ended by the server the way a fast
    // shutdown ends it (FATAL 57P01), while a buyer's read waits behind it.
    const [{ pid }] = (await sql<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`) as unknown as [{ pid: number }];
    const sleeper = sql`SELECT pg_sleep(5)`.catch((error: unknown) => error);
    const waitingRead = h.call('GET', `/showtimes/${showtimeId}/seats`, {
      token: await h.tokenFor(customer, showtimeId),
    });
    const killer = connectDatabase(testDatabaseUrl(), { max: 1 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await killer`SELECT pg_terminate_backend(${pid})`;
    await killer.end();
    const ended = await sleeper;
    expect(isDatabaseUnavailable(ended)).toBe(true);
    expect(mapDatabaseError(ended)).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
    // The read queued behind it either ran on a fresh connection or was refused as 503; never 500.
    expect([200, 503]).toContain((await waitingRead).status);
    // And the next request finds a new connection without anyone restarting anything.
    const after = await h.call('GET', `/showtimes/${showtimeId}/seats`, {
      token: await h.tokenFor(customer, showtimeId),
    });
    expect(after.status).toBe(200);
    expect((await h.call('GET', '/readyz')).status).toBe(200);
  });
});

describe('what counts as the database being away', () => {
  it.each([
    ['57P01', true],
    ['57P02', true],
    ['57P03', true],
    ['08006', true],
    ['08001', true],
    ['53300', true],
    ['ECONNREFUSED', true],
    ['ECONNRESET', true],
    ['CONNECTION_CLOSED', true],
    ['CONNECT_TIMEOUT', true],
    ['23505', false],
    ['WRC09', false],
    ['42P01', false],
  ])('%s → %s', (code, expected) => {
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code }))).toBe(expected);
  });
  it('lock timeouts, deadlocks and serialization failures are BUSY (503)', () => {
    for (const code of ['55P03', '40P01', '40001', '57014']) {
      expect(mapDatabaseError(Object.assign(new Error('x'), { code }))).toMatchObject({
        status: 503,
        code: 'BUSY',
        retryAfterSeconds: 1,
      });
    }
  });
});
