import { randomUUID } from 'node:crypto';
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedDatabase } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { loadHoldSeatsVariant } from './hold-seats-variant';
import { createCoreHarness, unique, type CoreHarness } from '../core-harness';
import { createPlacesClass, payHold } from '../fares/fare-harness';

/**
 * hold_seats counts a customer's general-admission places against the per-customer limit only
 * where the showtime sells general admission (a seated-only sale skips the count and the reads
 * and locks it costs). These cases pin that the skip never loses places: a buyer who holds or
 * owns places is refused the seats that would take them past the limit, in the same call that
 * sees a class created after the showtime. The broken variant is hold_seats with the places
 * never counted: the same calls let the buyer past the limit.
 */
const LIMIT = 8;

let db: { url: string; drop(): Promise<void> };
let sql: Sql;
let h: CoreHarness;
beforeAll(async () => {
  db = await isolatedDatabase('limitplaces');
  sql = connectDatabase(db.url, { max: 4, applicationName: 'test-limit-places' });
  h = await createCoreHarness(sql);
  await loadHoldSeatsVariant(sql, {
    name: 'hold_seats_places_blind',
    piece: 'IF v_sells_places THEN',
    replacement: 'IF false THEN',
    missing: 'hold_seats no longer counts places where this test expects it',
  });
});
afterAll(async () => {
  await sql.end({ timeout: 1 });
  await db.drop();
});

type HoldFn = 'hold_seats' | 'hold_seats_places_blind';

async function holdSeats(fn: HoldFn, showtimeId: number, customer: string, seats: string[]) {
  return sql
    .unsafe(`SELECT hold_id FROM ${fn}($1, $2, $3::text[], $4)`, [showtimeId, customer, seats, randomUUID()])
    .then(() => ({ held: true as const }))
    .catch((error: { code?: string; detail?: string }) => ({
      held: false as const,
      code: error.code,
      detail: error.detail,
    }));
}

/** A showtime with 20 seats and a general-admission class of 20 places, created afterwards. */
async function showtimeWithPlaces() {
  const { showtimeId } = await h.createShowtime({ maxSeatsPerCustomer: LIMIT, layout: { rows: 2, columns: 10 } });
  await createPlacesClass(sql, { showtimeId, fareClass: 'GA', capacity: 20 });
  return showtimeId;
}

async function holdPlaces(showtimeId: number, customer: string, quantity: number): Promise<string> {
  const holdId = randomUUID();
  await sql`SELECT hold_id FROM hold_places(${showtimeId}, ${customer}, 'GA', ${quantity}, ${holdId})`;
  return holdId;
}

describe.each<HoldFn>(['hold_seats', 'hold_seats_places_blind'])('%s', (fn) => {
  const counts = fn === 'hold_seats';

  it(
    counts ? 'refuses seats past the limit when places are held' : 'broken variant: lets the buyer past the limit',
    async () => {
      const showtimeId = await showtimeWithPlaces();
      const customer = unique('places-then-seats');
      await holdPlaces(showtimeId, customer, 5);
      const tooMany = await holdSeats(fn, showtimeId, customer, ['A1', 'A2', 'A3', 'A4']);
      if (counts) {
        expect(tooMany).toMatchObject({ held: false, code: 'WRL22' });
        expect(JSON.parse((tooMany as { detail: string }).detail)).toEqual({ limit: LIMIT, owned: 5, requested: 4 });
        expect(await holdSeats(fn, showtimeId, customer, ['A1', 'A2', 'A3'])).toEqual({ held: true });
      } else {
        expect(tooMany).toEqual({ held: true });
      }
    },
  );
});

it('a seated-only showtime still counts the seats a customer holds', async () => {
  const { showtimeId } = await h.createShowtime({ maxSeatsPerCustomer: LIMIT, layout: { rows: 2, columns: 10 } });
  const customer = unique('seats-only');
  expect(await holdSeats('hold_seats', showtimeId, customer, ['A1', 'A2', 'A3', 'A4', 'A5', 'A6'])).toEqual({
    held: true,
  });
  expect(await holdSeats('hold_seats', showtimeId, customer, ['B1', 'B2', 'B3'])).toMatchObject({
    held: false,
    code: 'WRL22',
  });
  expect(await holdSeats('hold_seats', showtimeId, customer, ['B1', 'B2'])).toEqual({ held: true });
});

it('places bought and paid for count as well as places held', async () => {
  const showtimeId = await showtimeWithPlaces();
  const customer = unique('places-owned');
  const holdId = await holdPlaces(showtimeId, customer, 6);
  expect((await payHold(sql, holdId, showtimeId, customer)).kind).toBe('booked');
  expect(await holdSeats('hold_seats', showtimeId, customer, ['A1', 'A2', 'A3'])).toMatchObject({
    held: false,
    code: 'WRL22',
  });
});
