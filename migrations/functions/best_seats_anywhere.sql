-- Best N anywhere: seats (a couple pair as one unit of two) in score order, each unit locked
-- FOR UPDATE SKIP LOCKED and re-checked free, until N seats are locked. Returns the locked
-- codes sorted (the caller takes them), fewer than N when some were skipped, NULL when fewer
-- than N eligible seats exist at all.
CREATE OR REPLACE FUNCTION best_seats_anywhere(
  p_showtime_id bigint, p_hall_id bigint, p_count integer, p_accessible boolean, p_fare_class text, p_ideal integer
) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  v_unit   record;
  v_locked text[];
  v_seats  text[] := '{}';
  v_total  integer := 0;
BEGIN
  FOR v_unit IN
    WITH seat AS (
      SELECT * FROM seats_eligible(p_showtime_id, p_hall_id, p_accessible, p_fare_class)
    ), paired AS (
      SELECT seat.*,
             (min(c) OVER (PARTITION BY r) + max(c) OVER (PARTITION BY r)) / 2.0 AS row_centre,
             CASE WHEN seat_type = 'couple' THEN (row_number() OVER w + 1) / 2 END AS pair_no
        FROM seat
      WINDOW w AS (PARTITION BY r, seat_type = 'couple' ORDER BY c)
    ), units AS (
      SELECT array_agg(seat_code::text ORDER BY seat_code) AS codes, bool_and(eligible) AS eligible,
             min(2 * abs(r - p_ideal) + abs(c - row_centre)) AS score, min(r) AS r, min(c) AS c
        FROM paired
       GROUP BY r, coalesce(pair_no::text, seat_code)
    )
    SELECT codes, sum(cardinality(codes)) OVER () AS seats_left,
           count(*) FILTER (WHERE cardinality(codes) = 1) OVER () AS singles_left,
           -- singles after this one in score order: whether an odd remainder can still be filled
           count(*) FILTER (WHERE cardinality(codes) = 1) OVER (ORDER BY score, r, c ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS singles_after
      FROM units WHERE eligible ORDER BY score, r, c
  LOOP
    -- Not enough seats, or an odd count from couple pairs alone: no choice of units adds up.
    IF v_unit.seats_left < p_count OR (v_unit.singles_left = 0 AND p_count % 2 = 1) THEN
      RETURN NULL;
    END IF;
    CONTINUE WHEN v_total + cardinality(v_unit.codes) > p_count;
    -- A single that leaves an odd remainder with no single after it would strand the pairs.
    CONTINUE WHEN cardinality(v_unit.codes) = 1 AND (p_count - v_total - 1) % 2 = 1 AND v_unit.singles_after = 0;
    SELECT array_agg(s.seat_code::text ORDER BY s.seat_code) INTO v_locked
      FROM (SELECT s.seat_code FROM show_seat s
             WHERE s.showtime_id = p_showtime_id AND s.seat_code = ANY (v_unit.codes)
               AND (s.status = 'AVAILABLE' OR (s.status = 'HELD' AND s.hold_expires_at <= now()))
             ORDER BY s.seat_code
               FOR UPDATE SKIP LOCKED) s;
    IF cardinality(v_locked) = cardinality(v_unit.codes) THEN
      v_seats := v_seats || v_locked;
      v_total := v_total + cardinality(v_locked);
      EXIT WHEN v_total = p_count;
    END IF;
  END LOOP;
  IF v_total = 0 AND NOT FOUND THEN
    RETURN NULL;
  END IF;
  RETURN ARRAY(SELECT unnest(v_seats) ORDER BY 1);
END;
$$;
