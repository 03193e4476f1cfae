/**
 * Never more than N admitted: 500 buyers released together on one room of capacity N join
 * and poll concurrently through the edge on the real Redis; the access tokens handed out
 * never exceed N, and neither do the room's live sessions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEdgeHarness, fastRoom, type EdgeHarness } from './edge-harness';

let edge: EdgeHarness;
beforeAll(async () => {
  edge = await createEdgeHarness();
});
afterAll(() => edge?.close());

async function releasedTogether<T>(count: number, task: (index: number) => Promise<T>): Promise<T[]> {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const running = Array.from({ length: count }, (_, index) => gate.then(() => task(index)));
  open();
  return Promise.all(running);
}

describe('admission cap', () => {
  it('admits at most N of 500 concurrent buyers, and exactly N once they all poll', async () => {
    const capacity = 25;
    const showtimeId = edge.core.addShowtime();
    await edge.configureRoom(showtimeId, { ...fastRoom, capacity, sessionTtlMs: 120_000 });
    const logins = await Promise.all(Array.from({ length: 500 }, (_, i) => edge.login(`cap-${showtimeId}-${i}`)));

    const admitted = new Set<string>();
    const joins = await releasedTogether(500, async (i) => {
      const result = await edge.join(showtimeId, logins[i]!.token);
      expect(result.status).toBe(200);
      if (result.json.accessToken) admitted.add(logins[i]!.customerId);
      return result.json.queueToken as string;
    });
    expect(admitted.size).toBeLessThanOrEqual(capacity);

    // Three rounds of everyone polling at once (the snapshot answers most of them).
    for (let round = 0; round < 3; round++) {
      await releasedTogether(500, async (i) => {
        const result = await edge.poll(showtimeId, joins[i]!);
        expect([200]).toContain(result.status);
        if (result.json.accessToken) admitted.add(logins[i]!.customerId);
      });
      const stats = await edge.deps.engine.stats(String(showtimeId));
      if (!stats.ok) throw new Error(stats.code);
      expect(stats.active + stats.offered).toBeLessThanOrEqual(capacity);
      expect(admitted.size).toBeLessThanOrEqual(capacity);
    }
    expect(admitted.size).toBe(capacity);
    expect(edge.metrics.admissions.get()).toBeGreaterThanOrEqual(capacity);
  });
});
