/**
 * The same routes, inside workerd: the Workers entry (edge/src/worker.ts) with
 * @upstash/redis against the real Redis (through the REST shim), tokens signed and verified
 * with WebCrypto, the operator API and metrics.
 */
// @ts-expect-error -- provided by @cloudflare/vitest-pool-workers inside workerd only
import { SELF, env, createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import worker from '../../src/worker';
import { describe, expect, inject, it } from 'vitest';
import { callJson, type JsonCallInit } from '../../../test/support/json-call';

const ADMIN = 'Bearer workers-test-admin-token-0123';
// The third showtime's room is only ever opened, never joined (the turn history test).
const [showtimeId, otherShowtimeId, quietShowtimeId] = inject('workerShowtimes');

// Bearer prefixes in ADMIN are kept: callJson adds one only to a bare token.
const call = (method: string, path: string, init: JsonCallInit = {}) => {
  const token = init.token?.startsWith('Bearer ') ? init.token.slice('Bearer '.length) : init.token;
  return callJson(
    (p, requestInit) => SELF.fetch(`https://edge.test${p}`, requestInit) as Promise<Response>,
    method,
    path,
    { ...init, token },
  );
};

const login = async (customerId: string) =>
  (await call('POST', '/api/auth/demo', { body: { customerId } })).json.token as string;

describe('edge in workerd', () => {
  it('serves health, the JWKS and Prometheus metrics', async () => {
    expect((await call('GET', '/healthz')).status).toBe(200);
    const jwks = await call('GET', '/.well-known/jwks.json');
    expect(jwks.json.keys[0]).toMatchObject({ kid: 'workers-test-1', alg: 'ES256' });
    expect((await call('GET', '/metrics')).status).toBe(401); // operators only
    expect((await call('GET', '/metrics', { token: ADMIN })).text).toContain('# TYPE edge_admissions_total counter');
  });

  it('configures a room live through the operator API, with an audit entry', async () => {
    const put = await call('PUT', `/api/admin/showtimes/${showtimeId}/room`, {
      token: ADMIN,
      headers: { 'x-operator': 'workerd' },
      body: { state: 'open', capacity: 1, admitPerMinute: 60000 },
    });
    expect(put.status).toBe(200);
    expect(put.json.settings).toMatchObject({ capacity: 1, state: 'open' });
    const audit = await call('GET', `/api/admin/showtimes/${showtimeId}/room/audit`, { token: ADMIN });
    // X-Operator is only a label beside the credential that was actually used.
    expect(audit.json.entries[0]).toMatchObject({ actor: 'workerd via admin-token', after: { capacity: 1 } });
    expect((await call('GET', `/api/admin/showtimes/${showtimeId}/room`)).status).toBe(401);
  });

  it('admits the first buyer, keeps the second waiting, and forwards purchases with the access token', async () => {
    const first = await call('POST', `/api/showtimes/${showtimeId}/queue`, { token: await login('wk-a') });
    expect(first.status).toBe(200);
    let answer = first.json;
    for (let attempt = 0; answer.state !== 'admitted' && attempt < 20; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      answer = (
        await call('GET', `/api/showtimes/${showtimeId}/queue`, { headers: { 'x-queue-token': first.json.queueToken } })
      ).json;
    }
    expect(answer.state).toBe('admitted');
    const second = await call('POST', `/api/showtimes/${showtimeId}/queue`, { token: await login('wk-b') });
    expect(second.json).toMatchObject({ state: 'waiting', position: 1 });
    const poll = await call('GET', `/api/showtimes/${showtimeId}/queue`, {
      headers: { 'x-queue-token': second.json.queueToken },
    });
    expect(poll.json).toMatchObject({ state: 'waiting', lineLength: 1 });
    // The short queue id (WebCrypto HKDF and AES-CTR inside workerd), the same on join and poll.
    expect(second.json.queueId).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(poll.json.queueId).toBe(second.json.queueId);

    const access = answer.accessToken as string;
    expect((await call('GET', `/api/showtimes/${showtimeId}/seats`, { token: access })).status).toBe(200);
    const hold = await call('POST', `/api/showtimes/${showtimeId}/holds`, { token: access, body: { seats: ['A1'] } });
    expect(hold.status).toBe(201);
    expect((await call('GET', `/api/holds/${hold.json.holdId}`, { token: access })).status).toBe(200);
  });

  it('refuses an oversized body on every method, DELETE included, declared or streamed', async () => {
    const token = await login('wk-big-body');
    const big = new Uint8Array(1024 * 1024).fill(0x20);
    const declared = await SELF.fetch('https://edge.test/api/bookings/9d0f1b2c-0000-4000-8000-000000000001', {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: big,
    });
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    // No declared length: counted as it arrives, refused once past the limit.
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= 64) return controller.close();
        pulled++;
        controller.enqueue(new Uint8Array(16 * 1024).fill(0x20));
      },
    });
    // Straight into the Worker's fetch (no socket between): the body is read by the app alone.
    const ctx = createExecutionContext();
    const streamed = await worker.fetch(
      new Request('https://edge.test/api/holds/9d0f1b2c-0000-4000-8000-000000000002', {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(streamed.status).toBe(413);
    expect(pulled).toBeLessThan(64);
    expect(((await streamed.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses abused tokens', async () => {
    const customer = await login('wk-abuse');
    expect((await call('GET', `/api/showtimes/${showtimeId}/seats`, { token: customer })).status).toBe(401);
    const joined = await call('POST', `/api/showtimes/${showtimeId}/queue`, { token: customer });
    expect((await call('GET', `/api/showtimes/${showtimeId}/seats`, { token: joined.json.queueToken })).status).toBe(
      401,
    );
    expect(
      (
        await call('GET', `/api/showtimes/${otherShowtimeId}/queue`, {
          headers: { 'x-queue-token': joined.json.queueToken },
        })
      ).status,
    ).toBe(403);
    const none = `${btoa(JSON.stringify({ alg: 'none', typ: 'wr-access+jwt' }))}.${btoa(JSON.stringify({ sub: 'x', aud: `showtime:${showtimeId}` }))}.`;
    expect((await call('GET', `/api/showtimes/${showtimeId}/seats`, { token: none.replace(/=/g, '') })).status).toBe(
      401,
    );
  });

  it('asks for proof of work at join when the room does, checks the solution with WebCrypto and spends it once', async () => {
    const put = await call('PUT', `/api/admin/showtimes/${otherShowtimeId}/room`, {
      token: ADMIN,
      body: { state: 'open', powDifficulty: 6 },
    });
    expect(put.status).toBe(200);
    const customer = await login('wk-pow');
    const refused = await call('POST', `/api/showtimes/${otherShowtimeId}/queue`, { token: customer });
    expect(refused).toMatchObject({ status: 428, json: { error: { code: 'POW_REQUIRED' }, difficulty: 6 } });
    const challenge = refused.json.challenge as string;
    let nonce = 0;
    for (; ; nonce++) {
      const digest = new Uint8Array(
        await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${challenge}:${nonce}`)),
      );
      if (digest[0] === 0 && digest[1]! >> 2 === 0) break;
    }
    const headers = { 'x-pow-challenge': challenge, 'x-pow-nonce': String(nonce) };
    expect((await call('POST', `/api/showtimes/${otherShowtimeId}/queue`, { token: customer, headers })).status).toBe(
      200,
    );
    const again = await call('POST', `/api/showtimes/${otherShowtimeId}/queue`, { token: customer, headers });
    expect(again).toMatchObject({ status: 428, json: { error: { code: 'POW_REUSED' } } });
  });

  it("the cron puts a room's turns into the turn history, and a room with none of its own goes by it", async () => {
    const put = await call('PUT', `/api/admin/showtimes/${otherShowtimeId}/room`, {
      token: ADMIN,
      body: { state: 'open', capacity: 3, admitPerMinute: 60000, powDifficulty: 0 },
    });
    expect(put.status).toBe(200);
    // The proof-of-work test's buyer gives their place or turn back: no turn runs here but ours,
    // so the room's mean is the six turns' alone (a running turn would count at its growing age).
    expect(
      (await call('DELETE', `/api/showtimes/${otherShowtimeId}/queue`, { token: await login('wk-pow') })).status,
    ).toBe(200);
    // Six turns, one after the other, each given back after about 100 ms.
    for (let i = 0; i < 6; i++) {
      const token = await login(`wk-turn-${i}`);
      const joined = (await call('POST', `/api/showtimes/${otherShowtimeId}/queue`, { token })).json;
      let answer = joined;
      for (let attempt = 0; answer.state !== 'admitted' && attempt < 40; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        answer = (
          await call('GET', `/api/showtimes/${otherShowtimeId}/queue`, {
            headers: { 'x-queue-token': joined.queueToken },
          })
        ).json;
      }
      expect(answer, JSON.stringify(answer)).toMatchObject({ state: 'admitted' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await call('DELETE', `/api/showtimes/${otherShowtimeId}/queue`, { token })).status).toBe(200);
    }
    const learned = (await call('GET', `/api/admin/showtimes/${otherShowtimeId}/room`, { token: ADMIN })).json.stats;
    expect(learned).toMatchObject({ turnFrom: 'room', turnMs: expect.any(Number) });
    // A room nobody has joined: before the cron, nothing to go by.
    expect(
      (await call('PUT', `/api/admin/showtimes/${quietShowtimeId}/room`, { token: ADMIN, body: { state: 'open' } }))
        .status,
    ).toBe(200);
    expect(
      (await call('GET', `/api/admin/showtimes/${quietShowtimeId}/room`, { token: ADMIN })).json.stats,
    ).toMatchObject({ turnFrom: null, turnMs: null });
    // The Worker's cron, as Cloudflare calls it (the same module instance SELF serves).
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: '* * * * *' }), env, ctx);
    await waitOnExecutionContext(ctx);
    await expect
      .poll(
        async () =>
          (await call('GET', `/api/admin/showtimes/${quietShowtimeId}/room`, { token: ADMIN })).json.stats.turnFrom,
        { timeout: 10_000 },
      )
      .toBe('history');
    // The other room's mean as the cron recorded it (the count decays a little meanwhile).
    const told = (await call('GET', `/api/admin/showtimes/${quietShowtimeId}/room`, { token: ADMIN })).json.stats
      .turnMs as number;
    expect(told).toBeGreaterThanOrEqual(learned.turnMs * 0.9);
    expect(told).toBeLessThanOrEqual(learned.turnMs * 1.1);
  });
});

describe('pages in workerd', () => {
  it('serves the sale list, the sale page, its assets, the leave beacon and the console sign-in', async () => {
    const list = await call('GET', '/');
    expect(list.status).toBe(200);
    expect(list.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(list.text).toContain(`href="/showtimes/${showtimeId}"`);
    const page = await call('GET', `/showtimes/${showtimeId}`);
    expect(page.text).toContain(`data-showtime-id="${showtimeId}"`);
    const script = page.text.match(/src="(\/assets\/buyer\.[0-9a-f]{12}\.js)"/)?.[1];
    const asset = await call('GET', script!);
    expect(asset.headers.get('content-type')).toContain('javascript');
    expect(asset.headers.get('cache-control')).toContain('immutable');

    const customer = await login('wk-pages');
    const leave = await call('POST', `/showtimes/${showtimeId}/leave?view=0123456789abcdef`, {
      headers: { cookie: `wr_customer=${customer}` },
    });
    expect(leave.status).toBe(202);

    const signIn = await SELF.fetch('https://edge.test/admin/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=workers-test-admin-token-0123&operator=wk',
      redirect: 'manual',
    });
    expect(signIn.status).toBe(303);
    const cookie = signIn.headers.get('set-cookie')?.match(/wr_admin=[^;]+/)?.[0];
    expect(cookie).toBeTruthy();
    const room = await call('GET', `/admin/showtimes/${showtimeId}`, { headers: { cookie: cookie! } });
    expect(room.status).toBe(200);
    expect(room.text).toContain('id="console"');
  });
});
