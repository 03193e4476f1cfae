-- show_seat is partitioned by blocks of showtime ids (show_seat_block_size()): creates the
-- partitions of every block up to the one holding p_up_to_id; returns how many. The retention
-- job keeps two blocks ahead of the newest showtime.
CREATE OR REPLACE FUNCTION show_seat_ensure_partitions(p_up_to_id bigint)
RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  RETURN showtime_block_partitions_ensure('show_seat', p_up_to_id);
END;
$$;
