-- seat_hold is partitioned like show_seat, in the same blocks of showtime ids, so a finished
-- block's seats and holds are archived together: creates the partitions of every block up to the
-- one holding p_up_to_id; returns how many.
CREATE OR REPLACE FUNCTION seat_hold_ensure_partitions(p_up_to_id bigint)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  RETURN showtime_block_partitions_ensure('seat_hold', p_up_to_id);
END;
$$;
