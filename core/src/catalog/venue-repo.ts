import type { Db } from '../db/connect';

export interface SeatLayoutEntry {
  code: string;
  rowLabel: string;
  row: number;
  column: number;
  label: string;
  type: 'standard' | 'couple' | 'accessible';
  /** Fare class of the seat; STANDARD when not given. */
  fareClass?: string;
}

export async function insertVenue(sql: Db, input: { name: string; city: string }) {
  const [row] = await sql<{ id: number; name: string; city: string }[]>`
    INSERT INTO venue (name, city) VALUES (${input.name}, ${input.city}) RETURNING id, name, city`;
  return row!;
}

/** Creates a hall and all its physical seats in one statement (all or nothing). */
export async function insertHallWithSeats(
  sql: Db,
  input: { venueId: number; name: string; seats: SeatLayoutEntry[]; idealRow?: number },
) {
  const seats = input.seats;
  const [row] = await sql<{ id: number; seats: number }[]>`
    WITH created AS (
      INSERT INTO hall (venue_id, name, ideal_row) VALUES (${input.venueId}, ${input.name}, ${input.idealRow ?? null}) RETURNING id
    ), seats AS (
      INSERT INTO hall_seat (hall_id, seat_code, row_label, row_number, column_number, label, seat_type, fare_class)
      SELECT c.id, s.code, s.row_label, s.row_number, s.column_number, s.label, s.seat_type, s.fare_class
        FROM created c,
             unnest(${sql.array(seats.map((s) => s.code))}::text[],
                    ${sql.array(seats.map((s) => s.rowLabel))}::text[],
                    ${sql.array(seats.map((s) => s.row))}::int[],
                    ${sql.array(seats.map((s) => s.column))}::int[],
                    ${sql.array(seats.map((s) => s.label))}::text[],
                    ${sql.array(seats.map((s) => s.type))}::text[],
                    ${sql.array(seats.map((s) => s.fareClass ?? 'STANDARD'))}::text[])
               AS s (code, row_label, row_number, column_number, label, seat_type, fare_class)
      RETURNING 1
    )
    SELECT c.id, (SELECT count(*) FROM seats)::int AS seats FROM created c`;
  return { id: row!.id, venueId: input.venueId, name: input.name, seatCount: row!.seats };
}

export async function listVenuesWithHalls(sql: Db) {
  return sql<{ id: number; name: string; city: string; halls: { id: number; name: string; seatCount: number }[] }[]>`
    SELECT v.id, v.name, v.city,
           coalesce(json_agg(json_build_object('id', h.id, 'name', h.name, 'seatCount',
                    (SELECT count(*) FROM hall_seat s WHERE s.hall_id = h.id)) ORDER BY h.id)
                    FILTER (WHERE h.id IS NOT NULL), '[]') AS halls
      FROM venue v LEFT JOIN hall h ON h.venue_id = v.id
     GROUP BY v.id ORDER BY v.id`;
}

export async function findVenueByName(sql: Db, name: string) {
  const [row] = await sql<{ id: number }[]>`SELECT id FROM venue WHERE name = ${name}`;
  return row ?? null;
}

export async function findHallByName(sql: Db, venueId: number, name: string) {
  const [row] = await sql<{ id: number }[]>`SELECT id FROM hall WHERE venue_id = ${venueId} AND name = ${name}`;
  return row ?? null;
}
