-- Operator: sets a general-admission class's capacity, overbooking limit and bucket count.
-- Every bucket row is locked in bucket order; each row keeps at least what it has sold and held,
-- the rest is spread evenly. WRK09 (detail.used) when the new total is below what is sold and
-- held, or when fewer buckets would drop a row that still counts places.
CREATE OR REPLACE FUNCTION fare_configure_places(
  p_showtime_id bigint, p_fare_class text, p_capacity integer, p_overbook_limit integer, p_buckets smallint
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_used     integer;
  v_rest     integer;
  v_cap_left integer := p_capacity;
  v_row      record;
  v_share    integer;
  v_i        integer := 0;
BEGIN
  PERFORM 1 FROM fare_inventory f
   WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class ORDER BY f.bucket FOR UPDATE;
  IF EXISTS (SELECT 1 FROM fare_inventory f WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class
                AND f.bucket >= p_buckets AND f.sold + f.held > 0) THEN
    RAISE EXCEPTION 'buckets to drop still count places' USING ERRCODE = 'WRK09',
      DETAIL = json_build_object('reason', 'buckets')::text;
  END IF;
  DELETE FROM fare_inventory f WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class AND f.bucket >= p_buckets;
  INSERT INTO fare_inventory (showtime_id, fare_class, bucket, seated, capacity)
  SELECT p_showtime_id, p_fare_class, b, false, 0 FROM generate_series(0, p_buckets - 1) AS b
  ON CONFLICT (showtime_id, fare_class, bucket) DO NOTHING;
  UPDATE fare_class SET buckets = p_buckets WHERE showtime_id = p_showtime_id AND fare_class = p_fare_class;

  SELECT coalesce(sum(f.sold + f.held), 0) INTO v_used
    FROM fare_inventory f WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class;
  IF v_used > p_capacity + p_overbook_limit THEN
    RAISE EXCEPTION 'capacity below what is sold and held' USING ERRCODE = 'WRK09',
      DETAIL = json_build_object('reason', 'capacity', 'used', v_used)::text;
  END IF;
  v_rest := p_capacity + p_overbook_limit - v_used;
  FOR v_row IN
    SELECT f.bucket, f.sold + f.held AS used FROM fare_inventory f
     WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class ORDER BY f.bucket
  LOOP
    -- This row's allowance: what it uses plus its even share of the rest; capacity first,
    -- the overbooking share after it, so both totals come out exact.
    v_share := v_row.used + v_rest / p_buckets + CASE WHEN v_i < v_rest % p_buckets THEN 1 ELSE 0 END;
    UPDATE fare_inventory f SET capacity = least(v_share, v_cap_left), overbook_limit = v_share - least(v_share, v_cap_left)
     WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class AND f.bucket = v_row.bucket;
    v_cap_left := v_cap_left - least(v_share, v_cap_left);
    v_i := v_i + 1;
  END LOOP;
END;
$$;
