-- seats_together: what a refused "N together" tells the buyer: the most eligible seats that sit
-- together in one row right now (max_run) and how many eligible seats are left (available).
-- Eligible as hold_best_seats reads it: free (AVAILABLE, or HELD by a lapsed hold), of the
-- asked class, accessible only when asked for, and a couple seat only when its partner is free
-- too. Run on a refusal only: it reads every seat of the showtime.
CREATE OR REPLACE FUNCTION seats_together(
  p_showtime_id bigint,
  p_hall_id     bigint,
  p_accessible  boolean,
  p_fare_class  text
) RETURNS TABLE (max_run integer, available integer)
LANGUAGE sql STABLE AS $$
  WITH seat AS (
    SELECT * FROM seats_eligible(p_showtime_id, p_hall_id, p_accessible, p_fare_class)
  ), paired AS (
    SELECT seat.*,
           CASE WHEN seat_type = 'couple' THEN
             CASE WHEN row_number() OVER w % 2 = 1 THEN lead(c) OVER w ELSE lag(c) OVER w END END AS partner_c,
           CASE WHEN seat_type = 'couple' THEN
             CASE WHEN row_number() OVER w % 2 = 1 THEN lead(eligible) OVER w ELSE lag(eligible) OVER w END END AS partner_eligible
      FROM seat
    WINDOW w AS (PARTITION BY r, seat_type = 'couple' ORDER BY c)
  ), runs AS (
    SELECT count(*)::int AS seats
      FROM (SELECT p.r, p.c - row_number() OVER (PARTITION BY p.r ORDER BY p.c) AS run
              FROM paired p
             WHERE p.eligible AND (p.partner_c IS NULL OR p.partner_eligible)) e
     GROUP BY e.r, e.run
  )
  SELECT coalesce(max(seats), 0)::int, coalesce(sum(seats), 0)::int FROM runs;
$$;
