import type { Sql } from 'postgres';

/**
 * A retained day of published outbox rows, written straight into the table (as a day of sales
 * leaves it): per buyer a HoldCreated, a HoldReleased 'confirmed' and a BookingConfirmed, over
 * `showtimes` showtimes, published evenly over the last `spreadMs`, ids in publishing order.
 * Shared by the catch-up test and `npm run bench -- catchup`.
 */
export async function insertRetainedOutbox(
  sql: Sql,
  options: { rows: number; showtimes: number; spreadMs: number; firstShowtimeId?: number },
): Promise<void> {
  const firstShowtimeId = options.firstShowtimeId ?? 1_000;
  await sql`
    INSERT INTO outbox (type, showtime_id, payload, created_at, published_at)
    SELECT (ARRAY['HoldCreated', 'HoldReleased', 'BookingConfirmed'])[i % 3 + 1],
           ${firstShowtimeId}::bigint + (i / 3) % ${options.showtimes},
           jsonb_build_object('customerId', 'old-' || (i / 3), 'holdId', 'hold-' || (i / 3), 'seats', jsonb_build_array('A1'),
                              'reason', 'confirmed', 'bookingId', 'booking-' || (i / 3)),
           t, t
      FROM generate_series(0, ${options.rows - 1}::int) AS i,
           LATERAL (SELECT now() - make_interval(secs => ${options.spreadMs / 1000}::float8 * (1 - i::float8 / ${options.rows})) AS t) AS at`;
}
