/**
 * The operator API in process on the in-memory store and the stub core (no server): room read
 * and change, queue-id lookup, audit, live events, the fare relays, /metrics, /readyz, the
 * demo login, the keys and the API description, each with its success answer and its main
 * refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEdgeHarness, EDGE_ADMIN_TOKEN, fastRoom, type EdgeHarness } from '../../test/edge-harness';

let edge: EdgeHarness;
const token = EDGE_ADMIN_TOKEN;
let address = 0;
/** Each refusal from an address of its own: wrong tokens count towards a per-address lockout. */
const fresh = () => ({ 'x-test-client': `10.2.0.${++address}` });

beforeAll(async () => {
  edge = await createEdgeHarness({ store: 'memory' });
});
afterAll(async () => {
  await edge?.close();
});

async function room(patch = {}) {
  const showtimeId = edge.core.addShowtime();
  await edge.configureRoom(showtimeId, { ...fastRoom, ...patch });
  return showtimeId;
}

describe('operator room control', () => {
  it('reads the room: settings in the public view, counters, sale state', async () => {
    const showtimeId = await room();
    const read = await edge.call('GET', `/api/admin/showtimes/${showtimeId}/room`, { token });
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({
      showtimeId: String(showtimeId),
      settings: { capacity: 2, placesPerAddress: 100_000, adaptiveAdmission: true },
      stats: { waiting: 0 },
    });
  });

  it('changes settings (engine units stored, public view answered) and lists the change in the audit', async () => {
    const showtimeId = await room();
    const changed = await edge.call('PUT', `/api/admin/showtimes/${showtimeId}/room`, {
      token,
      body: { powDifficulty: 6, sessionTtlSeconds: 90, placesPerAddress: 3 },
    });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({
      applied: true,
      settings: { powDifficulty: 6, sessionTtlSeconds: 90, placesPerAddress: 3 },
    });
    const engine = await edge.deps.engine.getSettings(String(showtimeId));
    expect(engine.ok && [engine.settings.sessionTtlMs, engine.settings.powDifficulty]).toEqual([90_000, 6]);
    const audit = await edge.call('GET', `/api/admin/showtimes/${showtimeId}/room/audit`, { token });
    expect(audit.status).toBe(200);
    expect(audit.json.entries[0]).toMatchObject({ action: 'room.update' });
  });

  it('refuses a setting beyond its bound or unknown (422), an empty change (422), no token (401), a wrong token (401), an unknown showtime (404)', async () => {
    const showtimeId = await room();
    const put = (body: unknown, init = {}) =>
      edge.call('PUT', `/api/admin/showtimes/${showtimeId}/room`, { token, body, headers: fresh(), ...init });
    for (const body of [
      { powDifficulty: 19 },
      { capacity: 0 },
      { sessionTtlSeconds: 86_401 },
      { adaptiveAdmission: 1 },
      { tickGapMs: 5 },
      {},
    ]) {
      const refused = await put(body);
      expect([refused.status, refused.json.error.code], JSON.stringify(body)).toEqual([422, 'VALIDATION_FAILED']);
    }
    expect(
      (await edge.call('GET', `/api/admin/showtimes/${showtimeId}/room`, { headers: fresh() })).json.error.code,
    ).toBe('MISSING_TOKEN');
    const wrong = await edge.call('PUT', `/api/admin/showtimes/${showtimeId}/room`, {
      token: 'wrong-token',
      body: { capacity: 3 },
      headers: fresh(),
    });
    expect([wrong.status, wrong.json.error.code]).toEqual([401, 'INVALID_TOKEN']);
    expect((await edge.call('GET', '/api/admin/showtimes/abc/room', { token })).status).toBe(404);
    const settings = await edge.deps.engine.getSettings(String(showtimeId));
    expect(settings.ok && settings.settings.capacity).toBe(2);
  });

  it('finds the buyer a queue id stands for, and refuses an id with a typo (404)', async () => {
    const showtimeId = await room({ capacity: 1 });
    await edge.join(showtimeId, (await edge.login(`qid-first-${showtimeId}`)).token);
    const second = await edge.join(showtimeId, (await edge.login(`qid-second-${showtimeId}`)).token);
    const queueId = second.json.queueId as string;
    const found = await edge.call('GET', `/api/admin/showtimes/${showtimeId}/room/queue-ids/${queueId}`, { token });
    expect(found.json).toMatchObject({ status: 'waiting', position: 1, customerId: `qid-second-${showtimeId}` });
    const typo = queueId.slice(0, -1) + (queueId.endsWith('A') ? 'B' : 'A');
    const refused = await edge.call('GET', `/api/admin/showtimes/${showtimeId}/room/queue-ids/${typo}`, { token });
    expect([refused.status, refused.json.error.code]).toEqual([404, 'QUEUE_ID_NOT_FOUND']);
  });

  it('streams live numbers as server-sent events, and refuses the stream without a token (401)', async () => {
    const showtimeId = await room();
    const controller = new AbortController();
    const response = await edge.app.request(`/api/admin/showtimes/${showtimeId}/room/events`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await reader.cancel();
    expect(text).toContain('event: stats');
    expect(
      (await edge.call('GET', `/api/admin/showtimes/${showtimeId}/room/events`, { headers: fresh() })).status,
    ).toBe(401);
  });
});

describe('fare relays', () => {
  it("relays the fares, seat classes and refund policy to the core, with the operator's name", async () => {
    const showtimeId = edge.core.addShowtime();
    expect((await edge.call('GET', `/api/admin/showtimes/${showtimeId}/fares`, { token })).json).toMatchObject({
      fareClasses: [],
    });
    const fare = await edge.call('PUT', `/api/admin/showtimes/${showtimeId}/fares/STUDENT`, {
      token,
      body: { label: 'Student', priceCents: 800 },
      headers: { 'x-operator': 'Fay' },
    });
    expect(fare.json).toMatchObject({ fareClass: 'STUDENT', priceCents: 800 });
    expect(edge.core.received.at(-1)!.headers['x-operator']).toBe('Fay via admin-token');
    expect(
      (
        await edge.call('PUT', `/api/admin/showtimes/${showtimeId}/seat-classes`, {
          token,
          body: { seats: ['A1'], fareClass: 'STUDENT' },
        })
      ).status,
    ).toBe(200);
    const policy = { tiers: [{ beforeStartMinutes: 60, percent: 50 }] };
    expect(
      (await edge.call('PUT', `/api/admin/showtimes/${showtimeId}/refund-policy`, { token, body: policy })).json,
    ).toEqual(policy);
    expect((await edge.call('GET', `/api/admin/showtimes/${showtimeId}/refund-policy`, { token })).json).toEqual(
      policy,
    );
  });

  it('refuses without a token (401), a malformed showtime (404), a body that is not JSON (400), and says 503 when the core is away', async () => {
    const showtimeId = edge.core.addShowtime();
    expect((await edge.call('GET', `/api/admin/showtimes/${showtimeId}/fares`, { headers: fresh() })).status).toBe(401);
    expect((await edge.call('GET', '/api/admin/showtimes/x/fares', { token })).status).toBe(404);
    const broken = await edge.call('PUT', `/api/admin/showtimes/${showtimeId}/refund-policy`, {
      token,
      rawBody: '{"tiers":[',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    const away = await createEdgeHarness({
      store: 'memory',
      coreFetch: () => async () => new Response('', { status: 502 }),
    });
    const down = await away.call('GET', `/api/admin/showtimes/${showtimeId}/fares`, { token });
    expect([down.status, down.json.error.code]).toEqual([503, 'CORE_UNAVAILABLE']);
    expect(down.headers.get('retry-after')).toBeTruthy();
  });
});

describe('operations, sign-in and description routes', () => {
  it('/healthz is ok; /readyz is ready with the store and the core, degraded without the core', async () => {
    expect((await edge.call('GET', '/healthz')).json).toEqual({ status: 'ok' });
    expect((await edge.call('GET', '/readyz')).json).toEqual({ status: 'ready', redis: 'ok', core: 'ok' });
    const away = await createEdgeHarness({
      store: 'memory',
      coreFetch: () => async () => new Response('', { status: 503 }),
    });
    expect((await away.call('GET', '/readyz')).json).toEqual({ status: 'degraded', redis: 'ok', core: 'down' });
  });

  it('/metrics answers operators only', async () => {
    const metrics = await edge.call('GET', '/metrics', { token });
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('# HELP');
    expect((await edge.call('GET', '/metrics', { headers: fresh() })).status).toBe(401);
  });

  it('demo login hands out a fresh identity (the body cannot choose it), and is 404 when demo login is off', async () => {
    const login = await edge.call('POST', '/api/auth/demo', { body: { customerId: 'someone-else' } });
    expect(login.status).toBe(200);
    expect(login.json.customerId).toMatch(/^demo-/);
    expect(login.headers.get('set-cookie')).toContain('HttpOnly');
    const off = await createEdgeHarness({ store: 'memory', env: { DEMO_LOGIN: 'false' } });
    const refused = await off.call('POST', '/api/auth/demo', { body: {} });
    expect([refused.status, refused.json.error.code]).toEqual([404, 'ROUTE_NOT_FOUND']);
  });

  it('publishes the public keys, the OpenAPI description and its reference page; an unknown API path is a JSON 404', async () => {
    const jwks = await edge.call('GET', '/.well-known/jwks.json');
    expect(jwks.json.keys[0]).toMatchObject({ kty: 'EC', kid: expect.any(String) });
    expect(JSON.stringify(jwks.json)).not.toContain('"d"');
    expect((await edge.call('GET', '/api/openapi.json')).json.openapi).toBe('3.1.0');
    const docs = await edge.app.request('/api/docs');
    expect([docs.status, docs.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/html')]);
    const unknown = await edge.call('GET', '/api/nothing-here');
    expect([unknown.status, unknown.json.error.code]).toEqual([404, 'ROUTE_NOT_FOUND']);
  });
});
