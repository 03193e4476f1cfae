/**
 * The invariants a load run must leave intact, checked on the database (the arbiter) and,
 * when a Redis is given, on the `booking-events` stream. Used by `npm run loadtest:verify`,
 * by the journey harness at the end of every run and by the CI smoke test.
 *
 *  1. No seat booked twice: no seat code in two CONFIRMED bookings of a showtime, every BOOKED
 *     row points at a CONFIRMED booking that lists it, every CONFIRMED booking's seats are BOOKED by it.
 *  2. held + booked + available = the hall, for every showtime (a lapsed hold counts as available).
 *  3. Every succeeded payment has a booking or a refund command (the core's own rows; whether the
 *     gateway agrees is the fault suite's money check, chaos/checks/money.ts).
 *  4. Every booking has its event in the outbox (BookingConfirmed, or BookingFailed for a failed one);
 *     with Redis, published BookingConfirmed events are found in the stream.
 */
import type { Redis } from 'ioredis';
import type { Sql } from 'postgres';
import { bookingEventsStreamKey } from '../lib/booking-events';

export interface ShowtimeSeats {
  showtimeId: number;
  hall: number;
  rows: number;
  held: number;
  booked: number;
  available: number;
}

/**
 * What broke, counted (0 when the invariant holds): the figures a program checks. `breaches`
 * says the same in words, with samples, for a person; nothing should parse it.
 */
export interface InvariantCounts {
  /** Seat codes in two or more confirmed bookings of one showtime. */
  oversoldSeats: number;
  /** BOOKED seats that no confirmed booking lists. */
  bookedSeatsWithoutBooking: number;
  /** Seats of confirmed bookings that are not BOOKED by them. */
  bookingSeatsNotBooked: number;
  /** Showtimes whose held + booked + available is not the hall (or that are missing). */
  hallMismatches: number;
  /** Succeeded payments (by the core's own rows) with neither a booking nor a refund command. */
  paidWithoutBookingOrRefund: number;
  bookingsWithoutEvent: number;
  /** Published BookingConfirmed events not in the stream (0 when the stream was not read). */
  eventsMissingFromStream: number;
}

export interface InvariantReport {
  showtimes: ShowtimeSeats[];
  figures: Record<string, number>;
  counts: InvariantCounts;
  breaches: string[];
}

export interface InvariantOptions {
  /** Only these showtimes (default: all). */
  showtimeIds?: number[];
  /** Also look for published BookingConfirmed events in the stream. */
  redis?: { client: Redis; keyPrefix?: string };
}

const SAMPLE = 5;
const sample = (items: unknown[]) =>
  items
    .slice(0, SAMPLE)
    .map((item) => JSON.stringify(item))
    .join(', ') + (items.length > SAMPLE ? ', …' : '');

