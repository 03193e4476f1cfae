-- What cancelling this booking gives back now, by the database clock.
CREATE OR REPLACE FUNCTION booking_refund_quote(p_booking_id uuid)
RETURNS TABLE (percent integer, refund_cents integer, starts_at timestamptz, started boolean)
LANGUAGE sql STABLE AS $$
  SELECT coalesce(q.percent, 0), (b.amount_cents * coalesce(q.percent, 0) / 100)::int, t.starts_at, t.starts_at <= now()
    FROM booking b
    JOIN showtime t ON t.id = b.showtime_id
    LEFT JOIN LATERAL (
      SELECT max((tier->>'percent')::int) AS percent
        FROM jsonb_array_elements(t.refund_policy) AS tier
       WHERE t.starts_at - now() >= make_interval(mins => (tier->>'beforeStartMinutes')::int)
    ) q ON true
   WHERE b.id = p_booking_id
$$;
