import type { Sql } from 'postgres';
import { findHallByName, findVenueByName, insertHallWithSeats, insertVenue } from '../catalog/venue-repo';
import { insertShowtime } from '../catalog/showtime-repo';
import { rectangularLayout } from './seat-layout';

const VENUE = 'Demo Cinema';
const HALL = 'Hall 1';
const HOUR_MS = 3_600_000;

/** The demo hall: 10 rows of 15 (150 seats), a couple row at the back, accessible seats in front. */
export const demoLayout = () =>
  rectangularLayout({
    rows: 10,
    columns: 15,
    coupleRows: [10],
    accessible: [
      [1, 1],
      [1, 2],
      [1, 14],
      [1, 15],
    ],
  });

/**
 * Creates the demo venue, hall and upcoming showtimes (one on sale now, one opening soon),
 * idempotently: what exists is reused, a showtime title still upcoming is not created twice.
 */
export async function seedDemo(sql: Sql, now = new Date()) {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtextextended('seed-demo', 0))`;
    const venueId =
      (await findVenueByName(tx, VENUE))?.id ?? (await insertVenue(tx, { name: VENUE, city: 'Demo City' })).id;
    const hallId =
      (await findHallByName(tx, venueId, HALL))?.id ??
      (await insertHallWithSeats(tx, { venueId, name: HALL, seats: demoLayout() })).id;

    const wanted = [
      { title: 'Premiere: The Last Seat (on sale now)', opensInMs: -HOUR_MS, startsInMs: 72 * HOUR_MS },
      { title: 'Premiere: The Last Seat (late show)', opensInMs: 10 * 60_000, startsInMs: 75 * HOUR_MS },
    ];
    const showtimeIds: number[] = [];
    for (const showtime of wanted) {
      const [existing] = await tx<{ id: number }[]>`
        SELECT id FROM showtime WHERE hall_id = ${hallId} AND title = ${showtime.title} AND starts_at > now()
        ORDER BY id LIMIT 1`;
      const id =
        existing?.id ??
        (
          await insertShowtime(tx, {
            hallId,
            title: showtime.title,
            startsAt: new Date(now.getTime() + showtime.startsInMs),
            opensAt: new Date(now.getTime() + showtime.opensInMs),
            saleState: 'OPEN',
            priceCents: 1250,
            currency: 'EUR',
            maxSeatsPerCustomer: 8,
            holdTtlMs: 600_000,
          })
        ).id;
      showtimeIds.push(id);
    }
    return { venueId, hallId, showtimeIds };
  });
}
