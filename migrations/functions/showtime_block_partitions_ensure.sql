-- Tables partitioned by blocks of consecutive showtime ids (show_seat, seat_hold): creates the
-- partition of every block up to the one holding p_up_to_id, named <parent>_b<first id, 12
-- digits>, through partition_ensure; returns how many it created.
CREATE OR REPLACE FUNCTION showtime_block_partitions_ensure(p_parent text, p_up_to_id bigint)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_block bigint := show_seat_block_size();
  v_low   bigint := 0;
  v_made  integer := 0;
BEGIN
  WHILE v_low <= p_up_to_id LOOP
    IF partition_ensure(p_parent, format('%s_b%s', p_parent, lpad(v_low::text, 12, '0')), 'showtime_id',
                        v_low::text, (v_low + v_block)::text) THEN
      v_made := v_made + 1;
    END IF;
    v_low := v_low + v_block;
  END LOOP;
  RETURN v_made;
END;
$$;
