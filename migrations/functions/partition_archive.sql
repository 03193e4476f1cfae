-- The generic partition helper's other half: detaches partition p_name from p_parent and moves
-- it into the archive schema, where an operator dumps and drops it (a catalog change, not
-- millions of DELETEs, and no bloat left behind). Returns p_name. Which partitions are due is
-- the caller's rule (state_transition_detach_partitions, showtime_block_partitions_finished).
CREATE OR REPLACE FUNCTION partition_archive(p_parent text, p_name text)
RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER TABLE public.%I DETACH PARTITION public.%I', p_parent, p_name);
  EXECUTE format('ALTER TABLE public.%I SET SCHEMA archive', p_name);
  RETURN p_name;
END;
$$;
