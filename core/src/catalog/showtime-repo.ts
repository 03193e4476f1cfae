import type { Db } from '../db/connect';

export type SaleState = 'opening_soon' | 'on_sale' | 'sold_out' | 'paused' | 'closed' | 'started';
/** The operator's switch, stored; SaleState is derived from it and the database clock. */
export type SaleSwitch = 'OPEN' | 'PAUSED' | 'CLOSED' | 'SOLD_OUT';

export interface ShowtimeRow {
  id: number;
  hall_id: number;
  title: string;
  starts_at: Date;
  sale_opens_at: Date;
  sale_state_setting: SaleSwitch;
  sale_state: SaleState;
  price_cents: number;
  currency: string;
  max_seats_per_customer: number;
  hold_ttl_ms: number;
  /** Best available's ideal row for this showtime (null: the hall's, or its default). */
  ideal_row: number | null;
  seats_total: number;
  seats_available: number;
  seats_held: number;
  seats_booked: number;
  venue_name: string;
  venue_city: string;
  hall_name: string;
}

/**
 * Showtime columns plus live seat counts and the derived sale state, all by the database
 * clock. A lapsed hold counts as available, exactly as the hold UPDATE will treat it.
 */
const showtimeSelect = (sql: Db) => sql`
  SELECT t.id, t.hall_id, t.title, t.starts_at, t.sale_opens_at, t.ideal_row,
         t.sale_state AS sale_state_setting,
         CASE WHEN t.sale_state = 'CLOSED' THEN 'closed'
              WHEN t.starts_at <= now() THEN 'started'
              WHEN t.sale_state = 'PAUSED' THEN 'paused'
              WHEN t.sale_state = 'SOLD_OUT' THEN 'sold_out'
              WHEN t.sale_opens_at > now() THEN 'opening_soon'
              -- no seat left and no general-admission place either (held places may come back)
              WHEN c.available = 0 AND NOT EXISTS (
                     SELECT 1 FROM fare_inventory f
                      WHERE f.showtime_id = t.id AND NOT f.seated AND f.sold + f.held < f.capacity + f.overbook_limit) THEN 'sold_out'
              ELSE 'on_sale' END AS sale_state,
         t.price_cents, t.currency, t.max_seats_per_customer, t.hold_ttl_ms,
         c.total AS seats_total, c.available AS seats_available,
         c.held AS seats_held, c.booked AS seats_booked,
         v.name AS venue_name, v.city AS venue_city, h.name AS hall_name
    FROM showtime t
    JOIN hall h ON h.id = t.hall_id
    JOIN venue v ON v.id = h.venue_id
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS total,
             count(*) FILTER (WHERE s.status = 'AVAILABLE'
                               OR (s.status = 'HELD' AND s.hold_expires_at <= now()))::int AS available,
             count(*) FILTER (WHERE s.status = 'HELD' AND s.hold_expires_at > now())::int AS held,
             count(*) FILTER (WHERE s.status = 'BOOKED')::int AS booked
        FROM show_seat s WHERE s.showtime_id = t.id
    ) c`;

export async function findShowtime(sql: Db, showtimeId: number): Promise<ShowtimeRow | null> {
  const [row] = await sql<ShowtimeRow[]>`${showtimeSelect(sql)} WHERE t.id = ${showtimeId}`;
  return row ?? null;
}

/** What a buyer can still act on: not closed, not started; soonest first. */
export async function listUpcomingShowtimes(sql: Db, limit: number): Promise<ShowtimeRow[]> {
  return sql<ShowtimeRow[]>`
    ${showtimeSelect(sql)}
     WHERE t.sale_state <> 'CLOSED' AND t.starts_at > now()
     ORDER BY t.starts_at, t.id
     LIMIT ${limit}`;
}

/** Showtimes whose waiting rooms matter now: not started more than an hour ago, soonest first. */
export async function listCurrentShowtimes(sql: Db, limit: number): Promise<ShowtimeRow[]> {
  return sql<ShowtimeRow[]>`
    ${showtimeSelect(sql)}
     WHERE t.starts_at > now() - interval '1 hour'
     ORDER BY t.starts_at, t.id
     LIMIT ${limit}`;
}

export interface NewShowtime {
  hallId: number;
  title: string;
  startsAt: Date;
  opensAt: Date;
  saleState: SaleSwitch;
  priceCents: number;
  currency: string;
  maxSeatsPerCustomer: number;
  holdTtlMs: number;
  idealRow?: number | null;
}

/** Creates the showtime and one AVAILABLE show_seat per hall seat, in one statement. */
export async function insertShowtime(sql: Db, input: NewShowtime): Promise<{ id: number; seats: number }> {
  const [row] = await sql<{ id: number; seats: number }[]>`
    WITH created AS (
      INSERT INTO showtime (hall_id, title, starts_at, sale_opens_at, sale_state, price_cents,
                            currency, max_seats_per_customer, hold_ttl_ms, ideal_row)
      VALUES (${input.hallId}, ${input.title}, ${input.startsAt}, ${input.opensAt}, ${input.saleState},
              ${input.priceCents}, ${input.currency}, ${input.maxSeatsPerCustomer}, ${input.holdTtlMs}, ${input.idealRow ?? null})
      RETURNING id, hall_id
    ), seats AS (
      INSERT INTO show_seat (showtime_id, seat_code)
      SELECT c.id, h.seat_code FROM created c JOIN hall_seat h ON h.hall_id = c.hall_id
      RETURNING 1
    )
    SELECT c.id, (SELECT count(*) FROM seats)::int AS seats FROM created c`;
  return row!;
}

export interface ShowtimeChanges {
  title?: string;
  startsAt?: Date;
  opensAt?: Date;
  saleState?: SaleSwitch;
  /** Logged with a change of the switch (state_transition.cause). */
  saleStateCause?: string;
  priceCents?: number;
  maxSeatsPerCustomer?: number;
  holdTtlMs?: number;
  /** null clears it (the hall's ideal row again); absent leaves it. */
  idealRow?: number | null;
}

/** Applies only the given fields; returns false when the showtime does not exist. */
export async function updateShowtime(sql: Db, showtimeId: number, changes: ShowtimeChanges): Promise<boolean> {
  const rows = await sql`
    UPDATE showtime SET
      title = coalesce(${changes.title ?? null}::text, title),
      starts_at = coalesce(${changes.startsAt ?? null}::timestamptz, starts_at),
      sale_opens_at = coalesce(${changes.opensAt ?? null}::timestamptz, sale_opens_at),
      sale_state = coalesce(${changes.saleState ?? null}::text, sale_state),
      sale_state_cause = coalesce(${changes.saleStateCause ?? null}::text, sale_state_cause),
      price_cents = coalesce(${changes.priceCents ?? null}::int, price_cents),
      max_seats_per_customer = coalesce(${changes.maxSeatsPerCustomer ?? null}::smallint, max_seats_per_customer),
      hold_ttl_ms = coalesce(${changes.holdTtlMs ?? null}::int, hold_ttl_ms),
      ideal_row = CASE WHEN ${changes.idealRow !== undefined} THEN ${changes.idealRow ?? null}::smallint ELSE ideal_row END
    WHERE id = ${showtimeId}
    RETURNING id`;
  return rows.length === 1;
}
