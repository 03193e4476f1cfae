-- seats_eligible: every seat of a showtime with its hall position, and whether a best-available
-- buyer may have it now: free (AVAILABLE, or HELD by a lapsed hold, as hold_seats reads it), of
-- the asked class (any when NULL), and not a wheelchair space unless asked for. Couple pairs
-- are the caller's to judge. A plain SQL function: the planner inlines it into the caller's
-- statement (best_seats_anywhere, seats_together).
CREATE OR REPLACE FUNCTION seats_eligible(
  p_showtime_id bigint,
  p_hall_id     bigint,
  p_accessible  boolean,
  p_fare_class  text
) RETURNS TABLE (seat_code text, r integer, c integer, seat_type text, eligible boolean)
LANGUAGE sql STABLE AS $$
  SELECT hs.seat_code::text, hs.row_number::int, hs.column_number::int, hs.seat_type,
         (s.status = 'AVAILABLE' OR (s.status = 'HELD' AND s.hold_expires_at <= now()))
           AND (p_fare_class IS NULL OR s.fare_class = p_fare_class)
           AND (p_accessible OR hs.seat_type <> 'accessible')
    FROM show_seat s JOIN hall_seat hs ON hs.hall_id = p_hall_id AND hs.seat_code = s.seat_code
   WHERE s.showtime_id = p_showtime_id
$$;
