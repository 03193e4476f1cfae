-- How many places (seats and general-admission places) a customer holds live or owns. Places
-- are counted only where the showtime sells general admission: a seated-only sale has none, and
-- skipping the count spares every hold a read (and locks) of seat_hold's partitions.
CREATE OR REPLACE FUNCTION customer_places_owned(p_showtime_id bigint, p_customer_id text) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_seats  integer;
BEGIN
  -- plpgsql, not sql: its plans are cached per session, and this runs on every hold.
  SELECT count(*) INTO v_seats FROM show_seat s
   WHERE s.showtime_id = p_showtime_id AND s.customer_id = p_customer_id
     AND (s.status = 'BOOKED' OR (s.status = 'HELD' AND s.hold_expires_at > now()));
  IF EXISTS (SELECT 1 FROM fare_class c WHERE c.showtime_id = p_showtime_id AND NOT c.seated) THEN
    v_seats := v_seats + customer_places_held(p_showtime_id, p_customer_id);
  END IF;
  RETURN v_seats;
END;
$$;
