/**
 * Best available at the core (migrations/0012_best_available.sql, docs/best-available.md):
 * the score's choices, couple pairs, accessible seats, fare classes, limits, bad input and
 * NO_SEATS_TOGETHER. Real PostgreSQL. The race tests are in best-available-race.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { testDatabaseUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { insertHallWithSeats, insertVenue } from '../../src/catalog/venue-repo';
import { rectangularLayout, type LayoutOptions } from '../../src/demo/seat-layout';
import { createCoreHarness, TEST_ADMIN_TOKEN, unique, type CoreHarness } from '../core-harness';
import { bestHoldViolations, type HallSeat } from './best-invariants';

let sql: Sql;
let h: CoreHarness;

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 4, applicationName: 'test-best-available' });
  h = await createCoreHarness(sql);
});
afterAll(async () => {
  await sql.end();
});

async function best(showtimeId: number, body: Record<string, unknown>, customerId = unique('best')) {
  return h.call('POST', `/showtimes/${showtimeId}/holds`, { token: await h.tokenFor(customerId, showtimeId), body });
}

const hallOf = (layout: LayoutOptions): HallSeat[] =>
  rectangularLayout(layout).map((s) => ({ code: s.code, row: s.row, column: s.column, type: s.type }));

const heldCodes = async (showtimeId: number) =>
  (
    await sql<
      { seat_code: string }[]
    >`SELECT seat_code FROM show_seat WHERE showtime_id = ${showtimeId} AND status <> 'AVAILABLE' ORDER BY seat_code`
  ).map((r) => r.seat_code);

describe('best available: the choice', () => {
  it('takes the centre of the ideal row (two thirds back by default), then spreads out by score', async () => {
    // 9 rows x 10 columns: ideal row 6 (F), centre between columns 5 and 6.
    const { showtimeId } = await h.createShowtime({ layout: { rows: 9, columns: 10 } });
    const first = await best(showtimeId, { count: 2, together: true });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ seats: ['F5', 'F6'] });
    expect(first.headers.get('location')).toBe(`/holds/${first.json.holdId}`);
    // The ordinary hold: read back like any other.
    const read = await h.call('GET', `/holds/${first.json.holdId}`, { token: await h.tokenFor('nobody', showtimeId) });
    expect(read.status).toBe(403);
    const four = await best(showtimeId, { count: 4, together: true });
    // F is cut in the middle: a row away, centred (2 x 1 + 0), beats F7-F10 (0 + 3); E before G (front row wins ties).
    expect(four.json.seats).toEqual(['E4', 'E5', 'E6', 'E7']);
  });

  it('the ideal row is configurable per hall, and a showtime setting wins over the hall (operator API)', async () => {
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const venue = await h.call('POST', '/admin/venues', {
      headers: admin,
      body: { name: unique('venue'), city: 'Test' },
    });
    const seats = rectangularLayout({ rows: 9, columns: 10 }).map(({ code, row, rowLabel, column }) => ({
      code,
      row,
      rowLabel,
      column,
    }));
    const hall = await h.call('POST', `/admin/venues/${venue.json.id}/halls`, {
      headers: admin,
      body: { name: 'Hall', seats, idealRow: 2 },
    });
    expect(hall.status).toBe(201);
    const a = await h.createShowtime({ hallId: hall.json.id });
    expect((await best(a.showtimeId, { count: 2, together: true })).json.seats).toEqual(['B5', 'B6']);
    const b = await h.createShowtime({ hallId: hall.json.id });
    const set = await h.call('PATCH', `/admin/showtimes/${b.showtimeId}`, { headers: admin, body: { idealRow: 8 } });
    expect(set.json.idealRow).toBe(8);
    expect((await best(b.showtimeId, { count: 2, together: true })).json.seats).toEqual(['H5', 'H6']);
    // null: the hall's again.
    expect(
      (await h.call('PATCH', `/admin/showtimes/${b.showtimeId}`, { headers: admin, body: { idealRow: null } })).json
        .idealRow,
    ).toBeNull();
    expect((await best(b.showtimeId, { count: 2, together: true })).json.seats).toEqual(['B5', 'B6']);
    expect(
      (await h.call('PATCH', `/admin/showtimes/${b.showtimeId}`, { headers: admin, body: { idealRow: 0 } })).status,
    ).toBe(422);
  });

  it('prefers a whole couple pair for two, and never splits a pair for other counts', async () => {
    // Row F (the ideal row) is couple seats: pairs F1+F2, F3+F4, F5+F6, F7+F8, F9+F10.
    const layout = { rows: 9, columns: 10, coupleRows: [6] };
    const { showtimeId } = await h.createShowtime({ layout });
    const pair = await best(showtimeId, { count: 2, together: true });
    expect(pair.json.seats).toEqual(['F5', 'F6']);
    const holds = [{ seats: pair.json.seats as string[], together: true }];
    for (const count of [3, 1, 5, 4, 2, 3]) {
      const response = await best(showtimeId, { count, together: true });
      expect(response.status, JSON.stringify(response.json)).toBe(201);
      holds.push({ seats: response.json.seats, together: true });
    }
    // The odd counts were placed outside row F, or in it only as whole pairs.
    expect(bestHoldViolations(hallOf(layout), holds)).toEqual([]);
    const anywhere = await best(showtimeId, { count: 5, together: false });
    expect(anywhere.status).toBe(201);
    expect(bestHoldViolations(hallOf(layout), [...holds, { seats: anywhere.json.seats, together: false }])).toEqual([]);
  });

  it('accessible seats only when asked for; asked for, the block has one', async () => {
    const layout: LayoutOptions = {
      rows: 3,
      columns: 6,
      accessible: [
        [2, 3],
        [2, 4],
      ],
    };
    const { showtimeId } = await h.createShowtime({ layout });
    // Ideal row 2 (B) holds the accessible seats: a buyer who did not ask never gets them.
    for (let i = 0; i < 3; i++) {
      const response = await best(showtimeId, { count: 2, together: true });
      expect(response.json.seats.some((code: string) => code === 'B3' || code === 'B4')).toBe(false);
    }
    const asked = await best(showtimeId, { count: 2, together: true, accessible: true });
    expect(asked.status).toBe(201);
    expect(asked.json.seats.some((code: string) => code === 'B3' || code === 'B4')).toBe(true);
  });

  it('fareClass keeps the choice inside one seated class; an unknown class is 422', async () => {
    const seats = rectangularLayout({ rows: 6, columns: 8 }).map((seat) => ({
      ...seat,
      fareClass: seat.row <= 2 ? 'PREMIUM' : 'STANDARD',
    }));
    const venue = await insertVenue(sql, { name: unique('venue'), city: 'Test' });
    const hall = await insertHallWithSeats(sql, { venueId: venue.id, name: 'Hall', seats });
    const { showtimeId } = await h.createShowtime({ hallId: hall.id });
    const premium = await best(showtimeId, { count: 3, together: true, fareClass: 'PREMIUM' });
    expect(premium.status).toBe(201);
    expect(premium.json.seats.every((code: string) => code.startsWith('A') || code.startsWith('B'))).toBe(true);
    const [counter] = await sql<{ held: number }[]>`
      SELECT sum(held)::int AS held FROM fare_inventory WHERE showtime_id = ${showtimeId} AND fare_class = 'PREMIUM'`;
    expect(counter!.held).toBe(3);
    const unknown = await best(showtimeId, { count: 1, together: true, fareClass: 'NOPE' });
    expect(unknown.status).toBe(422);
    expect(unknown.json.error.code).toBe('UNKNOWN_FARE_CLASS');
  });
});

describe('best available: refusals', () => {
  it('409 NO_SEATS_TOGETHER with the most that sit together; together:false then succeeds', async () => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 2, columns: 4 } });
    // Leave A1, A3, B2, B3 free: at most 2 together (B2+B3).
    await h.hold(showtimeId, unique('taker'), ['A2', 'A4', 'B1', 'B4']);
    const three = await best(showtimeId, { count: 3, together: true });
    expect(three.status).toBe(409);
    expect(three.json.error).toMatchObject({ code: 'NO_SEATS_TOGETHER', requested: 3, maxTogether: 2, available: 4 });
    expect(await heldCodes(showtimeId)).toEqual(['A2', 'A4', 'B1', 'B4']);
    const apart = await best(showtimeId, { count: 3, together: false });
    expect(apart.status).toBe(201);
    expect(apart.json.seats).toHaveLength(3);
    const tooMany = await best(showtimeId, { count: 2, together: false });
    expect(tooMany.status).toBe(409);
    expect(tooMany.json.error).toMatchObject({ code: 'SEATS_UNAVAILABLE', available: 1 });
  });

  it('the per-customer limit counts best-available seats like chosen ones', async () => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 4, columns: 8 }, maxSeatsPerCustomer: 4 });
    const customer = unique('limit');
    expect((await best(showtimeId, { count: 5, together: true }, customer)).json.error.code).toBe(
      'SEAT_LIMIT_EXCEEDED',
    );
    expect((await best(showtimeId, { count: 3, together: true }, customer)).status).toBe(201);
    const more = await best(showtimeId, { count: 2, together: false }, customer);
    expect(more.status).toBe(422);
    expect(more.json.error).toMatchObject({ code: 'SEAT_LIMIT_EXCEEDED', limit: 4, owned: 3, requested: 2 });
    expect((await h.hold(showtimeId, customer, ['A1', 'A2'])).json.error.code).toBe('SEAT_LIMIT_EXCEEDED');
    expect(await heldCodes(showtimeId)).toHaveLength(3);
  });

  it('a closed sale and a started showtime refuse as for chosen seats', async () => {
    const closed = await h.createShowtime({ saleState: 'CLOSED' });
    expect((await best(closed.showtimeId, { count: 2, together: true })).json.error.code).toBe('SALE_NOT_OPEN');
  });

  it.each([
    ['count 0', { count: 0, together: true }],
    ['count 51', { count: 51, together: true }],
    ['count not a number', { count: '2', together: true }],
    ['together missing', { count: 2 }],
    ['together not a boolean', { count: 2, together: 'yes' }],
    ['a bad class code', { count: 2, together: true, fareClass: 'lower' }],
    ['accessible not a boolean', { count: 2, together: true, accessible: 1 }],
  ])('bad input (%s) is 422 VALIDATION_FAILED and writes nothing', async (_label, body) => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 2, columns: 4 } });
    const response = await best(showtimeId, body);
    expect(response.status).toBe(422);
    expect(response.json.error.code).toBe('VALIDATION_FAILED');
    expect(await heldCodes(showtimeId)).toEqual([]);
  });
});
