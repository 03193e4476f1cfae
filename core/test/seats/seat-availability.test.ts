/**
 * The seat map's compact view for load clients (`?view=available`): every seat of the full
 * map found again by index arithmetic with the same code and status, couple halves marked so
 * a run never splits a pair, gaps kept as gaps; an unknown view is a 422 that changes nothing.
 * Real PostgreSQL for the route; the builder alone for layouts the demo halls do not have.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { testDatabaseUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { seatAvailability, type SeatAvailability } from '../../src/seats/seat-availability';
import type { SeatRow } from '../../src/seats/seat-repo';
import { createCoreHarness, unique, type CoreHarness } from '../core-harness';

let sql: Sql;
let h: CoreHarness;

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 4, applicationName: 'test-seat-availability' });
  h = await createCoreHarness(sql);
});
afterAll(async () => {
  await sql.end();
});

/** Every seat the compact view names, decoded the way a load client does it. */
function decode(view: SeatAvailability) {
  const seats: { code: string; row: number; column: number; mark: string }[] = [];
  for (const row of view.rows) {
    for (let i = 0; i < row.seats.length; i++) {
      if (row.seats[i] === '.') continue;
      seats.push({
        code: row.codes.substr(i * view.codeWidth, view.codeWidth).trim(),
        row: row.row,
        column: row.firstColumn + i,
        mark: row.seats[i]!,
      });
    }
  }
  return seats;
}

const seat = (
  code: string,
  row: number,
  column: number,
  type: SeatRow['seat_type'] = 'standard',
  status: SeatRow['status'] = 'AVAILABLE',
): SeatRow => ({
  seat_code: code,
  row_label: code.replace(/\d+$/, ''),
  row_number: row,
  column_number: column,
  label: code,
  seat_type: type,
  fare_class: 'standard',
  status,
});

describe('the compact seat view', () => {
  it('marks free seats, couple halves, taken seats and gaps per column, with codes at a fixed width', () => {
    const view = seatAvailability([
      seat('A2', 1, 2),
      seat('A3', 1, 3, 'standard', 'HELD'),
      seat('A5', 1, 5, 'accessible'),
      // Couple pairs in column order (K1+K2, K4+K10): a pair need not be adjacent, and a lone last seat has none.
      seat('K1', 2, 1, 'couple'),
      seat('K2', 2, 2, 'couple'),
      seat('K4', 2, 4, 'couple', 'BOOKED'),
      seat('K10', 2, 10, 'couple'),
      seat('K11', 2, 11, 'couple'),
    ]);
    expect(view.codeWidth).toBe(3);
    expect(view.rows).toEqual([
      { row: 1, rowLabel: 'A', firstColumn: 2, seats: 'a-.a', codes: 'A2 A3    A5 ' },
      { row: 2, rowLabel: 'K', firstColumn: 1, seats: '().-.....)a', codes: `K1 K2    K4 ${' '.repeat(5 * 3)}K10K11` },
    ]);
  });

  it('GET …/seats?view=available names every seat of the full map with its code and status', async () => {
    // Row D is couple seats: D1+D2 and D3+D4 are pairs, D5 a lone last seat.
    const { showtimeId } = await h.createShowtime({
      layout: { rows: 4, columns: 5, coupleRows: [4], accessible: [[2, 3]] },
    });
    expect((await h.hold(showtimeId, unique('a'), ['A2', 'D3', 'D4'])).status).toBe(201);
    const token = await h.tokenFor(unique('reader'), showtimeId);
    const full = await h.call('GET', `/showtimes/${showtimeId}/seats`, { token });
    const compact = await h.call('GET', `/showtimes/${showtimeId}/seats?view=available`, { token });
    expect(compact.status).toBe(200);
    expect(compact.json.counts).toEqual(full.json.counts);
    expect(compact.json.seats).toBeUndefined(); // not the full map as well
    expect(compact.json.rows.map((row: { seats: string }) => row.seats)).toEqual(['a-aaa', 'aaaaa', 'aaaaa', '()--a']);
    const decoded = decode(compact.json);
    expect(decoded).toHaveLength(full.json.seats.length);
    for (const seat of full.json.seats as { code: string; row: number; column: number; status: string }[]) {
      const found = decoded.find((d) => d.code === seat.code)!;
      expect({ row: found.row, column: found.column, free: found.mark !== '-' }).toEqual({
        row: seat.row,
        column: seat.column,
        free: seat.status === 'AVAILABLE',
      });
    }
  });

  it('an unknown view is a 422 naming the field, and the full map is unchanged', async () => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 2, columns: 3 } });
    const token = await h.tokenFor(unique('reader'), showtimeId);
    for (const view of ['full', 'AVAILABLE', '']) {
      const answer = await h.call('GET', `/showtimes/${showtimeId}/seats?view=${view}`, { token });
      expect(answer.status).toBe(422);
      expect(answer.json.error.code).toBe('VALIDATION_FAILED');
    }
    const full = await h.call('GET', `/showtimes/${showtimeId}/seats`, { token });
    expect(full.status).toBe(200);
    expect(full.json.seats).toHaveLength(6);
    expect(await h.seatStatusCounts(showtimeId)).toMatchObject({ available: 6, held: 0, booked: 0 });
  });
});
