/**
 * Abuse matrix, the operator surface, through the edge's HTTP API on the run's Redis: the
 * admin API locks an address out like the console does; console sessions are server-side
 * (random per sign-in, dead after sign-out, sign-out needs the session's CSRF token); the
 * audit actor is the signed-in operator, not what X-Operator says; /metrics is for operators.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_COOKIE } from '../src/pages/admin-session';
import { createEdgeHarness, EDGE_ADMIN_TOKEN, type EdgeHarness } from './edge-harness';

let edge: EdgeHarness;
beforeAll(async () => {
  edge = await createEdgeHarness();
});
afterAll(() => edge?.close());

const form = (fields: Record<string, string>, client = '192.0.2.10', cookie?: string) => ({
  rawBody: new URLSearchParams(fields).toString(),
  headers: {
    'content-type': 'application/x-www-form-urlencoded',
    'x-test-client': client,
    ...(cookie ? { cookie } : {}),
  },
});

async function signIn(operator: string, client = '192.0.2.10', cookie?: string): Promise<string> {
  const result = await edge.call('POST', '/admin/login', form({ token: EDGE_ADMIN_TOKEN, operator }, client, cookie));
  expect(result.status).toBe(303);
  const value = new RegExp(`${ADMIN_COOKIE}=([^;]+)`).exec(result.headers.get('set-cookie') ?? '')?.[1];
  expect(value).toBeTruthy();
  return `${ADMIN_COOKIE}=${value}`;
}

/** The sign-out form's CSRF token, as the console page renders it. */
async function csrfOf(cookie: string): Promise<string> {
  const page = await edge.call('GET', '/admin', { headers: { cookie, accept: 'text/html' } });
  return /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
}

describe('admin API lockout', () => {
  it('locks an address out after ten wrong Bearer tokens (the eleventh is refused), even for the right one; other addresses keep working', async () => {
    const client = { 'x-test-client': '203.0.113.77' };
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      statuses.push(
        (
          await edge.call('GET', '/api/admin/showtimes/1/room', {
            token: `wrong-guess-${i}-0123456789`,
            headers: client,
          })
        ).status,
      );
    }
    expect(statuses).toEqual(Array(10).fill(401));
    const locked = await edge.call('GET', '/metrics', { token: EDGE_ADMIN_TOKEN, headers: client });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Guesses through the console count against the same address too.
    const viaConsole = await edge.call('POST', '/admin/login', form({ token: EDGE_ADMIN_TOKEN }, '203.0.113.77'));
    expect(viaConsole.status).toBe(429);
    expect(
      (await edge.call('GET', '/metrics', { token: EDGE_ADMIN_TOKEN, headers: { 'x-test-client': '203.0.113.78' } }))
        .status,
    ).toBe(200);
  });
});

describe('console sessions', () => {
  it('gives every sign-in a new random session, which sign-out ends on the server', async () => {
    const first = await signIn('alice');
    const second = await signIn('alice');
    expect(first).not.toBe(second);
    expect(first.length).toBeGreaterThan(40);
    const read = (cookie: string) => edge.call('GET', '/metrics', { headers: { cookie } });
    expect((await read(first)).status).toBe(200);
    const csrf = await csrfOf(first);
    expect(csrf.length).toBeGreaterThan(20);
    const out = await edge.call('POST', '/admin/logout', form({ csrf }, '192.0.2.10', first));
    expect(out.status).toBe(303);
    // A copy of the cookie kept from before sign-out is worth nothing now.
    expect((await read(first)).status).toBe(401);
    expect((await read(second)).status).toBe(200);
  });

  it('ends the session the browser had when it signs in again (a planted session never lives on)', async () => {
    const planted = await signIn('mallory');
    const fresh = await signIn('bob', '192.0.2.10', planted);
    expect(fresh).not.toBe(planted);
    expect((await edge.call('GET', '/metrics', { headers: { cookie: planted } })).status).toBe(401);
  });

  it('refuses a sign-out without the session CSRF token, and the session goes on', async () => {
    const cookie = await signIn('carol');
    for (const fields of [{}, { csrf: 'forged-token-forged-token-forged' }] as Record<string, string>[]) {
      const out = await edge.call('POST', '/admin/logout', form(fields, '192.0.2.10', cookie));
      expect(out.status).toBe(403);
    }
    expect((await edge.call('GET', '/metrics', { headers: { cookie } })).status).toBe(200);
  });

  it('records the signed-in operator as the audit actor, whatever X-Operator says', async () => {
    const showtimeId = edge.core.addShowtime();
    const cookie = await signIn('dana');
    const changed = await edge.call('PUT', `/api/admin/showtimes/${showtimeId}/room`, {
      body: { capacity: 7 },
      headers: { cookie, 'x-console': '1', 'x-operator': 'someone-else' },
    });
    expect(changed.status).toBe(200);
    const audit = await edge.call('GET', `/api/admin/showtimes/${showtimeId}/room/audit`, { token: EDGE_ADMIN_TOKEN });
    expect(audit.json.entries[0]).toMatchObject({ actor: 'dana' });
    // With the bare admin token, a self-declared name is only a label beside the credential.
    await edge.call('PUT', `/api/admin/showtimes/${showtimeId}/room`, {
      token: EDGE_ADMIN_TOKEN,
      body: { capacity: 8 },
      headers: { 'x-operator': 'dana' },
    });
    const again = await edge.call('GET', `/api/admin/showtimes/${showtimeId}/room/audit`, { token: EDGE_ADMIN_TOKEN });
    expect(again.json.entries[0].actor).toBe('dana via admin-token');
  });
});

describe('/metrics', () => {
  it('is served to operators only', async () => {
    expect((await edge.call('GET', '/metrics')).status).toBe(401);
    expect((await edge.call('GET', '/metrics', { token: 'not-the-admin-token-at-all' })).status).toBe(401);
    const metrics = await edge.call('GET', '/metrics', { token: EDGE_ADMIN_TOKEN });
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('# TYPE edge_admissions_total counter');
  });
});
