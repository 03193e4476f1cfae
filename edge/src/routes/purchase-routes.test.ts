/**
 * The buyer's purchase routes in process on the in-memory store and the stub core (no server):
 * the showtime list, seat map, holds, checkout, bookings and the payment callback, each with its
 * success answer and its main refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEdgeHarness, fastRoom, type EdgeHarness } from '../../test/edge-harness';

let edge: EdgeHarness;

beforeAll(async () => {
  edge = await createEdgeHarness({ store: 'memory' });
});
afterAll(async () => {
  await edge?.close();
});

/** An admitted buyer of a fresh showtime: the access token of the turn, and the customer token. */
async function admitted(name: string) {
  const showtimeId = edge.core.addShowtime();
  await edge.configureRoom(showtimeId, fastRoom);
  const { token } = await edge.login(`${name}-${showtimeId}`);
  const joined = await edge.join(showtimeId, token);
  expect(joined.json.state).toBe('admitted');
  return { showtimeId, token, access: joined.json.accessToken as string };
}

describe('GET /api/showtimes', () => {
  it("lists the core's showtimes, and says 503 with Retry-After when the core is away and nothing is cached", async () => {
    edge.core.addShowtime();
    const list = await edge.call('GET', '/api/showtimes');
    expect(list.status).toBe(200);
    expect(Array.isArray(list.json) && list.json.length).toBeGreaterThan(0);
    const away = await createEdgeHarness({
      store: 'memory',
      coreFetch: () => async () => new Response('down', { status: 503 }),
    });
    const refused = await away.call('GET', '/api/showtimes');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBeTruthy();
  });
});

describe('GET /api/showtimes/:id/seats', () => {
  it('answers the seat map for an admitted buyer', async () => {
    const { showtimeId, access } = await admitted('seats');
    const seats = await edge.call('GET', `/api/showtimes/${showtimeId}/seats`, { token: access });
    expect(seats.status).toBe(200);
    expect(seats.json.showtimeId).toBe(showtimeId);
    expect(seats.headers.get('x-seat-map-age-ms')).toMatch(/^\d+$/);
  });

  it("refuses without a token (401), another showtime's token (403) and an unknown view (422)", async () => {
    const { showtimeId, access } = await admitted('seats-refused');
    const other = await admitted('seats-other');
    expect((await edge.call('GET', `/api/showtimes/${showtimeId}/seats`)).json.error.code).toBe('MISSING_TOKEN');
    const wrong = await edge.call('GET', `/api/showtimes/${other.showtimeId}/seats`, { token: access });
    expect([wrong.status, wrong.json.error.code]).toEqual([403, 'WRONG_SHOWTIME']);
    const view = await edge.call('GET', `/api/showtimes/${showtimeId}/seats?view=everything`, { token: access });
    expect([view.status, view.json.error.code]).toEqual([422, 'VALIDATION_FAILED']);
  });
});

describe('holds and checkout', () => {
  it('holds, reads, checks out and cancels a hold', async () => {
    const { showtimeId, access } = await admitted('hold');
    const hold = await edge.call('POST', `/api/showtimes/${showtimeId}/holds`, {
      token: access,
      body: { seats: ['A1'] },
    });
    expect(hold.status).toBe(201);
    const holdId = hold.json.holdId as string;
    expect((await edge.call('GET', `/api/holds/${holdId}`, { token: access })).json).toMatchObject({
      holdId,
      seats: ['A1'],
    });
    const checkout = await edge.call('POST', `/api/holds/${holdId}/checkout`, {
      token: access,
      body: {},
      headers: { 'idempotency-key': `k-${holdId}` },
    });
    expect(checkout.status).toBe(201);
    expect(checkout.json.checkoutUrl).toEqual(expect.any(String));
    expect((await edge.call('DELETE', `/api/holds/${holdId}`, { token: access })).status).toBe(204);
  });

  it('refuses a hold without a token (401), with a body that is not JSON (400), a malformed hold id (404) and a checkout without a key (400)', async () => {
    const { showtimeId, access } = await admitted('hold-refused');
    expect((await edge.call('POST', `/api/showtimes/${showtimeId}/holds`, { body: { seats: ['A1'] } })).status).toBe(
      401,
    );
    const broken = await edge.call('POST', `/api/showtimes/${showtimeId}/holds`, {
      token: access,
      rawBody: '{"seats":',
      headers: { 'content-type': 'application/json' },
    });
    expect([broken.status, broken.json.error.code]).toEqual([400, 'MALFORMED_JSON']);
    const malformed = await edge.call('GET', '/api/holds/not%20an%20id', { token: access });
    expect([malformed.status, malformed.json.error.code]).toEqual([404, 'HOLD_NOT_FOUND']);
    const hold = await edge.call('POST', `/api/showtimes/${showtimeId}/holds`, {
      token: access,
      body: { seats: ['A2'] },
    });
    const keyless = await edge.call('POST', `/api/holds/${hold.json.holdId}/checkout`, { token: access, body: {} });
    expect([keyless.status, keyless.json.error.code]).toEqual([400, 'IDEMPOTENCY_KEY_REQUIRED']);
    const stranger = await admitted('hold-stranger');
    expect((await edge.call('DELETE', `/api/holds/${hold.json.holdId}`, { token: stranger.access })).status).toBe(403);
  });
});

describe('bookings', () => {
  it("lists, reads, prices the cancellation of and cancels a buyer's booking, with the customer token", async () => {
    const { token } = await edge.login('booker');
    expect((await edge.call('GET', '/api/bookings', { token })).json).toEqual({ bookings: [] });
    const { access } = await admitted('booking-read');
    expect((await edge.call('GET', '/api/bookings/bk_1', { token: access })).json).toEqual({ bookingId: 'bk_1' });
    expect((await edge.call('GET', '/api/bookings/bk_1/cancellation', { token })).json).toMatchObject({
      bookingId: 'bk_1',
    });
    expect((await edge.call('DELETE', '/api/bookings/bk_1', { token })).json).toMatchObject({ status: 'CANCELLED' });
  });

  it('refuses without a token (401), with a forged one (401) and a malformed booking id (404)', async () => {
    expect((await edge.call('GET', '/api/bookings')).status).toBe(401);
    expect((await edge.call('GET', '/api/bookings', { token: 'forged.token.here' })).status).toBe(401);
    const { token } = await edge.login('booker-2');
    const malformed = await edge.call('DELETE', `/api/bookings/${'x'.repeat(101)}`, { token });
    expect([malformed.status, malformed.json.error.code]).toEqual([404, 'BOOKING_NOT_FOUND']);
  });
});

describe('POST /api/payments/callback', () => {
  it('relays the raw body and its signature to the core, byte for byte', async () => {
    const raw = '{"id":"evt_1",  "type":"payment.succeeded"}';
    const relayed = await edge.call('POST', '/api/payments/callback', {
      rawBody: raw,
      headers: { 'content-type': 'application/json', 'x-signature': 't=1,v1=abc' },
    });
    expect(relayed.status).toBe(200);
    expect(relayed.json).toEqual({ received: raw, signature: 't=1,v1=abc' });
  });

  it('refuses a body over the limit (413) without reaching the core', async () => {
    const before = edge.core.received.length;
    const big = await edge.call('POST', '/api/payments/callback', {
      rawBody: `{"pad":"${'x'.repeat(2_000_000)}"}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(big.status).toBe(413);
    expect(edge.core.received.length).toBe(before);
  });
});
