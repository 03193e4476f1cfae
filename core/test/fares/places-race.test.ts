import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { testDatabaseUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { createCoreHarness, releasedTogether, unique, type CoreHarness } from '../core-harness';
import { classTotals, countMismatches, createPlacesClass } from './fare-harness';

let sql: Sql;
let harness: CoreHarness;

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 32, applicationName: 'test-places-race' });
  harness = await createCoreHarness(sql);
});
afterAll(async () => {
  await sql.end();
});

const BUYERS = 500;
const CAPACITY = 50;
const OVERBOOK = 3;

describe('general admission with controlled overbooking', () => {
  // Rounds alternate one counter row and ten bucket rows (the fallback across buckets is what
  // decides the last places when the buckets run dry one by one).
  it.each([
    [1, 1],
    [2, 10],
    [3, 1],
    [4, 10],
    [5, 10],
    [6, 1],
  ])(
    `round %i: ${BUYERS} buyers released together on capacity ${CAPACITY} + overbooking ${OVERBOOK} (%i buckets): exactly ${CAPACITY + OVERBOOK} held`,
    async (_round, buckets) => {
      const { showtimeId } = await harness.createShowtime({ layout: { rows: 1, columns: 4 } });
      await createPlacesClass(sql, {
        showtimeId,
        fareClass: 'GA_FLOOR',
        capacity: CAPACITY,
        overbookLimit: OVERBOOK,
        buckets,
      });
      const customers = Array.from({ length: BUYERS }, () => unique('ga'));
      const tokens = await Promise.all(customers.map((customer) => harness.tokenFor(customer, showtimeId)));

      const outcomes = await releasedTogether(BUYERS, async (i) => {
        const response = await harness.call('POST', `/showtimes/${showtimeId}/holds`, {
          token: tokens[i],
          body: { fareClass: 'GA_FLOOR', quantity: 1 },
        });
        return { status: response.status, code: response.json?.error?.code as string | undefined };
      });

      const won = outcomes.filter((o) => o.status === 201).length;
      expect(
        outcomes.filter((o) => o.status !== 201 && !(o.status === 409 && o.code === 'PLACES_UNAVAILABLE')),
      ).toEqual([]);
      expect(won).toBe(CAPACITY + OVERBOOK);
      const totals = await classTotals(sql, showtimeId, 'GA_FLOOR');
      expect(totals).toMatchObject({
        capacity: CAPACITY,
        overbook_limit: OVERBOOK,
        held: CAPACITY + OVERBOOK,
        sold: 0,
        rows: buckets,
      });
      const [holds] = await sql<{ places: number }[]>`
      SELECT coalesce(sum(quantity), 0)::int AS places FROM seat_hold WHERE showtime_id = ${showtimeId} AND status = 'ACTIVE'`;
      expect(holds!.places).toBe(CAPACITY + OVERBOOK);
      expect(await countMismatches(sql, showtimeId)).toEqual([]);
    },
  );

  it('buyers asking for several places each: never more than the limit, and the last places still go', async () => {
    const { showtimeId } = await harness.createShowtime({ layout: { rows: 1, columns: 4 } });
    await createPlacesClass(sql, {
      showtimeId,
      fareClass: 'GA',
      capacity: CAPACITY,
      overbookLimit: OVERBOOK,
      buckets: 10,
    });
    const asks = Array.from({ length: 200 }, (_, i) => 1 + (i % 4));
    const tokens = await Promise.all(asks.map(() => harness.tokenFor(unique('ga-n'), showtimeId)));
    const outcomes = await releasedTogether(
      asks.length,
      async (i) =>
        (
          await harness.call('POST', `/showtimes/${showtimeId}/holds`, {
            token: tokens[i],
            body: { fareClass: 'GA', quantity: asks[i] },
          })
        ).status,
    );
    const placesWon = outcomes.reduce((sum, status, i) => sum + (status === 201 ? asks[i]! : 0), 0);
    expect(outcomes.every((status) => status === 201 || status === 409)).toBe(true);
    expect(placesWon).toBeLessThanOrEqual(CAPACITY + OVERBOOK);
    // Refusals only once fewer places were left than the smallest ask that lost.
    const smallestLoser = Math.min(...asks.filter((_, i) => outcomes[i] === 409));
    expect(CAPACITY + OVERBOOK - placesWon).toBeLessThan(smallestLoser);
    expect((await classTotals(sql, showtimeId, 'GA')).held).toBe(placesWon);
    expect(await countMismatches(sql, showtimeId)).toEqual([]);
  });

  /**
   * The control experiment: the same release of 500 buyers, but each reads the counter and then
   * writes what it read plus one (read-then-write instead of the conditional UPDATE). If this
   * never let more buyers believe they won than there are places, the harness would not be
   * producing a race and the test above would prove nothing.
   */
  it('a naive read-then-write counter lets more than capacity + overbooking believe they won, under the same harness', async () => {
    let roundsOversold = 0;
    for (let round = 0; round < 3; round++) {
      const { showtimeId } = await harness.createShowtime({ layout: { rows: 1, columns: 4 } });
      await createPlacesClass(sql, { showtimeId, fareClass: 'NAIVE', capacity: CAPACITY, overbookLimit: OVERBOOK });
      const believed = await releasedTogether(BUYERS, async () => {
        const [row] = await sql<{ held: number; limit: number }[]>`
          SELECT held, capacity + overbook_limit AS limit FROM fare_inventory WHERE showtime_id = ${showtimeId} AND fare_class = 'NAIVE'`;
        if (row!.held >= row!.limit) return false;
        await sql`UPDATE fare_inventory SET held = ${row!.held + 1} WHERE showtime_id = ${showtimeId} AND fare_class = 'NAIVE'`;
        return true;
      });
      if (believed.filter(Boolean).length > CAPACITY + OVERBOOK) roundsOversold++;
    }
    expect(roundsOversold).toBeGreaterThan(0);
  });

  it('the CHECK refuses a hand-written oversell, whatever the code above it does', async () => {
    const { showtimeId } = await harness.createShowtime({ layout: { rows: 1, columns: 4 } });
    await createPlacesClass(sql, { showtimeId, fareClass: 'GA', capacity: 5, overbookLimit: 1 });
    await expect(
      sql`UPDATE fare_inventory SET held = 7 WHERE showtime_id = ${showtimeId} AND fare_class = 'GA'`,
    ).rejects.toMatchObject({ code: '23514', constraint_name: 'fare_inventory_within_limit' });
    await expect(
      sql`UPDATE fare_inventory SET sold = 4, held = 3 WHERE showtime_id = ${showtimeId} AND fare_class = 'GA'`,
    ).rejects.toMatchObject({ code: '23514' });
    // Exactly at the limit is allowed; a seated class cannot be overbooked at all.
    await sql`UPDATE fare_inventory SET sold = 3, held = 3 WHERE showtime_id = ${showtimeId} AND fare_class = 'GA'`;
    await expect(
      sql`UPDATE fare_inventory SET overbook_limit = 1 WHERE showtime_id = ${showtimeId} AND fare_class = 'STANDARD' AND bucket = 0`,
    ).rejects.toMatchObject({ code: '23514', constraint_name: 'fare_inventory_overbook_unseated' });
    // And a seat booked behind the counters' back cannot push a seated class past its seats.
    await expect(
      sql`UPDATE fare_inventory SET held = capacity + 1 WHERE showtime_id = ${showtimeId} AND fare_class = 'STANDARD'`,
    ).rejects.toMatchObject({ code: '23514' });
  });
});
