/**
 * Every operator write the edge sends the core names who made it, how they signed in and
 * from which address (the full address, not the /64 the limits count by), by either door:
 * the API with the admin token, or a console session, on the room, fare and sale routes.
 * The core writes the audit row from these (core/test/audit/operator-audit.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_COOKIE } from '../src/pages/admin-session';
import { createEdgeHarness, EDGE_ADMIN_TOKEN, type EdgeHarness } from './edge-harness';

let edge: EdgeHarness;
beforeAll(async () => {
  edge = await createEdgeHarness();
});
afterAll(() => edge?.close());

const CLIENT = '2001:DB8:aa:bb:0:0:0:5'; // written long-hand: the audit keeps it canonical

async function signIn(operator: string): Promise<string> {
  const result = await edge.call('POST', '/admin/login', {
    rawBody: new URLSearchParams({ token: EDGE_ADMIN_TOKEN, operator }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-test-client': CLIENT },
  });
  expect(result.status).toBe(303);
  return `${ADMIN_COOKIE}=${new RegExp(`${ADMIN_COOKIE}=([^;]+)`).exec(result.headers.get('set-cookie') ?? '')?.[1]}`;
}

const lastWrite = (path: string) => edge.core.operatorWrites.filter((w) => w.path === path).at(-1);

describe('operator writes name their actor, how they signed in, and their address', () => {
  it('API with the admin token: burst and bucket changes, fares', async () => {
    const showtimeId = edge.core.addShowtime();
    const changed = await edge.call('PUT', `/api/admin/showtimes/${showtimeId}/room`, {
      token: EDGE_ADMIN_TOKEN,
      body: { admitBurst: 9, customerBucketCapacity: 4 },
      headers: { 'x-test-client': CLIENT },
    });
    expect(changed.status).toBe(200);
    expect(lastWrite(`/admin/showtimes/${showtimeId}/room`)).toEqual({
      method: 'PUT',
      path: `/admin/showtimes/${showtimeId}/room`,
      actor: 'admin-token',
      via: 'token',
      source: '2001:db8:aa:bb::5',
    });
    const audit = await edge.call('GET', `/api/admin/showtimes/${showtimeId}/room/audit`, { token: EDGE_ADMIN_TOKEN });
    expect(audit.json.entries[0]).toMatchObject({ actorVia: 'token', source: '2001:db8:aa:bb::5' });

    await edge.call('PUT', `/api/admin/showtimes/${showtimeId}/fares/BOX`, {
      token: EDGE_ADMIN_TOKEN,
      body: { capacity: 10 },
      headers: { 'x-test-client': CLIENT },
    });
    expect(lastWrite(`/admin/showtimes/${showtimeId}/fares/BOX`)).toMatchObject({
      via: 'token',
      source: '2001:db8:aa:bb::5',
    });
  });

  it('console session: room changes and the sale settings, labelled console, with the address', async () => {
    const showtimeId = edge.core.addShowtime();
    const cookie = await signIn('erin');
    const changed = await edge.call('PUT', `/api/admin/showtimes/${showtimeId}/room`, {
      body: { capacity: 6 },
      headers: { cookie, 'x-console': '1', 'x-test-client': CLIENT },
    });
    expect(changed.status).toBe(200);
    expect(lastWrite(`/admin/showtimes/${showtimeId}/room`)).toMatchObject({
      actor: 'erin',
      via: 'console',
      source: '2001:db8:aa:bb::5',
    });
    const sale = await edge.call('PATCH', `/admin/showtimes/${showtimeId}/sale`, {
      body: { holdTtlSeconds: 300 },
      headers: { cookie, 'x-console': '1', 'x-test-client': CLIENT },
    });
    expect(sale.status).toBe(200);
    // The console's sale change used to carry the name only: no address, no label.
    expect(lastWrite(`/admin/showtimes/${showtimeId}`)).toMatchObject({
      method: 'PATCH',
      actor: 'erin',
      via: 'console',
      source: '2001:db8:aa:bb::5',
    });
  });
});
