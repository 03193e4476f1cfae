-- hold_places: a general-admission hold (a class and a quantity) in one round trip, with the
-- guarantees of hold_seats: database clock, per-customer limit under the customer's advisory
-- lock, all or nothing. Refusals (besides hold_seats' WR404/WR410/WR409/WRL22):
--   WRK22 unknown class or a seated one (detail.fareClass, detail.seated)
--   WRS09 not enough places left in the class (detail.fareClass, detail.available, detail.requested)
--
-- TAKE: one conditional UPDATE on a random bucket row (one row lock, no waiting on the others).
-- FALLBACK: if that row has too few places, lock every bucket row of the class in bucket order,
-- reclaim lapsed holds if the class looks full, and take what is free across the buckets.
CREATE OR REPLACE FUNCTION hold_places(
  p_showtime_id bigint,
  p_customer_id text,
  p_fare_class  text,
  p_quantity    integer,
  p_hold_id     uuid
) RETURNS TABLE (hold_id uuid, expires_at timestamptz, fare_class text, quantity integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_show    showtime%ROWTYPE;
  v_class   fare_class%ROWTYPE;
  v_owned   integer;
  v_expires timestamptz;
  v_start   smallint;
  v_free    integer;
  v_left    integer := p_quantity;
  v_take    integer;
  v_row     record;
BEGIN
  IF p_quantity IS NULL OR p_quantity < 1 OR p_quantity > 50 THEN
    RAISE EXCEPTION 'quantity must be between 1 and 50' USING ERRCODE = '22003';
  END IF;
  -- GUARD: the showtime exists and is on sale by the database clock (as hold_seats)
  SELECT * INTO v_show FROM showtime WHERE id = p_showtime_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'showtime % not found', p_showtime_id USING ERRCODE = 'WR404';
  END IF;
  IF v_show.starts_at <= now() THEN
    RAISE EXCEPTION 'showtime % has already started', p_showtime_id USING ERRCODE = 'WR410';
  END IF;
  IF v_show.sale_state = 'CLOSED' OR v_show.sale_opens_at > now() THEN
    RAISE EXCEPTION 'showtime % is not on sale', p_showtime_id USING ERRCODE = 'WR409',
      DETAIL = json_build_object('state', CASE WHEN v_show.sale_state = 'CLOSED' THEN 'CLOSED' ELSE 'SCHEDULED' END,
                                 'opensAt', v_show.sale_opens_at)::text;
  END IF;

  -- GUARD: a general-admission class of this showtime
  SELECT * INTO v_class FROM fare_class c WHERE c.showtime_id = p_showtime_id AND c.fare_class = p_fare_class;
  IF NOT FOUND OR v_class.seated THEN
    RAISE EXCEPTION 'no general-admission class % in showtime %', p_fare_class, p_showtime_id USING ERRCODE = 'WRK22',
      DETAIL = json_build_object('fareClass', p_fare_class, 'seated', coalesce(v_class.seated, false))::text;
  END IF;

  -- LOCK + GUARD: the customer's limit, as in hold_seats
  PERFORM pg_advisory_xact_lock(hashtextextended(p_showtime_id::text || '/' || p_customer_id, 0));
  v_owned := customer_places_owned(p_showtime_id, p_customer_id);
  IF v_owned + p_quantity > v_show.max_seats_per_customer THEN
    RAISE EXCEPTION 'seat limit of % per customer exceeded', v_show.max_seats_per_customer
      USING ERRCODE = 'WRL22',
      DETAIL = json_build_object('limit', v_show.max_seats_per_customer, 'owned', v_owned, 'requested', p_quantity)::text;
  END IF;

  INSERT INTO seat_hold (id, showtime_id, customer_id, seat_codes, fare_class, quantity, expires_at)
  VALUES (p_hold_id, p_showtime_id, p_customer_id, '{}', p_fare_class, p_quantity,
          now() + make_interval(secs => v_show.hold_ttl_ms / 1000.0))
  RETURNING seat_hold.expires_at INTO v_expires;

  -- TAKE: a random bucket row, taken only if it has room (the conditional UPDATE)
  v_start := floor(random() * v_class.buckets)::smallint;
  UPDATE fare_inventory f SET held = f.held + p_quantity
   WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class AND f.bucket = v_start
     AND f.sold + f.held + p_quantity <= f.capacity + f.overbook_limit;
  IF FOUND THEN
    INSERT INTO hold_allocation (hold_id, showtime_id, fare_class, bucket, quantity)
    VALUES (p_hold_id, p_showtime_id, p_fare_class, v_start, p_quantity);
    v_left := 0;
  ELSE
    -- SOLD OUT, cheaply: once the class is full, the crowd is refused from an unlocked read
    -- instead of queueing for every bucket row. Refusing on a stale read is always safe.
    SELECT coalesce(sum(greatest(0, f.capacity + f.overbook_limit - f.sold - f.held)), 0) INTO v_free
      FROM fare_inventory f WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class;
    IF v_free < p_quantity AND NOT EXISTS (
         SELECT 1 FROM seat_hold h WHERE h.showtime_id = p_showtime_id AND h.fare_class = p_fare_class
            AND h.status = 'ACTIVE' AND h.expires_at <= now()) THEN
      RAISE EXCEPTION 'not enough places left in %', p_fare_class USING ERRCODE = 'WRS09',
        DETAIL = json_build_object('fareClass', p_fare_class, 'available', v_free, 'requested', p_quantity)::text;
    END IF;
    -- FALLBACK: every bucket row in bucket order (the order every other writer uses)
    PERFORM 1 FROM fare_inventory f
     WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class ORDER BY f.bucket FOR UPDATE;
    SELECT coalesce(sum(greatest(0, f.capacity + f.overbook_limit - f.sold - f.held)), 0) INTO v_free
      FROM fare_inventory f WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class;
    IF v_free < p_quantity THEN
      -- RECLAIM: lapsed holds give their places back now, not when a sweeper passes
      IF fare_reclaim_lapsed(p_showtime_id, p_fare_class) > 0 THEN
        SELECT coalesce(sum(greatest(0, f.capacity + f.overbook_limit - f.sold - f.held)), 0) INTO v_free
          FROM fare_inventory f WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class;
      END IF;
    END IF;
    IF v_free < p_quantity THEN
      RAISE EXCEPTION 'not enough places left in %', p_fare_class USING ERRCODE = 'WRS09',
        DETAIL = json_build_object('fareClass', p_fare_class, 'available', v_free, 'requested', p_quantity)::text;
    END IF;
    -- From the random bucket onwards, wrapping round; the rows are already ours.
    FOR v_row IN
      SELECT f.bucket, f.capacity + f.overbook_limit - f.sold - f.held AS free
        FROM fare_inventory f
       WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class
         AND f.capacity + f.overbook_limit - f.sold - f.held > 0
       ORDER BY (f.bucket - v_start + v_class.buckets) % v_class.buckets
    LOOP
      v_take := least(v_left, v_row.free);
      UPDATE fare_inventory f SET held = f.held + v_take
       WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class AND f.bucket = v_row.bucket;
      INSERT INTO hold_allocation (hold_id, showtime_id, fare_class, bucket, quantity)
      VALUES (p_hold_id, p_showtime_id, p_fare_class, v_row.bucket, v_take);
      v_left := v_left - v_take;
      EXIT WHEN v_left = 0;
    END LOOP;
  END IF;

  INSERT INTO outbox (type, showtime_id, payload)
  VALUES ('HoldCreated', p_showtime_id, json_build_object(
    'holdId', p_hold_id, 'customerId', p_customer_id, 'seats', '[]'::json, 'fareClass', p_fare_class,
    'quantity', p_quantity, 'expiresAt', v_expires));

  RETURN QUERY SELECT p_hold_id, v_expires, p_fare_class, p_quantity;
END;
$$;
