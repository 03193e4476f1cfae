/**
 * A leave the core misses is told again: a buyer who leaves while the core is away is gone
 * from Redis at once, and the turn ledger hears of it on the edge's next sync pass (only the
 * turns granted before the leave end, so a turn the buyer has been given since stays live).
 * Left stale, the ledger would count more live turns than the room holds and give them back
 * with a room Redis lost (the fault suite's "kill -9 core" found 77 live turns under a cap of 60).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEdgeHarness, fastRoom, type EdgeHarness } from './edge-harness';

let h: EdgeHarness;
let turnEndsDown = false;

beforeAll(async () => {
  h = await createEdgeHarness({
    coreFetch: (stub) =>
      (async (input: string | URL | Request, init?: RequestInit) => {
        const request = new Request(input, init);
        if (turnEndsDown && new URL(request.url).pathname.endsWith('/turns/end')) {
          return Response.json({ error: { code: 'DATABASE_UNAVAILABLE', message: 'down' } }, { status: 503 });
        }
        return stub.fetch(input, init);
      }) as typeof fetch,
  });
});
afterAll(async () => h?.close());

async function admitted(showtimeId: number, customerId: string): Promise<string> {
  const { token } = await h.login(customerId);
  const joined = await h.join(showtimeId, token);
  expect({ status: joined.status, json: joined.json }).toMatchObject({ json: { state: 'admitted' } });
  return token;
}

const live = (showtimeId: number) =>
  h.core
    .liveTurns(showtimeId)
    .map((turn) => turn.customerId)
    .sort();

describe('a leave the core missed', () => {
  it('is told on the next sync pass; until then the ledger still counts the turn live', async () => {
    const showtimeId = h.core.addShowtime();
    await h.configureRoom(showtimeId, { ...fastRoom, capacity: 3 });
    const token = await admitted(showtimeId, 'retry-ann');
    expect(live(showtimeId)).toEqual(['retry-ann']);

    turnEndsDown = true;
    const left = await h.call('DELETE', `/api/showtimes/${showtimeId}/queue`, { token });
    expect(left.status).toBe(200);
    expect(left.json.removed).toBe(true);
    // Without the retry this is where it stayed: a live turn nobody holds.
    expect(live(showtimeId)).toEqual(['retry-ann']);
    expect(h.app.catalog.pendingTurnEnds()).toBe(1);

    await h.app.catalog.syncAll().catch(() => 0);
    expect(live(showtimeId)).toEqual(['retry-ann']); // still down: kept for the next pass
    turnEndsDown = false;
    await h.app.catalog.syncAll();
    expect(live(showtimeId)).toEqual([]);
    expect(h.app.catalog.pendingTurnEnds()).toBe(0);
  });

  it('does not end a turn the buyer was given after leaving', async () => {
    const showtimeId = h.core.addShowtime();
    await h.configureRoom(showtimeId, { ...fastRoom, capacity: 3 });
    const token = await admitted(showtimeId, 'retry-ben');
    turnEndsDown = true;
    expect((await h.call('DELETE', `/api/showtimes/${showtimeId}/queue`, { token })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const again = await h.join(showtimeId, token);
    expect(again.json.state).toBe('admitted');
    turnEndsDown = false;
    await h.app.catalog.syncAll();
    // The first turn ended, the one granted after the leave is still live.
    expect(live(showtimeId)).toEqual(['retry-ben']);
    expect(h.core.liveTurns(showtimeId).length).toBe(1);
  });
});
