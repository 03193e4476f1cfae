/**
 * The seat map's compact view for load clients (`GET /showtimes/:id/seats?view=available`):
 * per row, one character per column and the seat codes at a fixed width, so a client finds
 * adjacent free seats with string search and index arithmetic instead of walking 1,440 seat
 * objects. A load generator's CPU per request is what sizes its fleet at 50,000 req/s; the
 * full map stays what the page reads.
 *
 * Characters, per column from `firstColumn` on:
 *   `a` a free seat;  `(` / `)` a free couple seat, first / second of its pair (pairs are the
 *   rule of lib/couple-pairs.ts: 1st with 2nd in column order, a lone last seat has none);
 *   `-` a seat held or booked;  `.` no seat at that column.
 * The code of the seat at position i is `codes.substr(i * codeWidth, codeWidth).trim()`.
 */
import { z } from 'zod';
import { couplePartners } from '../../../lib/couple-pairs';
import type { SeatRow } from './seat-repo';

/** The seat map's query: `view=available` for the compact view; anything else is a 422. */
export const seatMapQuerySchema = z.object({ view: z.enum(['available']).optional() });

export interface SeatRowAvailability {
  row: number;
  rowLabel: string;
  firstColumn: number;
  seats: string;
  codes: string;
}

export interface SeatAvailability {
  codeWidth: number;
  rows: SeatRowAvailability[];
}

/** Seats as listSeats returns them: ordered by row, then column. */
export function seatAvailability(seats: readonly SeatRow[]): SeatAvailability {
  const partners = couplePartners(
    seats
      .filter((seat) => seat.seat_type === 'couple')
      .map((seat) => ({ code: seat.seat_code, row: seat.row_number, column: seat.column_number, type: 'couple' })),
  );
  const codeWidth = seats.reduce((width, seat) => Math.max(width, seat.seat_code.length), 1);
  const rows: SeatRowAvailability[] = [];
  let start = 0;
  while (start < seats.length) {
    let end = start;
    while (end < seats.length && seats[end]!.row_number === seats[start]!.row_number) end++;
    rows.push(rowOf(seats.slice(start, end), partners, codeWidth));
    start = end;
  }
  return { codeWidth, rows };
}

function rowOf(row: readonly SeatRow[], partners: ReadonlyMap<string, string>, codeWidth: number): SeatRowAvailability {
  const firstColumn = row[0]!.column_number;
  const span = row[row.length - 1]!.column_number - firstColumn + 1;
  const marks = new Array<string>(span).fill('.');
  const codes = new Array<string>(span).fill(' '.repeat(codeWidth));
  const columnOf = new Map(row.map((seat) => [seat.seat_code, seat.column_number]));
  for (const seat of row) {
    const at = seat.column_number - firstColumn;
    codes[at] = seat.seat_code.padEnd(codeWidth, ' ');
    if (seat.status !== 'AVAILABLE') marks[at] = '-';
    else {
      const partner = partners.get(seat.seat_code);
      const partnerColumn = partner === undefined ? undefined : columnOf.get(partner);
      marks[at] = partnerColumn === undefined ? 'a' : partnerColumn > seat.column_number ? '(' : ')';
    }
  }
  return {
    row: row[0]!.row_number,
    rowLabel: row[0]!.row_label,
    firstColumn,
    seats: marks.join(''),
    codes: codes.join(''),
  };
}
