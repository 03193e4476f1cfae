-- WRITE: moves one bucket row's counts; growth only while the row stays within its limit.
-- WRF09 (class full) can only come from a seated class if the counters were corrupted; the
-- CHECK would refuse the same write anyway.
CREATE OR REPLACE FUNCTION fare_apply(p_showtime_id bigint, p_fare_class text, p_bucket smallint, p_held integer, p_sold integer)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE fare_inventory
     SET held = held + p_held, sold = sold + p_sold
   WHERE showtime_id = p_showtime_id AND fare_class = p_fare_class AND bucket = p_bucket
     AND (p_held + p_sold <= 0 OR sold + held + p_held + p_sold <= capacity + overbook_limit);
  IF NOT FOUND THEN
    RAISE EXCEPTION 'fare class % of showtime % has no room in bucket %', p_fare_class, p_showtime_id, p_bucket
      USING ERRCODE = 'WRF09', DETAIL = json_build_object('fareClass', p_fare_class, 'bucket', p_bucket)::text;
  END IF;
END;
$$;
