import { randomUUID } from 'node:crypto';
import type { Sql } from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isolatedDatabase } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { loadHoldSeatsVariant } from './hold-seats-variant';
import { createCoreHarness, releasedTogether, unique, type CoreHarness } from '../core-harness';

/**
 * hold_seats counts what a customer already owns under the customer's advisory lock, taken in
 * the statement that reads the showtime; the count runs in the next statement, on a snapshot
 * taken once the lock is granted. Twenty single-seat holds of one customer, released together
 * on twenty sessions, must leave exactly the limit. The broken variant is the same function
 * with the lock taken out: the same harness lets more than the limit through, so the test is
 * shown to produce the race it guards against.
 */
const PARALLEL = 20;
const LIMIT = 8;
const ROUNDS = 5;

let db: { url: string; drop(): Promise<void> };
let sql: Sql;
let h: CoreHarness;
beforeAll(async () => {
  db = await isolatedDatabase('limitrace');
  sql = connectDatabase(db.url, { max: PARALLEL, applicationName: 'test-limit-race' });
  h = await createCoreHarness(sql);
  await loadHoldSeatsVariant(sql, {
    name: 'hold_seats_unlocked',
    piece: /, pg_advisory_xact_lock\([^\n]*\)\)/,
    replacement: '',
    missing: 'hold_seats no longer takes the lock where this test expects it',
  });
});
afterAll(async () => {
  await sql.end({ timeout: 1 });
  await db.drop();
});

/** Seats held by one customer after 20 parallel single-seat holds through `fn`, per round. */
async function heldAfterStampede(fn: 'hold_seats' | 'hold_seats_unlocked'): Promise<number[]> {
  const held: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const { showtimeId } = await h.createShowtime({ maxSeatsPerCustomer: LIMIT, layout: { rows: 2, columns: 10 } });
    const customer = unique(`greedy-${fn}-${round}`);
    const seats = ['A', 'B'].flatMap((row) => Array.from({ length: 10 }, (_, i) => `${row}${i + 1}`));
    await releasedTogether(PARALLEL, (i) =>
      sql
        .unsafe(`SELECT hold_id FROM ${fn}($1, $2, ARRAY[$3]::text[], $4)`, [
          showtimeId,
          customer,
          seats[i]!,
          randomUUID(),
        ])
        .catch(() => null),
    );
    const [row] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM show_seat WHERE showtime_id = ${showtimeId} AND customer_id = ${customer}`;
    held.push(row!.n);
  }
  return held;
}

it('one customer racing 20 holds gets exactly the limit, round after round', async () => {
  expect(await heldAfterStampede('hold_seats')).toEqual(Array(ROUNDS).fill(LIMIT));
});

it('broken variant: without the advisory lock the same stampede passes the limit', async () => {
  const held = await heldAfterStampede('hold_seats_unlocked');
  expect(Math.max(...held)).toBeGreaterThan(LIMIT);
});
