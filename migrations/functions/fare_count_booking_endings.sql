-- Trigger (statement, AFTER UPDATE ON booking): general-admission bookings refunded or
-- cancelled: their places are for sale again.
CREATE OR REPLACE FUNCTION fare_count_booking_endings() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_row record;
BEGIN
  FOR v_row IN
    SELECT a.showtime_id, a.fare_class::text AS fare_class, a.bucket, -sum(a.quantity)::int AS sold
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      JOIN hold_allocation a ON a.hold_id = n.hold_id
     WHERE o.status = 'CONFIRMED' AND n.status <> 'CONFIRMED'
     GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  LOOP
    PERFORM fare_apply(v_row.showtime_id, v_row.fare_class, v_row.bucket, 0, v_row.sold);
  END LOOP;
  RETURN NULL;
END;
$$;