export async function checkInvariants(sql: Sql, options: InvariantOptions = {}): Promise<InvariantReport> {
  const ids = options.showtimeIds ?? null;
  const only = (column: string) => (ids ? sql`AND ${sql(column)} = ANY(${ids}::bigint[])` : sql``);
  const breaches: string[] = [];
  const figures: Record<string, number> = {};
  const counts: InvariantCounts = {
    oversoldSeats: 0,
    bookedSeatsWithoutBooking: 0,
    bookingSeatsNotBooked: 0,
    hallMismatches: 0,
    paidWithoutBookingOrRefund: 0,
    bookingsWithoutEvent: 0,
    eventsMissingFromStream: 0,
  };

  // 1. No seat booked twice.
  const doubled = await sql<{ showtime_id: number; code: string; n: number }[]>`
    SELECT b.showtime_id, s.code, count(*)::int AS n
      FROM booking b CROSS JOIN LATERAL unnest(b.seat_codes) AS s(code)
     WHERE b.status = 'CONFIRMED' ${only('b.showtime_id')}
     GROUP BY 1, 2 HAVING count(*) > 1`;
  counts.oversoldSeats = doubled.length;
  if (doubled.length) breaches.push(`seats in two confirmed bookings: ${doubled.length} (${sample(doubled)})`);
  const strayBooked = await sql<{ showtime_id: number; seat_code: string }[]>`
    SELECT ss.showtime_id, ss.seat_code
      FROM show_seat ss LEFT JOIN booking b ON b.id = ss.booking_id
     WHERE ss.status = 'BOOKED' ${only('ss.showtime_id')}
       AND (b.id IS NULL OR b.status <> 'CONFIRMED' OR NOT (ss.seat_code = ANY(b.seat_codes)))`;
  counts.bookedSeatsWithoutBooking = strayBooked.length;
  if (strayBooked.length)
    breaches.push(
      `BOOKED seats without a confirmed booking listing them: ${strayBooked.length} (${sample(strayBooked)})`,
    );
  const unbooked = await sql<{ booking_id: string; code: string }[]>`
    SELECT b.id AS booking_id, s.code
      FROM booking b CROSS JOIN LATERAL unnest(b.seat_codes) AS s(code)
      LEFT JOIN show_seat ss ON ss.showtime_id = b.showtime_id AND ss.seat_code = s.code
     WHERE b.status = 'CONFIRMED' ${only('b.showtime_id')}
       AND (ss.status IS DISTINCT FROM 'BOOKED' OR ss.booking_id IS DISTINCT FROM b.id)`;
  counts.bookingSeatsNotBooked = unbooked.length;
  if (unbooked.length)
    breaches.push(`confirmed bookings whose seats are not BOOKED by them: ${unbooked.length} (${sample(unbooked)})`);

  // 2. held + booked + available = hall.
  const showtimes = await sql<ShowtimeSeats[]>`
    SELECT st.id AS "showtimeId",
           (SELECT count(*) FROM hall_seat hs WHERE hs.hall_id = st.hall_id)::int AS hall,
           count(ss.seat_code)::int AS rows,
           count(ss.seat_code) FILTER (WHERE ss.status = 'HELD' AND ss.hold_expires_at > now())::int AS held,
           count(ss.seat_code) FILTER (WHERE ss.status = 'BOOKED')::int AS booked,
           count(ss.seat_code) FILTER (WHERE ss.status = 'AVAILABLE' OR (ss.status = 'HELD' AND ss.hold_expires_at <= now()))::int AS available
      FROM showtime st LEFT JOIN show_seat ss ON ss.showtime_id = st.id
     WHERE true ${only('st.id')}
     GROUP BY st.id ORDER BY st.id`;
  for (const s of showtimes) {
    if (s.held + s.booked + s.available !== s.hall || s.rows !== s.hall) {
      counts.hallMismatches++;
      breaches.push(
        `showtime ${s.showtimeId}: held ${s.held} + booked ${s.booked} + available ${s.available} = ${s.held + s.booked + s.available}, hall ${s.hall} (seat rows ${s.rows})`,
      );
    }
  }
  for (const id of ids ?? []) {
    if (showtimes.some((s) => Number(s.showtimeId) === id)) continue;
    counts.hallMismatches++;
    breaches.push(`showtime ${id} not found`);
  }

  // 3. Every succeeded payment has a booking or a refund.
  const [payments] = await sql<
    { succeeded: number; booked: number; refunded: number; orphans: string[]; pending: number; failed: number }[]
  >`
    WITH p AS (
      SELECT p.id, p.status,
             EXISTS (SELECT 1 FROM booking b WHERE b.payment_id = p.id AND b.status IN ('CONFIRMED', 'REFUNDED')) AS has_booking,
             EXISTS (SELECT 1 FROM refund_command r WHERE r.payment_id = p.id) OR p.status IN ('REFUND_REQUESTED', 'REFUNDED') AS has_refund
        FROM payment p WHERE true ${only('p.showtime_id')})
    SELECT count(*) FILTER (WHERE status IN ('SUCCEEDED', 'REFUND_REQUESTED', 'REFUNDED'))::int AS succeeded,
           count(*) FILTER (WHERE status IN ('SUCCEEDED', 'REFUND_REQUESTED', 'REFUNDED') AND has_booking)::int AS booked,
           count(*) FILTER (WHERE status IN ('SUCCEEDED', 'REFUND_REQUESTED', 'REFUNDED') AND has_refund)::int AS refunded,
           coalesce(array_agg(id) FILTER (WHERE status IN ('SUCCEEDED', 'REFUND_REQUESTED', 'REFUNDED') AND NOT has_booking AND NOT has_refund), '{}') AS orphans,
           count(*) FILTER (WHERE status = 'PENDING')::int AS pending,
           count(*) FILTER (WHERE status = 'FAILED')::int AS failed
      FROM p`;
  Object.assign(figures, {
    paymentsSucceeded: payments!.succeeded,
    paymentsWithBooking: payments!.booked,
    paymentsWithRefund: payments!.refunded,
    paymentsPending: payments!.pending,
    paymentsFailed: payments!.failed,
  });
  counts.paidWithoutBookingOrRefund = payments!.orphans.length;
  if (payments!.orphans.length)
    breaches.push(
      `succeeded payments with neither booking nor refund: ${payments!.orphans.length} (${sample(payments!.orphans)})`,
    );

  // 4. Every booking has its event. One pass over the outbox joined by hash: the outbox has no
  // index on the showtime (it is written on every hold), so a lookup per booking scanned it once
  // per booking, which took minutes once a retained day of events was in it.
  const bookings = await sql<{ id: string; status: string; event_id: string | null; published: boolean }[]>`
    SELECT b.id, b.status, o.event_id::text AS event_id, (o.published_at IS NOT NULL) AS published
      FROM booking b
      LEFT JOIN (
        SELECT DISTINCT ON (showtime_id, payload->>'bookingId', type)
               showtime_id, payload->>'bookingId' AS booking_id, type, event_id, published_at
          FROM outbox
         WHERE type IN ('BookingConfirmed', 'BookingFailed') ${only('showtime_id')}
         ORDER BY showtime_id, payload->>'bookingId', type, id) o
        ON o.showtime_id = b.showtime_id AND o.booking_id = b.id::text
       AND o.type = CASE WHEN b.status = 'FAILED' THEN 'BookingFailed' ELSE 'BookingConfirmed' END
     WHERE true ${only('b.showtime_id')}`;
  const missing = bookings.filter((b) => !b.event_id);
  Object.assign(figures, {
    bookingsConfirmed: bookings.filter((b) => b.status === 'CONFIRMED').length,
    bookingsFailed: bookings.filter((b) => b.status === 'FAILED').length,
    bookingsRefunded: bookings.filter((b) => b.status === 'REFUNDED').length,
    bookingEventsInOutbox: bookings.length - missing.length,
    bookingEventsUnpublished: bookings.filter((b) => b.event_id && !b.published).length,
  });
  counts.bookingsWithoutEvent = missing.length;
  if (missing.length)
    breaches.push(
      `bookings without their event in the outbox: ${missing.length} (${sample(missing.map((b) => b.id))})`,
    );

  if (options.redis) {
    const published = new Set(
      bookings.filter((b) => b.event_id && b.published && b.status !== 'FAILED').map((b) => b.event_id!),
    );
    const { found, trimmed } = await findInStream(
      options.redis.client,
      bookingEventsStreamKey(options.redis.keyPrefix ?? ''),
      published,
    );
    figures.bookingEventsInStream = found;
    // A trimmed stream (MAXLEN) may have dropped old entries; only an untrimmed one proves absence.
    if (found < published.size && !trimmed) counts.eventsMissingFromStream = published.size - found;
    if (found < published.size && !trimmed)
      breaches.push(`published BookingConfirmed events missing from the stream: ${published.size - found}`);
  }
  figures.showtimes = showtimes.length;
  figures.seatsBooked = showtimes.reduce((n, s) => n + s.booked, 0);
  figures.seatsHeld = showtimes.reduce((n, s) => n + s.held, 0);
  return { showtimes, figures, counts, breaches };
}

