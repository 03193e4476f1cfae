-- A customer's bookings across showtimes ("My bookings", README.md "Cancelling a booking"):
-- booking_customer_idx leads with the showtime, so listing one customer's bookings would read
-- the whole table. Depends only on 0002's booking table, so it applies in either order.
CREATE INDEX booking_customer_recent_idx ON booking (customer_id, created_at DESC);
