/**
 * A buyer's bookings through the edge after the turn: GET /api/bookings and the cancel with the
 * customer token (Bearer or the customer cookie), on the real stack (edge on Redis, core on this
 * run's PostgreSQL, the payment sandbox). The edge vouches for the customer to the core with a
 * customer access token; a lying client gets nothing of anyone else's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAccessToken } from '../../lib/access-token';
import { bookedThroughApi } from './pages/booked-through-api';
import { quickRoom, startBrowserStack, type BrowserStack } from './pages/browser-stack';
import { signCustomerToken, testTokenKeys } from './edge-harness';

let stack: BrowserStack;
beforeAll(async () => {
  stack = await startBrowserStack();
});
afterAll(async () => {
  await stack?.close();
});

async function showtimeWithRoom(startsInMs = 2 * 86_400_000) {
  const showtimeId = await stack.createShowtime({ startsAt: new Date(Date.now() + startsInMs) });
  await stack.configureRoom(showtimeId, quickRoom(20));
  return showtimeId;
}

const cookie = (name: string, value: string) => ({ cookie: `${name}=${value}` });

describe('bookings with the customer token, through the edge', () => {
  it("lists the buyer's bookings across showtimes with the customer token (Bearer or cookie); the turn token lists its showtime; none without a token", async () => {
    const first = await showtimeWithRoom();
    const second = await showtimeWithRoom();
    const a = await bookedThroughApi(stack, first, ['B1']);
    // The same customer, another showtime: join with the same customer token.
    const joined = await stack.api('POST', `/api/showtimes/${second}/queue`, { token: a.customerToken });
    expect(joined.json.state).toBe('admitted');
    const hold = await stack.api('POST', `/api/showtimes/${second}/holds`, {
      token: joined.json.accessToken,
      body: { seats: ['C2'] },
    });
    expect(hold.status).toBe(201);

    const listed = await stack.api('GET', '/api/bookings', { token: a.customerToken });
    expect(listed.status).toBe(200);
    expect(listed.json.bookings).toHaveLength(1);
    expect(listed.json.bookings[0]).toMatchObject({
      bookingId: a.bookingId,
      showtimeId: first,
      seats: ['B1'],
      status: 'CONFIRMED',
      cancellable: true,
      cancelPercent: 100,
    });
    const byCookie = await stack.api('GET', '/api/bookings', { headers: cookie('wr_customer', a.customerToken) });
    expect(byCookie.json).toEqual(listed.json);
    const byTurn = await stack.api('GET', '/api/bookings', { token: joined.json.accessToken });
    expect(byTurn.json.bookings).toEqual([]);
    const none = await stack.api('GET', '/api/bookings');
    expect(none.status).toBe(401);
    expect(none.json.error.code).toBe('MISSING_TOKEN');
    const junk = await stack.api('GET', '/api/bookings', { token: 'junk' });
    expect(junk.status).toBe(401);
  });

  it('cancels after the turn with the customer token: the preview first, then 200 with the refund, the same answer again; the seat is for sale at once', async () => {
    const showtimeId = await showtimeWithRoom(10 * 3_600_000);
    const b = await bookedThroughApi(stack, showtimeId, ['A3', 'A4']);
    const preview = await stack.api('GET', `/api/bookings/${b.bookingId}/cancellation`, { token: b.customerToken });
    expect(preview.json).toMatchObject({ cancellable: true, percent: 50, refundCents: 1250, amountCents: 2500 });
    const cancelled = await stack.api('DELETE', `/api/bookings/${b.bookingId}`, {
      headers: cookie('wr_customer', b.customerToken),
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({
      bookingId: b.bookingId,
      status: 'CANCELLED',
      refundCents: 1250,
      percent: 50,
      seats: ['A3', 'A4'],
    });
    const again = await stack.api('DELETE', `/api/bookings/${b.bookingId}`, { token: b.customerToken });
    expect(again.json).toEqual(cancelled.json);
    const seats =
      await stack.sql`SELECT status FROM show_seat WHERE showtime_id = ${showtimeId} AND seat_code IN ('A3', 'A4')`;
    expect(seats.map((s) => s.status)).toEqual(['AVAILABLE', 'AVAILABLE']);
  });

  it('a browser whose turn cookie has expired falls back to its customer cookie; an expired turn token as Bearer is refused as expired', async () => {
    const showtimeId = await showtimeWithRoom();
    const b = await bookedThroughApi(stack, showtimeId, ['C5']);
    const expired = await signAccessToken(await testTokenKeys(), {
      customerId: b.customerId,
      showtimeId,
      sessionId: 'old',
      expiresAtMs: Date.now() - 120_000,
    });
    const refused = await stack.api('GET', `/api/bookings/${b.bookingId}`, { token: expired });
    expect(refused.json.error.code).toBe('TOKEN_EXPIRED');
    const browser = await stack.api('GET', `/api/bookings/${b.bookingId}`, {
      headers: {
        cookie: `wr_a_${showtimeId}=${expired}; wr_customer=${b.customerToken}`,
        'x-showtime-id': String(showtimeId),
      },
    });
    expect(browser.status).toBe(200);
    expect(browser.json).toMatchObject({ bookingId: b.bookingId, status: 'CONFIRMED' });
  });

  it("someone else's booking: refused with 403 and nothing of it, whatever token or cookie mix the client sends; nothing changes", async () => {
    const showtimeId = await showtimeWithRoom();
    const b = await bookedThroughApi(stack, showtimeId, ['C6']);
    const stranger = await signCustomerToken(`stranger-${Date.now()}`);
    const attempts: { token?: string; headers?: Record<string, string> }[] = [
      { token: stranger },
      { headers: cookie('wr_customer', stranger) },
      // The owner's turn cookie named by the hint, with the stranger's customer cookie: a lent token.
      {
        headers: {
          cookie: `wr_a_${showtimeId}=${b.accessToken}; wr_customer=${stranger}`,
          'x-showtime-id': String(showtimeId),
        },
      },
      // The owner's turn token with the stranger's identity attached.
      { token: b.accessToken, headers: { 'x-customer-token': stranger } },
    ];
    for (const init of attempts) {
      const refused = await stack.api('DELETE', `/api/bookings/${b.bookingId}`, init);
      expect(refused.status).toBe(403);
      expect(JSON.stringify(refused.json)).not.toContain('C6');
    }
    expect((await stack.api('GET', '/api/bookings', { token: stranger })).json.bookings).toEqual([]);
    const [row] = await stack.sql`SELECT status FROM booking WHERE id = ${b.bookingId}`;
    expect(row!.status).toBe('CONFIRMED');
  });
});
