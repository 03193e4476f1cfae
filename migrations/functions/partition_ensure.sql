-- The generic partition helper: creates one range partition of p_parent named p_name, for
-- values of p_column in [p_from, p_to), unless a table of that name exists already (in public,
-- or in archive where retention moved it: an archived range is never recreated). Returns
-- whether it created one.
--
-- Rows written before the partition existed sit in the parent's DEFAULT partition
-- (<parent>_default), and attaching a range that DEFAULT holds rows of fails: those rows move
-- into the new table first, then it is attached. The bounds are text literals, read as the
-- column's type, so one helper serves monthly timestamptz ranges (state_transition) and blocks
-- of showtime ids (show_seat, seat_hold).
CREATE OR REPLACE FUNCTION partition_ensure(p_parent text, p_name text, p_column text, p_from text, p_to text)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_default  text := p_parent || '_default';
  v_stranded boolean;
BEGIN
  IF to_regclass(format('public.%I', p_name)) IS NOT NULL OR to_regclass(format('archive.%I', p_name)) IS NOT NULL THEN
    RETURN false;
  END IF;
  EXECUTE format('SELECT EXISTS (SELECT 1 FROM public.%I WHERE %I >= %L AND %I < %L)',
                 v_default, p_column, p_from, p_column, p_to) INTO v_stranded;
  IF v_stranded THEN
    EXECUTE format('CREATE TABLE public.%I (LIKE public.%I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', p_name, p_parent);
    EXECUTE format('WITH moved AS (DELETE FROM public.%I WHERE %I >= %L AND %I < %L RETURNING *) '
                   'INSERT INTO public.%I SELECT * FROM moved', v_default, p_column, p_from, p_column, p_to, p_name);
    EXECUTE format('ALTER TABLE public.%I ATTACH PARTITION public.%I FOR VALUES FROM (%L) TO (%L)', p_parent, p_name, p_from, p_to);
  ELSE
    EXECUTE format('CREATE TABLE public.%I PARTITION OF public.%I FOR VALUES FROM (%L) TO (%L)', p_name, p_parent, p_from, p_to);
  END IF;
  RETURN true;
END;
$$;
