/**
 * The booking gate's customer path in process: a flood of customer-token requests from one
 * address is cut off with 429 and Retry-After before any token is verified, a turn's token is
 * not counted there, and what the core receives is a customer access token, never the
 * customer token itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_ACCESS_TOKEN_TYPE, tokenTypeOf } from '../../../lib/customer-access-token';
import { createMemoryFloodLimiter } from '../limits/flood-limiter';
import { createEdgeHarness, type EdgeHarness } from '../../test/edge-harness';

let h: EdgeHarness;
const seen: (string | null)[] = [];

beforeAll(async () => {
  h = await createEdgeHarness({
    store: 'memory',
    floodLimiter: createMemoryFloodLimiter({ points: 3, windowMs: 60_000 }),
    coreFetch: (stub) => async (input, init) => {
      const url = new URL(String(input));
      if (url.pathname === '/bookings') {
        seen.push(new Headers(init?.headers).get('authorization'));
        return Response.json({ customerId: 'x', bookings: [] });
      }
      return stub.fetch(input, init);
    },
  });
});
afterAll(async () => {
  await h.close();
});

describe('booking gate: the customer path', () => {
  it('sends the core a customer access token, and cuts a flood from one address off with 429 before verifying anything', async () => {
    const { token } = await h.login('gate-customer');
    const first = await h.call('GET', '/api/bookings', { token, headers: { 'x-test-client': '10.0.0.1' } });
    expect(first.status).toBe(200);
    const forwarded = seen.at(-1)!.replace(/^Bearer /, '');
    expect(tokenTypeOf(forwarded)).toBe(CUSTOMER_ACCESS_TOKEN_TYPE);
    expect(forwarded).not.toBe(token);
    await h.call('GET', '/api/bookings', { token: 'junk', headers: { 'x-test-client': '10.0.0.1' } });
    await h.call('GET', '/api/bookings', { token: 'junk', headers: { 'x-test-client': '10.0.0.1' } });
    const cut = await h.call('GET', '/api/bookings', { token, headers: { 'x-test-client': '10.0.0.1' } });
    expect(cut.status).toBe(429);
    expect(cut.json.error.code).toBe('RATE_LIMITED');
    expect(Number(cut.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not affected.
    expect((await h.call('GET', '/api/bookings', { token, headers: { 'x-test-client': '10.0.0.2' } })).status).toBe(
      200,
    );
    expect(seen).toHaveLength(2);
  });
});
