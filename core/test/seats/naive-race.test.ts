import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { testDatabaseUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { createCoreHarness, releasedTogether, type CoreHarness } from '../core-harness';

let sql: Sql;
let harness: CoreHarness;

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 32, applicationName: 'test-naive-race' });
  harness = await createCoreHarness(sql);
});
afterAll(async () => {
  await sql.end();
});

/**
 * The control experiment for the hold race test: the same release of 64 concurrent buyers,
 * but each one reads the seat and then writes it (the mistake the conditional UPDATE exists
 * to avoid). If this never produced two winners, the harness would not be producing a race
 * and the real test would prove nothing.
 */
it('a naive read-then-write hold lets several buyers win one seat under the same harness', async () => {
  const { showtimeId } = await harness.createShowtime({ layout: { rows: 2, columns: 10 } });
  const seats = (
    await sql<{ seat_code: string }[]>`
    SELECT seat_code FROM show_seat WHERE showtime_id = ${showtimeId} ORDER BY seat_code`
  ).map((r) => r.seat_code);
  let roundsWithSeveralWinners = 0;
  for (const seat of seats) {
    const believedWinners = await releasedTogether(64, async (buyer) => {
      const [row] = await sql<{ status: string }[]>`
        SELECT status FROM show_seat WHERE showtime_id = ${showtimeId} AND seat_code = ${seat}`;
      if (row?.status !== 'AVAILABLE') return false;
      await sql`
        UPDATE show_seat SET status = 'HELD', hold_id = gen_random_uuid(), customer_id = ${`naive-${buyer}`},
               hold_expires_at = now() + interval '10 minutes'
         WHERE showtime_id = ${showtimeId} AND seat_code = ${seat}`;
      return true;
    });
    if (believedWinners.filter(Boolean).length > 1) roundsWithSeveralWinners++;
  }
  expect(roundsWithSeveralWinners).toBeGreaterThan(0);
});
