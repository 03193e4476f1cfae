import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { testDatabaseUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { holdPlaces } from '../../src/fares/fare-repo';
import { createCoreHarness, unique, type CoreHarness } from '../core-harness';
import { countMismatches, createPlacesClass } from './fare-harness';

let sql: Sql;
let harness: CoreHarness;
let showtimeId: number;

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 4, applicationName: 'test-bucket-fallback' });
  harness = await createCoreHarness(sql);
  ({ showtimeId } = await harness.createShowtime({ layout: { rows: 1, columns: 2 }, maxSeatsPerCustomer: 50 }));
});
afterAll(async () => {
  await sql.end();
});

interface Row {
  bucket: number;
  capacity: number;
  overbook_limit: number;
  held: number;
  sold: number;
}
const rowsOf = (fareClass: string) => sql<Row[]>`
  SELECT bucket, capacity, overbook_limit, held, sold FROM fare_inventory
   WHERE showtime_id = ${showtimeId} AND fare_class = ${fareClass} ORDER BY bucket`;
const free = (rows: Row[]) => rows.reduce((sum, r) => sum + r.capacity + r.overbook_limit - r.sold - r.held, 0);

let classCounter = 0;

/**
 * Whatever the buckets' shares and fill: a hold of q places succeeds exactly when the class has
 * q places free in total (so a class is never refused while it has room spread over buckets),
 * takes exactly q, never takes from a row more than that row had free, and a refusal changes
 * nothing.
 */
it('bucket fallback: takes q places iff q are free in total, from rows with room, all or nothing', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.record({
        capacity: fc.integer({ min: 0, max: 40 }),
        overbook: fc.integer({ min: 0, max: 5 }),
        buckets: fc.integer({ min: 1, max: 8 }),
        prefill: fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 12 }),
        ask: fc.integer({ min: 1, max: 12 }),
      }),
      async ({ capacity, overbook, buckets, prefill, ask }) => {
        const fareClass = `P${++classCounter}`;
        await createPlacesClass(sql, { showtimeId, fareClass, capacity, overbookLimit: overbook, buckets });
        // Fill the buckets unevenly with earlier holds (each lands in a random bucket first).
        for (const quantity of prefill) {
          await holdPlaces(sql, {
            showtimeId,
            customerId: unique('fill'),
            fareClass,
            quantity,
            holdId: randomUUID(),
          }).catch(() => null);
        }
        const before = await rowsOf(fareClass);
        const holdId = randomUUID();
        const outcome = await holdPlaces(sql, {
          showtimeId,
          customerId: unique('ask'),
          fareClass,
          quantity: ask,
          holdId,
        }).then(
          () => 'held' as const,
          (error: { code?: string }) => error.code,
        );
        const after = await rowsOf(fareClass);
        const allocations = await sql<{ bucket: number; quantity: number }[]>`
          SELECT bucket, quantity FROM hold_allocation WHERE hold_id = ${holdId}`;

        if (free(before) >= ask) {
          expect(outcome).toBe('held');
          expect(allocations.reduce((sum, a) => sum + a.quantity, 0)).toBe(ask);
          for (const a of allocations) {
            const row = before.find((r) => r.bucket === a.bucket)!;
            expect(a.quantity).toBeLessThanOrEqual(row.capacity + row.overbook_limit - row.sold - row.held);
          }
          expect(free(after)).toBe(free(before) - ask);
        } else {
          expect(outcome).toBe('WRS09');
          expect(allocations).toEqual([]);
          expect(after).toEqual(before);
        }
        for (const row of after) expect(row.sold + row.held).toBeLessThanOrEqual(row.capacity + row.overbook_limit);
        expect(after.reduce((s, r) => s + r.capacity, 0)).toBe(capacity);
        expect(after.reduce((s, r) => s + r.overbook_limit, 0)).toBe(overbook);
      },
    ),
    { numRuns: 40 },
  );
  expect(await countMismatches(sql, showtimeId)).toEqual([]);
});

it('operator rebalancing: any capacity, overbooking and bucket count keeps what is held and the totals exact', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.record({
        start: fc.record({ capacity: fc.integer({ min: 5, max: 40 }), buckets: fc.integer({ min: 1, max: 8 }) }),
        fill: fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 6 }),
        next: fc.record({
          capacity: fc.integer({ min: 0, max: 60 }),
          overbook: fc.integer({ min: 0, max: 6 }),
          buckets: fc.integer({ min: 1, max: 10 }),
        }),
      }),
      async ({ start, fill, next }) => {
        const fareClass = `R${++classCounter}`;
        await createPlacesClass(sql, { showtimeId, fareClass, capacity: start.capacity, buckets: start.buckets });
        for (const quantity of fill) {
          await holdPlaces(sql, {
            showtimeId,
            customerId: unique('fill'),
            fareClass,
            quantity,
            holdId: randomUUID(),
          }).catch(() => null);
        }
        const before = await rowsOf(fareClass);
        const held = before.reduce((s, r) => s + r.held, 0);
        const result =
          await sql`SELECT fare_configure_places(${showtimeId}::bigint, ${fareClass}::text, ${next.capacity}::int, ${next.overbook}::int, ${next.buckets}::smallint)`.then(
            () => 'ok',
            (error: { code?: string }) => error.code,
          );
        const after = await rowsOf(fareClass);
        const dropsUsedBucket = before.some((r) => r.bucket >= next.buckets && r.held + r.sold > 0);
        if (held > next.capacity + next.overbook || dropsUsedBucket) {
          expect(result).toBe('WRK09');
          expect(after).toEqual(before);
        } else {
          expect(result).toBe('ok');
          expect(after).toHaveLength(next.buckets);
          expect(after.reduce((s, r) => s + r.capacity, 0)).toBe(next.capacity);
          expect(after.reduce((s, r) => s + r.overbook_limit, 0)).toBe(next.overbook);
          expect(after.reduce((s, r) => s + r.held, 0)).toBe(held);
        }
      },
    ),
    { numRuns: 30 },
  );
  expect(await countMismatches(sql, showtimeId)).toEqual([]);
});
