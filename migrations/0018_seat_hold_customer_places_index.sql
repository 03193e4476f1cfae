-- A customer's holds are looked up by customer for one thing only: counting the general-
-- admission places they hold or own against the per-customer limit (hold_seats,
-- hold_best_seats, hold_places, customer_places_owned, all with fare_class IS NOT NULL). Seats
-- are counted in show_seat, whose customer index holds only current holders. The index over
-- every hold made that count walk the customer's whole history (each ended seated hold read
-- and thrown away: a buyer who held and cancelled a thousand times paid a thousand heap reads
-- per hold) and cost every seated hold two index entries (the insert, and the cancel or
-- confirmation that moves its status). Only general-admission holds are indexed now.
DROP INDEX IF EXISTS seat_hold_customer_idx;
CREATE INDEX seat_hold_customer_places_idx ON seat_hold (showtime_id, customer_id) WHERE fare_class IS NOT NULL;
