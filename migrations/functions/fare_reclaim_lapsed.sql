-- Ends up to 500 lapsed general-admission holds of one class (EXPIRED, announced through the
-- outbox); the seat_hold trigger gives their places back. Called by hold_places when a class
-- looks full, so lapsed places are reclaimed by the next buyer, without a sweeper. Rows are
-- matched on the whole key (showtime_id, id), so each probes one partition's primary key.
-- Returns how many holds it ended.
CREATE OR REPLACE FUNCTION fare_reclaim_lapsed(p_showtime_id bigint, p_fare_class text) RETURNS integer
LANGUAGE sql AS $$
  WITH lapsed AS (
    SELECT showtime_id, id FROM seat_hold
     WHERE showtime_id = p_showtime_id AND fare_class = p_fare_class AND status = 'ACTIVE' AND expires_at <= now()
     ORDER BY expires_at
     LIMIT 500
       FOR UPDATE SKIP LOCKED
  ), ended AS (
    UPDATE seat_hold h SET status = 'EXPIRED', status_cause = 'hold time ran out (places reclaimed by a new hold)', ended_at = now()
      FROM lapsed l WHERE h.showtime_id = l.showtime_id AND h.id = l.id
    RETURNING h.id, h.showtime_id, h.customer_id, h.fare_class, h.quantity
  ), announced AS (
    INSERT INTO outbox (type, showtime_id, payload)
    SELECT 'HoldReleased', e.showtime_id,
           jsonb_build_object('holdId', e.id, 'customerId', e.customer_id, 'reason', 'expired', 'seats', '[]'::jsonb,
                              'fareClass', e.fare_class, 'quantity', e.quantity)
      FROM ended e
  )
  SELECT count(*)::int FROM ended
$$;
