/**
 * Couple seats are sold in pairs at the core, not only on the page: a hold with one half of a
 * pair is refused with 422 COUPLE_SEATS_SPLIT naming the missing half, and nothing is written;
 * whole pairs, a lone last couple seat and other seats go through. Real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { testDatabaseUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { createCoreHarness, unique, type CoreHarness } from '../core-harness';

let sql: Sql;
let h: CoreHarness;

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 4, applicationName: 'test-couple-pairs' });
  h = await createCoreHarness(sql);
});
afterAll(async () => {
  await sql.end();
});

/** Row D is couple seats: D1+D2 and D3+D4 are pairs, D5 is a lone last seat. */
const layout = { rows: 4, columns: 5, coupleRows: [4] };

const taken = async (showtimeId: number) =>
  (
    await sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM show_seat WHERE showtime_id = ${showtimeId} AND status <> 'AVAILABLE'`
  )[0]!.n;

describe('couple seats at the core', () => {
  it.each([
    ['one half alone', ['D1'], ['D2']],
    ['the other half alone', ['D2'], ['D1']],
    ['halves of two different pairs', ['D2', 'D3'], ['D1', 'D4']],
    ['a whole pair and half of another, with a standard seat', ['A1', 'D1', 'D2', 'D4'], ['D3']],
  ])('refuses %s with the missing half named, and writes nothing', async (_label, seats, missing) => {
    const { showtimeId } = await h.createShowtime({ layout });
    const response = await h.hold(showtimeId, unique('half'), seats);
    expect(response.status).toBe(422);
    expect(response.json.error).toMatchObject({ code: 'COUPLE_SEATS_SPLIT', seats: missing });
    expect(response.json.error.message).toContain(missing.join(', '));
    expect(await taken(showtimeId)).toBe(0);
  });

  it('holds whole pairs, the lone last couple seat, and seats of other types', async () => {
    const { showtimeId } = await h.createShowtime({ layout });
    expect((await h.hold(showtimeId, unique('pair'), ['D2', 'D1'])).status).toBe(201);
    expect((await h.hold(showtimeId, unique('lone'), ['D5'])).status).toBe(201);
    expect((await h.hold(showtimeId, unique('two-pairs'), ['A1', 'D3', 'D4'])).status).toBe(201);
    expect(await taken(showtimeId)).toBe(6);
  });

  it('a half whose partner is taken stays refused as half a pair (never a lone seat by the back door)', async () => {
    const { showtimeId } = await h.createShowtime({ layout });
    expect((await h.hold(showtimeId, unique('first'), ['D1', 'D2'])).status).toBe(201);
    const late = await h.hold(showtimeId, unique('late'), ['D2']);
    expect(late.status).toBe(422);
    expect(late.json.error.code).toBe('COUPLE_SEATS_SPLIT');
  });
});
