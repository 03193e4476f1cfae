import type { Db } from '../db/connect';

/**
 * SQL only for fare classes and their counters (migrations/0008_fare_inventory.sql explains the
 * model: classes, bucket rows, who moves the counts). Rules live in fare-service.ts.
 */

export interface FareClassRow {
  fare_class: string;
  label: string;
  /** The class's own price, or the showtime's when the class has none. */
  price_cents: number;
  own_price: boolean;
  seated: boolean;
  buckets: number;
  capacity: number;
  overbook_limit: number;
  sold: number;
  /** Places held, lapsed holds included until someone reclaims them (what the CHECK counts). */
  held: number;
  /** Places held by holds still live by the database clock. */
  held_live: number;
  /** What a buyer can still get: lapsed holds count as free, as the hold statements treat them. */
  available: number;
}

/** A general-admission hold: see migrations/functions/hold_places.sql. */
export async function holdPlaces(
  sql: Db,
  args: { showtimeId: number; customerId: string; fareClass: string; quantity: number; holdId: string },
) {
  const [row] = await sql<{ hold_id: string; expires_at: Date; fare_class: string; quantity: number }[]>`
    SELECT hold_id, expires_at, fare_class, quantity
      FROM hold_places(${args.showtimeId}::bigint, ${args.customerId}::text, ${args.fareClass}::text,
                       ${args.quantity}::int, ${args.holdId}::uuid)`;
  return row!;
}

/** Every class of a showtime with its totals over the bucket rows and its live counts. */
export async function listFareClasses(sql: Db, showtimeId: number): Promise<FareClassRow[]> {
  return sql<FareClassRow[]>`
    SELECT c.fare_class, c.label, coalesce(c.price_cents, t.price_cents) AS price_cents,
           c.price_cents IS NOT NULL AS own_price, c.seated, c.buckets,
           f.capacity, f.overbook_limit, f.sold, f.held,
           CASE WHEN c.seated THEN s.held_live ELSE g.held_live END AS held_live,
           greatest(0, f.capacity + f.overbook_limit - f.sold
                       - CASE WHEN c.seated THEN s.held_live ELSE g.held_live END) AS available
      FROM fare_class c
      JOIN showtime t ON t.id = c.showtime_id
      CROSS JOIN LATERAL (
        SELECT coalesce(sum(i.capacity), 0)::int AS capacity, coalesce(sum(i.overbook_limit), 0)::int AS overbook_limit,
               coalesce(sum(i.sold), 0)::int AS sold, coalesce(sum(i.held), 0)::int AS held
          FROM fare_inventory i WHERE i.showtime_id = c.showtime_id AND i.fare_class = c.fare_class
      ) f
      CROSS JOIN LATERAL (
        SELECT count(*)::int AS held_live FROM show_seat x
         WHERE c.seated AND x.showtime_id = c.showtime_id AND x.fare_class = c.fare_class
           AND x.status = 'HELD' AND x.hold_expires_at > now()
      ) s
      CROSS JOIN LATERAL (
        SELECT coalesce(sum(h.quantity), 0)::int AS held_live FROM seat_hold h
         WHERE NOT c.seated AND h.showtime_id = c.showtime_id AND h.fare_class = c.fare_class
           AND h.status = 'ACTIVE' AND h.expires_at > now()
      ) g
     WHERE c.showtime_id = ${showtimeId}
     ORDER BY c.seated DESC, coalesce(c.price_cents, t.price_cents) DESC, c.fare_class`;
}

/** A new general-admission class with no places yet (configurePlaces gives it its capacity). */
export async function insertPlacesClass(
  sql: Db,
  args: { showtimeId: number; fareClass: string; label: string; priceCents: number | null },
) {
  const rows = await sql`
    INSERT INTO fare_class (showtime_id, fare_class, label, price_cents, seated, buckets)
    VALUES (${args.showtimeId}, ${args.fareClass}, ${args.label}, ${args.priceCents}, false, 1)
    ON CONFLICT (showtime_id, fare_class) DO NOTHING
    RETURNING fare_class`;
  return rows.length === 1;
}

/** The class row, locked: operator changes of one class run one at a time. */
export async function lockFareClass(sql: Db, showtimeId: number, fareClass: string) {
  const [row] = await sql<{ seated: boolean; buckets: number; label: string; price_cents: number | null }[]>`
    SELECT seated, buckets, label, price_cents FROM fare_class
     WHERE showtime_id = ${showtimeId} AND fare_class = ${fareClass} FOR UPDATE`;
  return row ?? null;
}

export async function updateFareClassLabelAndPrice(
  sql: Db,
  args: { showtimeId: number; fareClass: string; label?: string; priceCents?: number | null },
) {
  await sql`
    UPDATE fare_class SET
      label = coalesce(${args.label ?? null}::text, label),
      price_cents = CASE WHEN ${args.priceCents !== undefined} THEN ${args.priceCents ?? null}::int ELSE price_cents END
     WHERE showtime_id = ${args.showtimeId} AND fare_class = ${args.fareClass}`;
}

/** Capacity, overbooking limit and buckets of a general-admission class (fare_configure_places). */
export async function configurePlaces(
  sql: Db,
  args: { showtimeId: number; fareClass: string; capacity: number; overbookLimit: number; buckets: number },
) {
  await sql`
    SELECT fare_configure_places(${args.showtimeId}::bigint, ${args.fareClass}::text, ${args.capacity}::int,
                                 ${args.overbookLimit}::int, ${args.buckets}::smallint)`;
}

