import type { ShowtimeRow } from './showtime-repo';

/** The public shape of a showtime (GET /showtimes); admin views add the settings. */
export function publicShowtime(row: ShowtimeRow) {
  return {
    id: row.id,
    title: row.title,
    startsAt: row.starts_at.toISOString(),
    saleState: row.sale_state,
    opensAt: row.sale_opens_at.toISOString(),
    seatsAvailable: row.seats_available,
    seatsTotal: row.seats_total,
    priceCents: row.price_cents,
    currency: row.currency,
    /** Where: the venue (city may be empty) and the hall within it. */
    venue: { name: row.venue_name, city: row.venue_city },
    hall: { name: row.hall_name },
  };
}

export function adminShowtime(row: ShowtimeRow) {
  return {
    ...publicShowtime(row),
    hallId: row.hall_id,
    saleSetting: row.sale_state_setting,
    maxSeatsPerCustomer: row.max_seats_per_customer,
    holdTtlMs: row.hold_ttl_ms,
    idealRow: row.ideal_row,
    counts: { total: row.seats_total, available: row.seats_available, held: row.seats_held, booked: row.seats_booked },
  };
}
