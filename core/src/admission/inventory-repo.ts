/**
 * The inventory the admission loop steers by: per showtime, the seats and places not sold and
 * how many a buyer takes on average, from the most recent holds.
 */
import type { Sql } from 'postgres';

/** Holds read per showtime for the mean seats a buyer takes. */
const RECENT_HOLDS = 200;
/** The mean starts from one seat a buyer worth this many holds: the cap opens wide until holds are seen. */
const PRIOR_HOLDS = 3;

export interface ShowtimeInventory {
  showtimeId: number;
  seatsLeft: number;
  seatsPerHold: number;
  holdsSeen: number;
}

/** Seats and places not sold (available or held: a hold may lapse), and the recent mean per hold. */
export async function readInventory(sql: Sql, showtimeIds: number[]): Promise<ShowtimeInventory[]> {
  if (showtimeIds.length === 0) return [];
  const rows = await sql<{ showtime_id: string; seats_left: number; seats: number; holds: number }[]>`
    SELECT s.id AS showtime_id,
           coalesce((SELECT sum(greatest(0, i.capacity + i.overbook_limit - i.sold))
                       FROM fare_inventory i WHERE i.showtime_id = s.id), 0)::int AS seats_left,
           coalesce(recent.seats, 0)::int AS seats,
           coalesce(recent.holds, 0)::int AS holds
      FROM showtime s
      LEFT JOIN LATERAL (
        SELECT sum(cardinality(h.seat_codes) + coalesce(h.quantity, 0)) AS seats, count(*) AS holds
          FROM (SELECT seat_codes, quantity FROM seat_hold
                 WHERE showtime_id = s.id ORDER BY created_at DESC LIMIT ${RECENT_HOLDS}) h
      ) recent ON true
     WHERE s.id = ANY(${showtimeIds}::bigint[])`;
  return rows.map((row) => ({
    showtimeId: Number(row.showtime_id),
    seatsLeft: row.seats_left,
    seatsPerHold: (row.seats + PRIOR_HOLDS) / (row.holds + PRIOR_HOLDS),
    holdsSeen: row.holds,
  }));
}