/**
 * A seated class's bucket count. Its seats are locked first (seat-code order, as every writer
 * takes them), so no hold moves a seat while the bucket rows are rebuilt from the seats.
 */
export async function setSeatedBuckets(sql: Db, args: { showtimeId: number; fareClass: string; buckets: number }) {
  await sql`
    SELECT 1 FROM show_seat WHERE showtime_id = ${args.showtimeId} AND fare_class = ${args.fareClass}
     ORDER BY showtime_id, seat_code FOR UPDATE`;
  await sql`UPDATE fare_class SET buckets = ${args.buckets} WHERE showtime_id = ${args.showtimeId} AND fare_class = ${args.fareClass}`;
  await sql`SELECT fare_recount_seated(${args.showtimeId}::bigint, ${args.fareClass}::text)`;
}

/** The amount a hold costs: each seat at its class's price, general-admission places at theirs. */
export async function holdAmountCents(sql: Db, holdId: string, showtimeId: number): Promise<number> {
  const [row] = await sql<{ amount: number }[]>`
    SELECT coalesce((
             SELECT sum(coalesce(c.price_cents, t.price_cents))
               FROM seat_hold h
               JOIN showtime t ON t.id = h.showtime_id
               JOIN show_seat s ON s.showtime_id = h.showtime_id AND s.seat_code = ANY (h.seat_codes)
               JOIN fare_class c ON c.showtime_id = s.showtime_id AND c.fare_class = s.fare_class
              WHERE h.showtime_id = ${showtimeId} AND h.id = ${holdId}::uuid), 0)
         + coalesce((
             SELECT h.quantity * coalesce(c.price_cents, t.price_cents)
               FROM seat_hold h
               JOIN showtime t ON t.id = h.showtime_id
               JOIN fare_class c ON c.showtime_id = h.showtime_id AND c.fare_class = h.fare_class
              WHERE h.showtime_id = ${showtimeId} AND h.id = ${holdId}::uuid), 0) AS amount`;
  return Number(row?.amount ?? 0);
}

/** Whether the showtime exists. */
export async function showtimeExists(sql: Db, showtimeId: number): Promise<boolean> {
  const rows = await sql`SELECT 1 FROM showtime WHERE id = ${showtimeId}`;
  return rows.length === 1;
}

/** The showtime's settings version (for the audit row), or null for no such showtime. */
export async function showtimeSettingsVersion(sql: Db, showtimeId: number): Promise<{ version: number | null } | null> {
  const [row] = await sql<{ version: number | null }[]>`
    SELECT (SELECT version FROM room_settings r WHERE r.showtime_id = t.id) AS version FROM showtime t WHERE t.id = ${showtimeId}`;
  return row ?? null;
}

/** The class each of these seats is sold in (seats not in the showtime are missing). */
export async function seatClassesOf(sql: Db, showtimeId: number, seats: string[]) {
  return sql<{ seat_code: string; fare_class: string }[]>`
    SELECT seat_code, fare_class FROM show_seat WHERE showtime_id = ${showtimeId} AND seat_code = ANY (${seats}::text[])`;
}

/** These classes' rows, locked in class-code order (two operator changes cannot deadlock). */
export async function lockFareClasses(sql: Db, showtimeId: number, classes: string[]) {
  return sql<{ fare_class: string; seated: boolean }[]>`
    SELECT fare_class, seated FROM fare_class WHERE showtime_id = ${showtimeId} AND fare_class = ANY (${classes}::text[])
     ORDER BY fare_class FOR UPDATE`;
}

/** A new seated class at the showtime's price, one bucket row (its seats move in afterwards). */
export async function insertSeatedClass(sql: Db, args: { showtimeId: number; fareClass: string; label: string }) {
  await sql`
    INSERT INTO fare_class (showtime_id, fare_class, label, seated, buckets)
    VALUES (${args.showtimeId}, ${args.fareClass}, ${args.label}, true, 1)`;
}

/** Every seat of these classes, locked in seat-code order (holds wait meanwhile). */
export async function lockSeatsOfClasses(sql: Db, showtimeId: number, classes: string[]) {
  return sql<{ seat_code: string; fare_class: string; status: string }[]>`
    SELECT seat_code, fare_class, status FROM show_seat
     WHERE showtime_id = ${showtimeId} AND fare_class = ANY (${classes}::text[])
     ORDER BY showtime_id, seat_code FOR UPDATE`;
}

/** These seats are sold in that class from now on (the caller holds them locked and free). */
export async function moveSeatsToClass(sql: Db, args: { showtimeId: number; fareClass: string; seats: string[] }) {
  await sql`
    UPDATE show_seat SET fare_class = ${args.fareClass}
     WHERE showtime_id = ${args.showtimeId} AND seat_code = ANY (${args.seats}::text[])`;
}

/**
 * A seated class's bucket rows rebuilt from its seats (fare_recount_seated); a class left
 * without seats is removed instead. The caller holds the class's seats locked.
 */
export async function recountOrRemoveSeatedClass(sql: Db, showtimeId: number, fareClass: string) {
  const [left] = await sql<{ seats: number }[]>`
    SELECT count(*)::int AS seats FROM show_seat WHERE showtime_id = ${showtimeId} AND fare_class = ${fareClass}`;
  if (left!.seats === 0)
    await sql`DELETE FROM fare_class WHERE showtime_id = ${showtimeId} AND fare_class = ${fareClass} AND seated`;
  else await sql`SELECT fare_recount_seated(${showtimeId}::bigint, ${fareClass}::text)`;
}
