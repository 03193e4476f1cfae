-- The blocks of p_parent (show_seat, seat_hold) that retention may archive: below the newest
-- showtime's block (new showtimes are still being created there) and with every showtime in
-- them started before p_started_before. In name order, with each block's id range [low, high).
CREATE OR REPLACE FUNCTION showtime_block_partitions_finished(p_parent text, p_started_before timestamptz)
RETURNS TABLE (partition_name text, low bigint, high bigint) LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_block  bigint := show_seat_block_size();
  v_newest bigint := coalesce((SELECT max(id) FROM showtime), 0);
BEGIN
  RETURN QUERY
    SELECT b.relname, b.low, b.low + v_block
      FROM (SELECT c.relname::text AS relname, substr(c.relname, length(p_parent) + 3)::bigint AS low
              FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = p_parent::regclass AND c.relname ~ ('^' || p_parent || '_b[0-9]{12}$')) b
     WHERE b.low + v_block <= v_newest
       AND NOT EXISTS (SELECT 1 FROM showtime t
                        WHERE t.id >= b.low AND t.id < b.low + v_block AND t.starts_at >= p_started_before)
     ORDER BY b.relname;
END;
$$;
