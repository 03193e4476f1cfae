-- Trigger (statement, AFTER UPDATE ON show_seat): seats that changed state: each one's old
-- state leaves its bucket row, its new state enters its (possibly other) bucket row. Rows are
-- written in key order (no deadlock between batches).
CREATE OR REPLACE FUNCTION fare_count_seat_changes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_row record;
BEGIN
  -- Most statements in a stampede change nothing (the seat was taken): nothing to count.
  IF NOT EXISTS (SELECT 1 FROM new_rows) THEN
    RETURN NULL;
  END IF;
  FOR v_row IN
    WITH moves AS (
      SELECT o.showtime_id, o.fare_class, o.seat_code, -1 AS sign, o.status FROM old_rows o
      UNION ALL
      SELECT n.showtime_id, n.fare_class, n.seat_code, 1 AS sign, n.status FROM new_rows n
    )
    SELECT m.showtime_id, m.fare_class::text AS fare_class, fare_seat_bucket(m.seat_code, c.buckets) AS bucket,
           sum(m.sign * (m.status = 'HELD')::int)::int AS held,
           sum(m.sign * (m.status = 'BOOKED')::int)::int AS sold
      FROM moves m JOIN fare_class c ON c.showtime_id = m.showtime_id AND c.fare_class = m.fare_class
     GROUP BY 1, 2, 3
    HAVING sum(m.sign * (m.status = 'HELD')::int) <> 0 OR sum(m.sign * (m.status = 'BOOKED')::int) <> 0
     ORDER BY 1, 2, 3
  LOOP
    PERFORM fare_apply(v_row.showtime_id, v_row.fare_class, v_row.bucket, v_row.held, v_row.sold);
  END LOOP;
  RETURN NULL;
END;
$$;
