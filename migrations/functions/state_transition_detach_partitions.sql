-- Archives the monthly state_transition partitions that end on or before p_before; returns
-- their names.
CREATE OR REPLACE FUNCTION state_transition_detach_partitions(p_before timestamptz)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  v_part record;
BEGIN
  FOR v_part IN
    SELECT c.relname::text AS relname,
           make_timestamptz(substr(c.relname, 19, 4)::int, substr(c.relname, 24, 2)::int, 1, 0, 0, 0, 'UTC') AS month_start
      FROM pg_inherits i
      JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'state_transition'::regclass
       AND c.relname ~ '^state_transition_y[0-9]{4}m[0-9]{2}$'
     ORDER BY c.relname
  LOOP
    CONTINUE WHEN v_part.month_start + interval '1 month' > p_before;
    RETURN NEXT partition_archive('state_transition', v_part.relname);
  END LOOP;
END;
$$;
