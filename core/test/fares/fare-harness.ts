import type { Sql } from 'postgres';
import { configurePlaces, holdAmountCents, insertPlacesClass } from '../../src/fares/fare-repo';
import { insertPayment } from '../../src/payments/payment-repo';
import { settlePayment } from '../../src/payments/settlement';
import { unique } from '../core-harness';

/** A general-admission class on a showtime, set up through the same SQL the operator API uses. */
export async function createPlacesClass(
  sql: Sql,
  args: {
    showtimeId: number;
    fareClass: string;
    capacity: number;
    overbookLimit?: number;
    buckets?: number;
    priceCents?: number | null;
  },
) {
  await sql.begin(async (tx) => {
    await insertPlacesClass(tx, {
      showtimeId: args.showtimeId,
      fareClass: args.fareClass,
      label: args.fareClass,
      priceCents: args.priceCents ?? null,
    });
    await configurePlaces(tx, {
      showtimeId: args.showtimeId,
      fareClass: args.fareClass,
      capacity: args.capacity,
      overbookLimit: args.overbookLimit ?? 0,
      buckets: args.buckets ?? 1,
    });
  });
}

export interface CountMismatch {
  fare_class: string;
  bucket: number;
  held: number;
  sold: number;
  expected_held: number;
  expected_sold: number;
  capacity: number;
  /** Seated rows: the seats of the class that fall in the bucket (null for general admission). */
  expected_capacity: number | null;
}

/**
 * Every bucket row whose counters differ from what the seats and holds say: seated rows against
 * the HELD and BOOKED seats that fall in them, general-admission rows against the allocations of
 * ACTIVE holds (held) and of paid holds whose booking still stands (sold); and a seated row's
 * capacity against its seats (a seat that changed class moved its capacity). Empty = all agree.
 */
export async function countMismatches(sql: Sql, showtimeId: number): Promise<CountMismatch[]> {
  return sql<CountMismatch[]>`
    WITH expected AS (
      SELECT s.fare_class, fare_seat_bucket(s.seat_code, c.buckets) AS bucket,
             count(*) FILTER (WHERE s.status = 'HELD')::int AS held,
             count(*) FILTER (WHERE s.status = 'BOOKED')::int AS sold,
             count(*)::int AS seats
        FROM show_seat s JOIN fare_class c ON c.showtime_id = s.showtime_id AND c.fare_class = s.fare_class
       WHERE s.showtime_id = ${showtimeId}
       GROUP BY 1, 2
      UNION ALL
      SELECT a.fare_class, a.bucket,
             coalesce(sum(a.quantity) FILTER (WHERE h.status = 'ACTIVE'), 0)::int,
             coalesce(sum(a.quantity) FILTER (WHERE h.status = 'CONFIRMED' AND NOT EXISTS (
               SELECT 1 FROM booking b WHERE b.hold_id = h.id AND b.status NOT IN ('CONFIRMED', 'FAILED'))), 0)::int,
             0
        FROM hold_allocation a JOIN seat_hold h ON h.id = a.hold_id
       WHERE a.showtime_id = ${showtimeId}
       GROUP BY 1, 2
    )
    SELECT f.fare_class, f.bucket, f.held, f.sold,
           coalesce(sum(e.held), 0)::int AS expected_held, coalesce(sum(e.sold), 0)::int AS expected_sold,
           f.capacity, CASE WHEN f.seated THEN coalesce(sum(e.seats), 0)::int END AS expected_capacity
      FROM fare_inventory f
      LEFT JOIN expected e ON e.fare_class = f.fare_class AND e.bucket = f.bucket
     WHERE f.showtime_id = ${showtimeId}
     GROUP BY f.fare_class, f.bucket, f.held, f.sold, f.capacity, f.seated
    HAVING f.held <> coalesce(sum(e.held), 0) OR f.sold <> coalesce(sum(e.sold), 0)
        OR (f.seated AND f.capacity <> coalesce(sum(e.seats), 0))
    UNION ALL
    -- Seats whose class has no counter row at all.
    SELECT s.fare_class, -1, 0, 0, 0, 0, 0, count(*)::int
      FROM show_seat s
     WHERE s.showtime_id = ${showtimeId}
       AND NOT EXISTS (SELECT 1 FROM fare_inventory f WHERE f.showtime_id = s.showtime_id AND f.fare_class = s.fare_class)
     GROUP BY s.fare_class`;
}

/** Totals of one class over its bucket rows. */
export async function classTotals(sql: Sql, showtimeId: number, fareClass: string) {
  const [row] = await sql<{ capacity: number; overbook_limit: number; held: number; sold: number; rows: number }[]>`
    SELECT coalesce(sum(capacity), 0)::int AS capacity, coalesce(sum(overbook_limit), 0)::int AS overbook_limit,
           coalesce(sum(held), 0)::int AS held, coalesce(sum(sold), 0)::int AS sold, count(*)::int AS rows
      FROM fare_inventory WHERE showtime_id = ${showtimeId} AND fare_class = ${fareClass}`;
  return row!;
}

/** Pays for a hold at its price as the gateway's callback would (a payment row, then settled). */
export async function payHold(sql: Sql, holdId: string, showtimeId: number, customerId: string) {
  const paymentId = `pay_${unique('p').replace(/\W/g, '')}`;
  await insertPayment(sql, {
    id: paymentId,
    hold_id: holdId,
    showtime_id: showtimeId,
    customer_id: customerId,
    amount_cents: await holdAmountCents(sql, holdId, showtimeId),
    currency: 'EUR',
    checkout_url: 'http://pay.test',
    expires_at: new Date(Date.now() + 60_000),
  });
  return settlePayment(sql, { paymentId, outcome: 'succeeded', cause: 'test payment' });
}
