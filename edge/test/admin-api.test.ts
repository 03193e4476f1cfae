/** Operator API: settings read and changed live, stats as server-sent events, the audit log. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEdgeHarness, EDGE_ADMIN_TOKEN, fastRoom, type EdgeHarness } from './edge-harness';

let edge: EdgeHarness;
beforeAll(async () => {
  edge = await createEdgeHarness();
});
afterAll(() => edge?.close());

const admin = { token: EDGE_ADMIN_TOKEN };

describe('operator API', () => {
  it('refuses requests without the admin token', async () => {
    expect((await edge.call('GET', '/api/admin/showtimes/1/room')).status).toBe(401);
    expect((await edge.call('GET', '/api/admin/showtimes/1/room', { token: 'wrong-token-wrong-token' })).status).toBe(
      401,
    );
    const buyer = await edge.login('admin-not');
    expect(
      (await edge.call('PUT', '/api/admin/showtimes/1/room', { token: buyer.token, body: { capacity: 5 } })).status,
    ).toBe(401);
  });

  it('reads a room from its showtime before anyone joins, changes it through sale control, and audits who did it', async () => {
    const showtimeId = edge.core.addShowtime();
    // Rooms exist with their showtime: the first read restores it from the core's copy.
    const first = await edge.call('GET', `/api/admin/showtimes/${showtimeId}/room`, admin);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      settings: { state: 'open', capacity: 200, version: 1 },
      saleState: 'on_sale',
      version: 1,
      audit: [],
    });
    expect((await edge.call('GET', '/api/admin/showtimes/999999999/room', admin)).status).toBe(404);
    expect(
      (await edge.call('PUT', '/api/admin/showtimes/999999999/room', { ...admin, body: { capacity: 3 } })).status,
    ).toBe(404);

    const opensAt = new Date(Date.now() + 3_600_000).toISOString();
    const changed = await edge.call('PUT', `/api/admin/showtimes/${showtimeId}/room`, {
      ...admin,
      headers: { 'x-operator': 'alice@ops' },
      body: { capacity: 7, admitPerMinute: 120, sessionTtlSeconds: 300, opensAt },
    });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({
      version: 2,
      settings: { capacity: 7, admitPerMinute: 120, sessionTtlSeconds: 300, opensAt, version: 2 },
    });
    const paused = await edge.call('PUT', `/api/admin/showtimes/${showtimeId}/room`, {
      ...admin,
      body: { state: 'paused' },
    });
    expect(paused.json).toMatchObject({ saleState: 'paused', version: 3, settings: { state: 'paused', capacity: 7 } });

    const audit = await edge.call('GET', `/api/admin/showtimes/${showtimeId}/room/audit`, admin);
    expect(audit.json.entries).toHaveLength(2);
    expect(audit.json.entries.map((entry: { version: number }) => entry.version)).toEqual([3, 2]);
    expect((await edge.call('GET', `/api/admin/showtimes/${showtimeId}/room`, admin)).json.audit).toHaveLength(2);
  });

  it('refuses bad settings with 4xx and changes nothing', async () => {
    const showtimeId = edge.core.addShowtime();
    await edge.configureRoom(showtimeId, { ...fastRoom, capacity: 3 });
    for (const body of [
      { capacity: -1 },
      { capacity: 'many' },
      { state: 'exploded' },
      {},
      { unknown: 1 },
      { opensAt: 'tomorrow' },
    ]) {
      const result = await edge.call('PUT', `/api/admin/showtimes/${showtimeId}/room`, { ...admin, body });
      expect(result.status).toBe(422);
    }
    expect(
      (await edge.call('PUT', `/api/admin/showtimes/${showtimeId}/room`, { ...admin, body: '{"capacity":' })).status,
    ).toBe(400);
    expect((await edge.call('GET', `/api/admin/showtimes/${showtimeId}/room`, admin)).json.settings.capacity).toBe(3);
    expect((await edge.call('GET', `/api/admin/showtimes/${showtimeId}/room/audit`, admin)).json.entries).toHaveLength(
      0,
    );
  });

  it('streams live stats as server-sent events', async () => {
    const showtimeId = edge.core.addShowtime();
    await edge.configureRoom(showtimeId, { ...fastRoom, capacity: 3 });
    const response = await edge.app.request(`/api/admin/showtimes/${showtimeId}/room/events`, {
      headers: { authorization: `Bearer ${EDGE_ADMIN_TOKEN}` },
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    let text = '';
    while ((text.match(/event: stats/g) ?? []).length < 2)
      text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const data = JSON.parse(/data: (.+)\n/.exec(text)![1]!);
    expect(data).toMatchObject({ showtimeId: String(showtimeId), stats: { active: 0 }, settings: { capacity: 3 } });
  });
});

describe('operator console sign-in', () => {
  const signIn = (token: string, client: string) =>
    edge.call('POST', '/admin/login', {
      rawBody: new URLSearchParams({ token }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-test-client': client },
    });

  it('locks an address out after ten wrong tokens, even for the right one; other addresses are not affected', async () => {
    for (let i = 0; i < 10; i++) {
      const wrong = await signIn(`guess-${i}-0123456789abcdef`, '203.0.113.7');
      expect(wrong.status).toBe(401);
      expect(wrong.text).toContain('not right');
    }
    expect((await signIn('guess-10-0123456789abcdef', '203.0.113.7')).status).toBe(429); // the 11th wrong one is refused
    const locked = await signIn(EDGE_ADMIN_TOKEN, '203.0.113.7');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(locked.text).toContain('Too many wrong tokens');
    const elsewhere = await signIn(EDGE_ADMIN_TOKEN, '198.51.100.9');
    expect(elsewhere.status).toBe(303);
    expect(elsewhere.headers.get('set-cookie')).toBeTruthy();
  });
});
