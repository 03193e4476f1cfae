-- Archives every seat_hold block whose showtimes all started before p_started_before (the rule
-- show_seat_detach_partitions follows); returns the archived names. A block's hold_allocation
-- rows (counter bookkeeping needed only while the sale runs) are deleted first: their foreign
-- key to seat_hold would refuse the detach.
CREATE OR REPLACE FUNCTION seat_hold_detach_partitions(p_started_before timestamptz)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  v_part record;
BEGIN
  FOR v_part IN SELECT * FROM showtime_block_partitions_finished('seat_hold', p_started_before) LOOP
    DELETE FROM hold_allocation WHERE showtime_id >= v_part.low AND showtime_id < v_part.high;
    RETURN NEXT partition_archive('seat_hold', v_part.partition_name);
  END LOOP;
END;
$$;
