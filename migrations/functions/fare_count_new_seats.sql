-- Trigger (statement, AFTER INSERT ON show_seat): new seats (a new showtime) create the
-- showtime's seated classes and their bucket rows, counted as inserted.
CREATE OR REPLACE FUNCTION fare_count_new_seats() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_row record;
BEGIN
  INSERT INTO fare_class (showtime_id, fare_class, label, seated, buckets)
  SELECT n.showtime_id, n.fare_class, initcap(replace(lower(n.fare_class), '_', ' ')), true,
         fare_default_buckets((SELECT count(*) FROM show_seat s WHERE s.showtime_id = n.showtime_id AND s.fare_class = n.fare_class))
    FROM new_rows n GROUP BY n.showtime_id, n.fare_class
  ON CONFLICT (showtime_id, fare_class) DO NOTHING;
  FOR v_row IN
    SELECT n.showtime_id, n.fare_class, fare_seat_bucket(n.seat_code, c.buckets) AS bucket,
           count(*)::int AS seats,
           count(*) FILTER (WHERE n.status = 'HELD')::int AS held,
           count(*) FILTER (WHERE n.status = 'BOOKED')::int AS sold
      FROM new_rows n JOIN fare_class c ON c.showtime_id = n.showtime_id AND c.fare_class = n.fare_class AND c.seated
     GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  LOOP
    INSERT INTO fare_inventory (showtime_id, fare_class, bucket, seated, capacity, sold, held)
    VALUES (v_row.showtime_id, v_row.fare_class, v_row.bucket, true, v_row.seats, v_row.sold, v_row.held)
    ON CONFLICT (showtime_id, fare_class, bucket) DO UPDATE
      SET capacity = fare_inventory.capacity + excluded.capacity,
          sold = fare_inventory.sold + excluded.sold, held = fare_inventory.held + excluded.held;
  END LOOP;
  RETURN NULL;
END;
$$;
