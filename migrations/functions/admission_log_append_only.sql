-- Trigger (statement and row, BEFORE UPDATE OR DELETE OR TRUNCATE ON admission_log).
-- GUARD: the admission log is append-only. An entry, once chained, is never changed or
-- removed; a published head stays a prefix of every later log. Refused with WRF01.
CREATE OR REPLACE FUNCTION admission_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the admission log is append-only (% refused)', TG_OP USING ERRCODE = 'WRF01';
END;
$$;
