-- state_transition is partitioned by month of `at`: creates the monthly partitions covering
-- [p_from, p_to) that do not exist yet, through partition_ensure; returns how many it created.
-- Partitions are named state_transition_yYYYYmMM (state_transition_detach_partitions reads
-- months from the names).
CREATE OR REPLACE FUNCTION state_transition_ensure_partitions(p_from timestamptz, p_to timestamptz)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_month timestamptz := date_trunc('month', p_from, 'UTC');
  v_made  integer := 0;
BEGIN
  WHILE v_month < p_to LOOP
    IF partition_ensure('state_transition', 'state_transition_' || to_char(v_month AT TIME ZONE 'UTC', '"y"YYYY"m"MM'), 'at',
                        v_month::text, (v_month + interval '1 month')::text) THEN
      v_made := v_made + 1;
    END IF;
    v_month := v_month + interval '1 month';
  END LOOP;
  RETURN v_made;
END;
$$;
