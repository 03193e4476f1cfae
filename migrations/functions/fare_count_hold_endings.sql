-- Trigger (statement, AFTER UPDATE ON seat_hold): general-admission holds that ended give
-- their places back to the bucket rows they took them from (hold_allocation), and count them as
-- sold when the hold was paid for. Old and new rows are joined on the whole key (showtime_id,
-- id): hold ids are unique per showtime, and each probe stays in one partition.
CREATE OR REPLACE FUNCTION fare_count_hold_endings() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_row record;
BEGIN
  -- Seated holds (fare_class NULL: every hold of the chosen-seat and best-available paths)
  -- have no allocation to give back; their seats are counted by the show_seat trigger. One
  -- look at the new rows spares them the join below.
  IF NOT EXISTS (SELECT 1 FROM new_rows WHERE fare_class IS NOT NULL) THEN
    RETURN NULL;
  END IF;
  FOR v_row IN
    SELECT a.showtime_id, a.fare_class::text AS fare_class, a.bucket,
           -sum(a.quantity)::int AS held,
           sum(CASE WHEN n.status = 'CONFIRMED' THEN a.quantity ELSE 0 END)::int AS sold
      FROM new_rows n JOIN old_rows o ON o.showtime_id = n.showtime_id AND o.id = n.id
      JOIN hold_allocation a ON a.hold_id = n.id AND a.showtime_id = n.showtime_id
     WHERE o.status = 'ACTIVE' AND n.status <> 'ACTIVE'
     GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  LOOP
    PERFORM fare_apply(v_row.showtime_id, v_row.fare_class, v_row.bucket, v_row.held, v_row.sold);
  END LOOP;
  RETURN NULL;
END;
$$;
