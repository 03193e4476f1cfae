-- How many places (seats and general-admission places) a customer holds live or owns.
CREATE OR REPLACE FUNCTION customer_places_owned(p_showtime_id bigint, p_customer_id text) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_seats  integer;
  v_places integer;
BEGIN
  -- plpgsql, not sql: its plans are cached per session, and this runs on every hold.
  SELECT count(*) INTO v_seats FROM show_seat s
   WHERE s.showtime_id = p_showtime_id AND s.customer_id = p_customer_id
     AND (s.status = 'BOOKED' OR (s.status = 'HELD' AND s.hold_expires_at > now()));
  SELECT coalesce(sum(h.quantity), 0) INTO v_places FROM seat_hold h
   WHERE h.showtime_id = p_showtime_id AND h.customer_id = p_customer_id AND h.fare_class IS NOT NULL
     AND ((h.status = 'ACTIVE' AND h.expires_at > now())
          OR (h.status = 'CONFIRMED' AND EXISTS (
                SELECT 1 FROM booking b WHERE b.hold_id = h.id AND b.status = 'CONFIRMED')));
  RETURN v_seats + v_places;
END;
$$;
