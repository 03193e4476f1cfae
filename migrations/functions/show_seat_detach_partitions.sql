-- Archives every show_seat block whose showtimes all started before p_started_before (and that
-- is below the newest showtime's block); returns the archived names.
CREATE OR REPLACE FUNCTION show_seat_detach_partitions(p_started_before timestamptz)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  v_part record;
BEGIN
  FOR v_part IN SELECT * FROM showtime_block_partitions_finished('show_seat', p_started_before) LOOP
    RETURN NEXT partition_archive('show_seat', v_part.partition_name);
  END LOOP;
END;
$$;
