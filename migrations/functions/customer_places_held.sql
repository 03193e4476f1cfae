-- How many general-admission places a customer holds live or owns (paid for) in a showtime.
-- plpgsql, not sql: its plan is cached per session.
CREATE OR REPLACE FUNCTION customer_places_held(p_showtime_id bigint, p_customer_id text) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(sum(h.quantity), 0) FROM seat_hold h
           WHERE h.showtime_id = p_showtime_id AND h.customer_id = p_customer_id AND h.fare_class IS NOT NULL
             AND ((h.status = 'ACTIVE' AND h.expires_at > now())
                  OR (h.status = 'CONFIRMED' AND EXISTS (
                        SELECT 1 FROM booking b WHERE b.hold_id = h.id AND b.status = 'CONFIRMED'))));
END;
$$;