async function findInStream(
  redis: Redis,
  key: string,
  wanted: Set<string>,
): Promise<{ found: number; trimmed: boolean }> {
  let found = 0;
  let cursor = '-';
  const length = await redis.xlen(key);
  for (;;) {
    const entries = (await redis.xrange(key, cursor, '+', 'COUNT', 1000)) as [string, string[]][];
    for (const [, fields] of entries) {
      const at = fields.indexOf('eventId');
      if (at >= 0 && wanted.has(fields[at + 1]!)) found++;
    }
    if (entries.length < 1000) break;
    cursor = `(${entries[entries.length - 1]![0]}`;
  }
  return { found, trimmed: length >= 99_000 };
}

export function formatInvariantReport(report: InvariantReport): string {
  const lines: string[] = [];
  const shown = report.showtimes.slice(-10);
  if (report.showtimes.length > shown.length)
    lines.push(`  (${report.showtimes.length - shown.length} earlier showtimes checked, not listed)`);
  for (const s of shown) {
    lines.push(
      `  showtime ${String(s.showtimeId).padStart(5)}  held ${String(s.held).padStart(4)} + booked ${String(s.booked).padStart(4)} + available ${String(s.available).padStart(4)} = ${String(s.held + s.booked + s.available).padStart(4)}   hall ${s.hall}`,
    );
  }
  lines.push(
    `  ${Object.entries(report.figures)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  lines.push(
    report.breaches.length === 0
      ? '  invariants: all hold'
      : `  INVARIANT BREACHES (${report.breaches.length}):\n${report.breaches.map((b) => `    - ${b}`).join('\n')}`,
  );
  return lines.join('\n');
}
