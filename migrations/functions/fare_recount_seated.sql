-- Recomputes a seated class's bucket rows from its seats (after a change of its bucket count).
-- The caller holds the class's seats locked, so no hold moves them meanwhile.
CREATE OR REPLACE FUNCTION fare_recount_seated(p_showtime_id bigint, p_fare_class text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_buckets smallint;
BEGIN
  SELECT buckets INTO v_buckets FROM fare_class WHERE showtime_id = p_showtime_id AND fare_class = p_fare_class AND seated;
  DELETE FROM fare_inventory WHERE showtime_id = p_showtime_id AND fare_class = p_fare_class;
  INSERT INTO fare_inventory (showtime_id, fare_class, bucket, seated, capacity, sold, held)
  SELECT p_showtime_id, p_fare_class, b.bucket, true,
         count(s.seat_code), count(*) FILTER (WHERE s.status = 'BOOKED'), count(*) FILTER (WHERE s.status = 'HELD')
    FROM generate_series(0, v_buckets - 1) AS b(bucket)
    LEFT JOIN show_seat s ON s.showtime_id = p_showtime_id AND s.fare_class = p_fare_class
                         AND fare_seat_bucket(s.seat_code, v_buckets) = b.bucket
   GROUP BY b.bucket;
END;
$$;
