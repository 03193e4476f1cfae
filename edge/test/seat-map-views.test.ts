/**
 * The edge's seat-map cache holds the full map and the compact view (`?view=available`, for
 * load clients) apart: one never answers for the other. An unknown view is refused at the edge
 * (422) before the core is asked, so junk queries cannot multiply cache entries or core calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAccessToken } from '../../lib/access-token';
import { createEdgeHarness, fastRoom, testTokenKeys, type EdgeHarness } from './edge-harness';

let edge: EdgeHarness;
let showtimeId: number;

beforeAll(async () => {
  // A long cache life: every read after the first of each view must come from the cache.
  edge = await createEdgeHarness({ env: { SEAT_MAP_TTL_MS: '60000' } });
  showtimeId = edge.core.addShowtime();
  await edge.configureRoom(showtimeId, { ...fastRoom, capacity: 50 });
});
afterAll(() => edge?.close());

const token = async () =>
  signAccessToken(await testTokenKeys(), {
    customerId: 'views-a',
    showtimeId,
    sessionId: 's',
    expiresAtMs: Date.now() + 60_000,
  });

describe('seat-map views at the edge', () => {
  it('caches the full map and the compact view apart, and passes only the view to the core', async () => {
    const access = await token();
    const full = await edge.call('GET', `/api/showtimes/${showtimeId}/seats`, { token: access });
    const compact = await edge.call('GET', `/api/showtimes/${showtimeId}/seats?view=available&junk=1`, {
      token: access,
    });
    const fullAgain = await edge.call('GET', `/api/showtimes/${showtimeId}/seats?junk=2`, { token: access });
    const compactAgain = await edge.call('GET', `/api/showtimes/${showtimeId}/seats?view=available`, { token: access });
    expect([full.status, compact.status, fullAgain.status, compactAgain.status]).toEqual([200, 200, 200, 200]);
    expect(full.json).toMatchObject({ view: null, query: '' });
    expect(compact.json).toMatchObject({ view: 'available', query: '?view=available' });
    expect(fullAgain.json).toEqual(full.json);
    expect(compactAgain.json).toEqual(compact.json);
    expect(edge.core.seatMapReads).toBe(2);
  });

  it('refuses an unknown view with 422 without asking the core', async () => {
    const access = await token();
    const before = edge.core.seatMapReads;
    for (const view of ['full', 'AVAILABLE', '']) {
      const answer = await edge.call('GET', `/api/showtimes/${showtimeId}/seats?view=${view}`, { token: access });
      expect(answer.status).toBe(422);
      expect(answer.json.error.code).toBe('VALIDATION_FAILED');
    }
    expect(edge.core.seatMapReads).toBe(before);
  });
});
