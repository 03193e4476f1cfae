/**
 * The pages' routes in process on the in-memory store and the stub core (no server): the
 * buyer pages, the leave beacon, the assets, and the console (sign-in, rooms, one room, its
 * sale settings, its live stream, sign-out, fares), each with its success answer and its main
 * refusals. What the pages do in a browser is tested in Chromium (edge/test/pages/).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEdgeHarness, EDGE_ADMIN_TOKEN, fastRoom, type EdgeHarness } from '../../test/edge-harness';

let edge: EdgeHarness;
/** Made before any page reads the core's list: the edge caches it for a second. */
let listed: number;
let beacon: number;
let address = 0;
const fresh = () => `10.3.0.${++address}`;

beforeAll(async () => {
  edge = await createEdgeHarness({ store: 'memory' });
  listed = edge.core.addShowtime();
  beacon = edge.core.addShowtime();
  await edge.configureRoom(beacon, fastRoom);
});
afterAll(async () => {
  await edge?.close();
});

const page = (path: string, headers: Record<string, string> = {}, init: RequestInit = {}) =>
  edge.app.request(path, { ...init, headers: { accept: 'text/html', 'x-test-client': fresh(), ...headers } });

/** A signed-in console session: its cookie and the CSRF token its pages carry. */
async function signIn(operator = 'Pat Operator') {
  const form = new URLSearchParams({ token: EDGE_ADMIN_TOKEN, operator });
  const response = await page(
    '/admin/login',
    { 'content-type': 'application/x-www-form-urlencoded' },
    { method: 'POST', body: form.toString() },
  );
  expect([response.status, response.headers.get('location')]).toEqual([303, '/admin']);
  const cookie = /wr_admin=[^;]+/.exec(response.headers.get('set-cookie') ?? '')![0];
  const rooms = await (await page('/admin', { cookie })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(rooms)![1]!;
  return { cookie, csrf };
}

describe('buyer pages', () => {
  it('lists the showtimes and shows one showtime; an unknown one is a 404 page', async () => {
    const showtimeId = listed;
    const list = await page('/');
    expect([list.status, list.headers.get('content-security-policy')]).toEqual([
      200,
      expect.stringContaining("default-src 'none'"),
    ]);
    expect(await list.text()).toContain(`Stub showtime ${showtimeId}`);
    const sale = await page(`/showtimes/${showtimeId}`);
    expect(sale.status).toBe(200);
    expect(await sale.text()).toContain('data-view=');
    expect((await page('/showtimes/999999999')).status).toBe(404);
    expect((await page('/showtimes/not-a-number')).status).toBe(404);
  });

  it('says the service is busy (503, Retry-After) when the core is away', async () => {
    const away = await createEdgeHarness({
      store: 'memory',
      coreFetch: () => async () => new Response('', { status: 503 }),
    });
    const busy = await away.app.request('/', { headers: { accept: 'text/html' } });
    expect([busy.status, busy.headers.get('retry-after')]).toEqual([503, '5']);
  });

  it('shows the bookings page, serves assets, and answers an unknown asset 404 and an unknown page with a page', async () => {
    expect((await page('/bookings')).status).toBe(200);
    const html = await (await page('/')).text();
    const asset = /\/assets\/([^"]+\.js)/.exec(html)![1]!;
    const script = await page(`/assets/${asset}`);
    expect([script.status, script.headers.get('cache-control')]).toEqual([200, 'public, max-age=31536000, immutable']);
    expect((await page('/assets/nothing.js')).status).toBe(404);
    const missing = await page('/no-such-page');
    expect([missing.status, missing.headers.get('content-type')]).toEqual([404, expect.stringContaining('text/html')]);
  });

  it("takes a leave beacon from the page's view (202) and ignores one without a customer or view (204)", async () => {
    const showtimeId = beacon;
    const { token } = await edge.login(`beacon-${showtimeId}`);
    const cookie = `wr_customer=${token}`;
    const sale = await (await page(`/showtimes/${showtimeId}`, { cookie })).text();
    const view = /data-view="([^"]+)"/.exec(sale)![1]!;
    expect((await page(`/showtimes/${showtimeId}/leave?view=${view}`, { cookie }, { method: 'POST' })).status).toBe(
      202,
    );
    expect((await page(`/showtimes/${showtimeId}/leave?view=${view}`, {}, { method: 'POST' })).status).toBe(204);
    expect((await page(`/showtimes/${showtimeId}/leave?view=bad`, { cookie }, { method: 'POST' })).status).toBe(204);
  });
});

describe('operator console pages', () => {
  it('shows the sign-in form, refuses a wrong token in words, and signs in with the right one', async () => {
    const login = await page('/admin');
    expect(await login.text()).toContain('Admin token');
    const wrong = await page(
      '/admin/login',
      { 'content-type': 'application/x-www-form-urlencoded' },
      { method: 'POST', body: 'token=nope&operator=Pat' },
    );
    expect([wrong.status, wrong.headers.get('set-cookie')]).toEqual([401, null]);
    expect(await wrong.text()).toContain('That admin token is not right');
    const { cookie } = await signIn();
    expect(await (await page('/admin', { cookie })).text()).toContain('Waiting rooms');
  });

  it("shows one room with every setting's input; without a session it sends the operator to sign in; an unknown room is a 404 page", async () => {
    const showtimeId = edge.core.addShowtime();
    await edge.configureRoom(showtimeId, fastRoom);
    const { cookie } = await signIn();
    const roomPage = await page(`/admin/showtimes/${showtimeId}`, { cookie });
    expect(roomPage.status).toBe(200);
    const html = await roomPage.text();
    for (const id of [
      'capacity',
      'admitBurst',
      'powDifficulty',
      'powMaxDifficulty',
      'placesPerAddress',
      'customerBucketCapacity',
      'adaptiveAdmission',
      'holdTtlSeconds',
    ]) {
      expect(html, id).toContain(`id="${id}"`);
    }
    const signedOut = await page(`/admin/showtimes/${showtimeId}`);
    expect([signedOut.status, signedOut.headers.get('location')]).toEqual([303, '/admin']);
    expect((await page('/admin/showtimes/999999999', { cookie })).status).toBe(404);
  });

  it('changes the sale settings with the console header, and refuses them without a session (401), the header (403) or in bounds (422)', async () => {
    const showtimeId = edge.core.addShowtime();
    const { cookie } = await signIn();
    const patch = (body: unknown, headers: Record<string, string>) =>
      edge.call('PATCH', `/admin/showtimes/${showtimeId}/sale`, {
        body,
        headers: { 'x-test-client': fresh(), ...headers },
      });
    const changed = await patch({ holdTtlSeconds: 120 }, { cookie, 'x-console': '1' });
    expect([changed.status, changed.json]).toEqual([200, { holdTtlSeconds: 120, maxSeatsPerCustomer: 4 }]);
    expect((await patch({ holdTtlSeconds: 120 }, {})).status).toBe(401);
    expect((await patch({ holdTtlSeconds: 120 }, { cookie })).json.error.code).toBe('CONSOLE_HEADER_REQUIRED');
    expect((await patch({ holdTtlSeconds: 5 }, { cookie, 'x-console': '1' })).status).toBe(422);
    // A JSON route refuses another media type (415), as every JSON route does.
    const asText = await patch('{"holdTtlSeconds":120}', { cookie, 'x-console': '1', 'content-type': 'text/plain' });
    expect([asText.status, asText.json.error.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  });

  it('streams the room live to a session (the settings in the public view), and refuses it without one (401)', async () => {
    const showtimeId = edge.core.addShowtime();
    await edge.configureRoom(showtimeId, { ...fastRoom, powDifficulty: 3 });
    const { cookie } = await signIn();
    const controller = new AbortController();
    const response = await edge.app.request(`/admin/showtimes/${showtimeId}/live`, {
      headers: { cookie },
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await reader.cancel();
    const data = JSON.parse(/data: (.+)/.exec(text)![1]!);
    expect(data.room.settings).toMatchObject({ powDifficulty: 3, placesPerAddress: 100_000 });
    expect((await edge.call('GET', `/admin/showtimes/${showtimeId}/live`)).status).toBe(401);
  });

  it("shows the fares page to a session and sends others to sign in; signs out only with the session's CSRF token", async () => {
    const showtimeId = edge.core.addShowtime();
    const { cookie, csrf } = await signIn();
    const fares = await page(`/admin/showtimes/${showtimeId}/fares`, { cookie });
    expect([fares.status, await fares.text()]).toEqual([200, expect.stringContaining('Fares and refunds')]);
    expect((await page(`/admin/showtimes/${showtimeId}/fares`)).status).toBe(303);
    const form = { 'content-type': 'application/x-www-form-urlencoded', cookie };
    expect((await page('/admin/logout', form, { method: 'POST', body: 'csrf=forged' })).status).toBe(403);
    const out = await page('/admin/logout', form, { method: 'POST', body: `csrf=${encodeURIComponent(csrf)}` });
    expect([out.status, out.headers.get('location')]).toEqual([303, '/admin']);
    expect(await (await page('/admin', { cookie })).text()).toContain('Admin token');
  });
});
