-- Fare classes with their own quotas and prices, general admission without seat numbers, and
-- controlled overbooking (README.md, "Fare classes").
--
-- fare_class: one row per showtime and class: its label, its price (NULL = the showtime's
-- price), whether its places are assigned seats, and how many bucket rows count it.
-- fare_inventory: the counters, split into bucket rows so that concurrent holds of one class do
-- not all queue on one row lock. Each bucket row carries its share of the capacity and of the
-- overbooking limit, and the CHECK holds per row: whatever code runs, a class never has more
-- places sold and held than capacity + overbook_limit.
--
-- Who moves the counters, always in the transaction that moves the seats or the hold:
--   seated classes  a statement trigger on show_seat: HELD and BOOKED seats of the class, so a
--                   seat retaken from a lapsed hold (HELD -> HELD) leaves the count unchanged and
--                   the counters always equal the seats' states, whoever wrote them;
--   general admission  hold_places() takes the count (random bucket, then every bucket in order);
--                   a statement trigger on seat_hold gives it back when the hold ends (cancel,
--                   expiry, reclaim) or turns it into sold (confirmation); one on booking gives
--                   sold back on refund or cancellation. A lapsed hold's places are reclaimed by
--                   the next hold that needs them, as a lapsed seat is, without a sweeper.
--
-- Lock order, as everywhere (README.md, "Lock order"): the owning row (hold or booking), then
-- the seats in (showtime, seat code) order, then the counter rows in (showtime, class, bucket)
-- order. Counter rows are always the last locks a statement takes.

-- GUARD: class codes look like ECONOMY, STALLS, GA_FLOOR.
CREATE DOMAIN fare_class_code AS varchar(16) CHECK (VALUE ~ '^[A-Z][A-Z0-9_]{0,15}$');

ALTER TABLE hall_seat ADD COLUMN fare_class fare_class_code NOT NULL DEFAULT 'STANDARD';

CREATE TABLE fare_class (
  showtime_id bigint NOT NULL REFERENCES showtime (id) ON DELETE CASCADE,
  fare_class  fare_class_code NOT NULL,
  label       text NOT NULL CHECK (length(label) BETWEEN 1 AND 64),
  price_cents integer CHECK (price_cents BETWEEN 0 AND 10000000),
  seated      boolean NOT NULL,
  buckets     smallint NOT NULL DEFAULT 1 CHECK (buckets BETWEEN 1 AND 64),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (showtime_id, fare_class),
  UNIQUE (showtime_id, fare_class, seated)
);

CREATE TABLE fare_inventory (
  showtime_id    bigint NOT NULL,
  fare_class     fare_class_code NOT NULL,
  bucket         smallint NOT NULL DEFAULT 0 CHECK (bucket BETWEEN 0 AND 63),
  seated         boolean NOT NULL,
  capacity       integer NOT NULL CHECK (capacity >= 0),
  overbook_limit integer NOT NULL DEFAULT 0 CHECK (overbook_limit >= 0),
  sold           integer NOT NULL DEFAULT 0 CHECK (sold >= 0),
  held           integer NOT NULL DEFAULT 0 CHECK (held >= 0),
  PRIMARY KEY (showtime_id, fare_class, bucket),
  FOREIGN KEY (showtime_id, fare_class, seated) REFERENCES fare_class (showtime_id, fare_class, seated)
    ON DELETE CASCADE ON UPDATE CASCADE,
  -- Overbooking only where no seat number is promised.
  CONSTRAINT fare_inventory_overbook_unseated CHECK (NOT seated OR overbook_limit = 0),
  -- The last safety net: whatever the code does, never more than the class allows.
  CONSTRAINT fare_inventory_within_limit CHECK (sold + held <= capacity + overbook_limit)
);

-- Which class each seat of this showtime is sold in (from the hall, unless set otherwise).
ALTER TABLE show_seat ADD COLUMN fare_class fare_class_code;
UPDATE show_seat s SET fare_class = h.fare_class
  FROM showtime t JOIN hall_seat h ON h.hall_id = t.hall_id
 WHERE t.id = s.showtime_id AND h.seat_code = s.seat_code;
UPDATE show_seat SET fare_class = 'STANDARD' WHERE fare_class IS NULL;
ALTER TABLE show_seat ALTER COLUMN fare_class SET NOT NULL;

-- A general-admission hold names a class and a quantity instead of seats.
ALTER TABLE seat_hold DROP CONSTRAINT seat_hold_seat_codes_check;
ALTER TABLE seat_hold ADD COLUMN fare_class fare_class_code;
ALTER TABLE seat_hold ADD COLUMN quantity integer CHECK (quantity BETWEEN 1 AND 50);
ALTER TABLE seat_hold ADD CONSTRAINT seat_hold_seats_or_places CHECK (
  (fare_class IS NULL AND quantity IS NULL AND cardinality(seat_codes) BETWEEN 1 AND 50)
  OR (fare_class IS NOT NULL AND quantity IS NOT NULL AND cardinality(seat_codes) = 0));
CREATE INDEX seat_hold_places_active_idx ON seat_hold (showtime_id, fare_class, expires_at)
  WHERE status = 'ACTIVE' AND fare_class IS NOT NULL;
ALTER TABLE booking DROP CONSTRAINT booking_seat_codes_check;

-- Which bucket rows a general-admission hold took its places from (given back to the same rows).
CREATE TABLE hold_allocation (
  hold_id     uuid NOT NULL REFERENCES seat_hold (id) ON DELETE CASCADE,
  showtime_id bigint NOT NULL,
  fare_class  fare_class_code NOT NULL,
  bucket      smallint NOT NULL,
  quantity    integer NOT NULL CHECK (quantity > 0),
  PRIMARY KEY (hold_id, fare_class, bucket)
);

-- The bucket a seat of a seated class counts in: fixed by its code and the class's bucket count.
CREATE FUNCTION fare_seat_bucket(p_seat_code text, p_buckets integer) RETURNS smallint
LANGUAGE sql IMMUTABLE AS $$ SELECT (abs(hashtext(p_seat_code)::bigint) % p_buckets)::smallint $$;

-- Buckets a seated class starts with: about 18 seats a row (a plane's economy: 10 of 18).
CREATE FUNCTION fare_default_buckets(p_seats bigint) RETURNS smallint
LANGUAGE sql IMMUTABLE AS $$ SELECT greatest(1, least(16, p_seats / 18))::smallint $$;

-- WRITE: moves one bucket row's counts; growth only while the row stays within its limit.
-- WRF09 (class full) can only come from a seated class if the counters were corrupted; the
-- CHECK would refuse the same write anyway.
CREATE FUNCTION fare_apply(p_showtime_id bigint, p_fare_class text, p_bucket smallint, p_held integer, p_sold integer)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE fare_inventory
     SET held = held + p_held, sold = sold + p_sold
   WHERE showtime_id = p_showtime_id AND fare_class = p_fare_class AND bucket = p_bucket
     AND (p_held + p_sold <= 0 OR sold + held + p_held + p_sold <= capacity + overbook_limit);
  IF NOT FOUND THEN
    RAISE EXCEPTION 'fare class % of showtime % has no room in bucket %', p_fare_class, p_showtime_id, p_bucket
      USING ERRCODE = 'WRF09', DETAIL = json_build_object('fareClass', p_fare_class, 'bucket', p_bucket)::text;
  END IF;
END;
$$;

-- Recomputes a seated class's bucket rows from its seats (after a change of its bucket count).
-- The caller holds the class's seats locked, so no hold moves them meanwhile.
CREATE FUNCTION fare_recount_seated(p_showtime_id bigint, p_fare_class text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_buckets smallint;
BEGIN
  SELECT buckets INTO v_buckets FROM fare_class WHERE showtime_id = p_showtime_id AND fare_class = p_fare_class AND seated;
  DELETE FROM fare_inventory WHERE showtime_id = p_showtime_id AND fare_class = p_fare_class;
  INSERT INTO fare_inventory (showtime_id, fare_class, bucket, seated, capacity, sold, held)
  SELECT p_showtime_id, p_fare_class, b.bucket, true,
         count(s.seat_code), count(*) FILTER (WHERE s.status = 'BOOKED'), count(*) FILTER (WHERE s.status = 'HELD')
    FROM generate_series(0, v_buckets - 1) AS b(bucket)
    LEFT JOIN show_seat s ON s.showtime_id = p_showtime_id AND s.fare_class = p_fare_class
                         AND fare_seat_bucket(s.seat_code, v_buckets) = b.bucket
   GROUP BY b.bucket;
END;
$$;

-- New seats (a new showtime): their class from the hall, the showtime's seated classes and
-- bucket rows created, counted as inserted.
CREATE FUNCTION fare_seat_class_default() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.fare_class IS NULL THEN
    SELECT h.fare_class INTO NEW.fare_class
      FROM showtime t JOIN hall_seat h ON h.hall_id = t.hall_id AND h.seat_code = NEW.seat_code
     WHERE t.id = NEW.showtime_id;
    NEW.fare_class := coalesce(NEW.fare_class, 'STANDARD');
  END IF;
  RETURN NEW;
END;
$$;

CREATE FUNCTION fare_count_new_seats() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_row record;
BEGIN
  INSERT INTO fare_class (showtime_id, fare_class, label, seated, buckets)
  SELECT n.showtime_id, n.fare_class, initcap(replace(lower(n.fare_class), '_', ' ')), true,
         fare_default_buckets((SELECT count(*) FROM show_seat s WHERE s.showtime_id = n.showtime_id AND s.fare_class = n.fare_class))
    FROM new_rows n GROUP BY n.showtime_id, n.fare_class
  ON CONFLICT (showtime_id, fare_class) DO NOTHING;
  FOR v_row IN
    SELECT n.showtime_id, n.fare_class, fare_seat_bucket(n.seat_code, c.buckets) AS bucket,
           count(*)::int AS seats,
           count(*) FILTER (WHERE n.status = 'HELD')::int AS held,
           count(*) FILTER (WHERE n.status = 'BOOKED')::int AS sold
      FROM new_rows n JOIN fare_class c ON c.showtime_id = n.showtime_id AND c.fare_class = n.fare_class AND c.seated
     GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  LOOP
    INSERT INTO fare_inventory (showtime_id, fare_class, bucket, seated, capacity, sold, held)
    VALUES (v_row.showtime_id, v_row.fare_class, v_row.bucket, true, v_row.seats, v_row.sold, v_row.held)
    ON CONFLICT (showtime_id, fare_class, bucket) DO UPDATE
      SET capacity = fare_inventory.capacity + excluded.capacity,
          sold = fare_inventory.sold + excluded.sold, held = fare_inventory.held + excluded.held;
  END LOOP;
  RETURN NULL;
END;
$$;

-- Seats that changed state: each one's old state leaves its bucket row, its new state enters
-- its (possibly other) bucket row. Rows are written in key order (no deadlock between batches).
CREATE FUNCTION fare_count_seat_changes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_row record;
BEGIN
  -- Most statements in a stampede change nothing (the seat was taken): nothing to count.
  IF NOT EXISTS (SELECT 1 FROM new_rows) THEN
    RETURN NULL;
  END IF;
  FOR v_row IN
    WITH moves AS (
      SELECT o.showtime_id, o.fare_class, o.seat_code, -1 AS sign, o.status FROM old_rows o
      UNION ALL
      SELECT n.showtime_id, n.fare_class, n.seat_code, 1 AS sign, n.status FROM new_rows n
    )
    SELECT m.showtime_id, m.fare_class::text AS fare_class, fare_seat_bucket(m.seat_code, c.buckets) AS bucket,
           sum(m.sign * (m.status = 'HELD')::int)::int AS held,
           sum(m.sign * (m.status = 'BOOKED')::int)::int AS sold
      FROM moves m JOIN fare_class c ON c.showtime_id = m.showtime_id AND c.fare_class = m.fare_class
     GROUP BY 1, 2, 3
    HAVING sum(m.sign * (m.status = 'HELD')::int) <> 0 OR sum(m.sign * (m.status = 'BOOKED')::int) <> 0
     ORDER BY 1, 2, 3
  LOOP
    PERFORM fare_apply(v_row.showtime_id, v_row.fare_class, v_row.bucket, v_row.held, v_row.sold);
  END LOOP;
  RETURN NULL;
END;
$$;

-- General-admission holds that ended: places no longer held; sold if the hold was paid for.
CREATE FUNCTION fare_count_hold_endings() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_row record;
BEGIN
  FOR v_row IN
    SELECT a.showtime_id, a.fare_class::text AS fare_class, a.bucket,
           -sum(a.quantity)::int AS held,
           sum(CASE WHEN n.status = 'CONFIRMED' THEN a.quantity ELSE 0 END)::int AS sold
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      JOIN hold_allocation a ON a.hold_id = n.id
     WHERE o.status = 'ACTIVE' AND n.status <> 'ACTIVE'
     GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  LOOP
    PERFORM fare_apply(v_row.showtime_id, v_row.fare_class, v_row.bucket, v_row.held, v_row.sold);
  END LOOP;
  RETURN NULL;
END;
$$;

-- General-admission bookings refunded or cancelled: their places are for sale again.
CREATE FUNCTION fare_count_booking_endings() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_row record;
BEGIN
  FOR v_row IN
    SELECT a.showtime_id, a.fare_class::text AS fare_class, a.bucket, -sum(a.quantity)::int AS sold
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      JOIN hold_allocation a ON a.hold_id = n.hold_id
     WHERE o.status = 'CONFIRMED' AND n.status <> 'CONFIRMED'
     GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  LOOP
    PERFORM fare_apply(v_row.showtime_id, v_row.fare_class, v_row.bucket, 0, v_row.sold);
  END LOOP;
  RETURN NULL;
END;
$$;

-- Existing showtimes: their seated classes and counters, from the seats as they are now.
INSERT INTO fare_class (showtime_id, fare_class, label, seated, buckets)
SELECT s.showtime_id, s.fare_class, initcap(replace(lower(s.fare_class), '_', ' ')), true, fare_default_buckets(count(*))
  FROM show_seat s GROUP BY s.showtime_id, s.fare_class;
SELECT fare_recount_seated(showtime_id, fare_class) FROM fare_class;

CREATE TRIGGER show_seat_fare_class BEFORE INSERT ON show_seat
  FOR EACH ROW EXECUTE FUNCTION fare_seat_class_default();
CREATE TRIGGER show_seat_fare_insert AFTER INSERT ON show_seat
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION fare_count_new_seats();
CREATE TRIGGER show_seat_fare_count AFTER UPDATE ON show_seat
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION fare_count_seat_changes();
CREATE TRIGGER seat_hold_fare_count AFTER UPDATE ON seat_hold
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION fare_count_hold_endings();
CREATE TRIGGER booking_fare_count AFTER UPDATE ON booking
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION fare_count_booking_endings();

-- How many places (seats and general-admission places) a customer holds live or owns.
CREATE FUNCTION customer_places_owned(p_showtime_id bigint, p_customer_id text) RETURNS integer
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

-- hold_seats, as in 0004, with the per-customer limit counting general-admission places too.
-- The seats' class counters move in the same statement, by the show_seat trigger above.
CREATE OR REPLACE FUNCTION hold_seats(
  p_showtime_id bigint,
  p_customer_id text,
  p_seat_codes  text[],
  p_hold_id     uuid
) RETURNS TABLE (hold_id uuid, expires_at timestamptz, seat_codes text[])
LANGUAGE plpgsql AS $$
DECLARE
  v_show     showtime%ROWTYPE;
  v_seats    text[] := ARRAY(SELECT DISTINCT code FROM unnest(p_seat_codes) AS code ORDER BY code);
  v_unknown  text[];
  v_owned    integer;
  v_taken    text[];
  v_expires  timestamptz;
BEGIN
  -- GUARD: the showtime exists and is on sale by the database clock
  SELECT * INTO v_show FROM showtime WHERE id = p_showtime_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'showtime % not found', p_showtime_id USING ERRCODE = 'WR404';
  END IF;
  IF v_show.starts_at <= now() THEN
    RAISE EXCEPTION 'showtime % has already started', p_showtime_id USING ERRCODE = 'WR410';
  END IF;
  -- Paused or sold out stops admissions, not buyers already admitted: they keep their turn.
  IF v_show.sale_state = 'CLOSED' OR v_show.sale_opens_at > now() THEN
    RAISE EXCEPTION 'showtime % is not on sale', p_showtime_id USING ERRCODE = 'WR409',
      DETAIL = json_build_object('state', CASE WHEN v_show.sale_state = 'CLOSED' THEN 'CLOSED' ELSE 'SCHEDULED' END,
                                 'opensAt', v_show.sale_opens_at)::text;
  END IF;

  -- GUARD: every seat exists in this showtime's hall (another hall's seats are unknown here)
  v_unknown := ARRAY(
    SELECT code FROM unnest(v_seats) AS code
     WHERE NOT EXISTS (SELECT 1 FROM show_seat s
                        WHERE s.showtime_id = p_showtime_id AND s.seat_code = code)
     ORDER BY code);
  IF cardinality(v_unknown) > 0 THEN
    RAISE EXCEPTION 'unknown seats for showtime %', p_showtime_id USING ERRCODE = 'WR422',
      DETAIL = json_build_object('seats', v_unknown)::text;
  END IF;

  -- LOCK: one customer's holds on one showtime run one at a time, so two parallel requests
  -- cannot both pass the limit below. Transaction-scoped: released at commit or rollback.
  PERFORM pg_advisory_xact_lock(hashtextextended(p_showtime_id::text || '/' || p_customer_id, 0));

  -- GUARD: the customer never holds or owns more than the showtime allows (seats and places)
  v_owned := customer_places_owned(p_showtime_id, p_customer_id);
  IF v_owned + cardinality(v_seats) > v_show.max_seats_per_customer THEN
    RAISE EXCEPTION 'seat limit of % per customer exceeded', v_show.max_seats_per_customer
      USING ERRCODE = 'WRL22',
      DETAIL = json_build_object('limit', v_show.max_seats_per_customer, 'owned', v_owned,
                                 'requested', cardinality(v_seats))::text;
  END IF;

  -- WRITE: lock the rows in seat-code order (no deadlock between {A,B} and {B,A}), then take
  -- only those that are free, where a lapsed hold counts as free. The class counters move at
  -- the end of this statement (show_seat trigger), after the seat locks.
  v_expires := now() + make_interval(secs => v_show.hold_ttl_ms / 1000.0);
  WITH wanted AS (
    SELECT s.seat_code FROM show_seat s
     WHERE s.showtime_id = p_showtime_id AND s.seat_code = ANY (v_seats)
     ORDER BY s.seat_code
       FOR UPDATE
  ), taken AS (
    UPDATE show_seat s
       SET status = 'HELD', hold_id = p_hold_id, customer_id = p_customer_id,
           hold_expires_at = v_expires, booking_id = NULL
      FROM wanted w
     WHERE s.showtime_id = p_showtime_id AND s.seat_code = w.seat_code
       AND (s.status = 'AVAILABLE' OR (s.status = 'HELD' AND s.hold_expires_at <= now()))
    RETURNING s.seat_code
  )
  SELECT coalesce(array_agg(t.seat_code::text ORDER BY t.seat_code), '{}') INTO v_taken FROM taken t;

  -- GUARD: all or nothing; raising undoes the UPDATE above
  IF cardinality(v_taken) <> cardinality(v_seats) THEN
    RAISE EXCEPTION 'seats not available' USING ERRCODE = 'WRC09',
      DETAIL = json_build_object('seats',
        ARRAY(SELECT code FROM unnest(v_seats) AS code WHERE code <> ALL (v_taken) ORDER BY code))::text;
  END IF;

  INSERT INTO seat_hold (id, showtime_id, customer_id, seat_codes, expires_at)
  VALUES (p_hold_id, p_showtime_id, p_customer_id, v_seats, v_expires);
  INSERT INTO outbox (type, showtime_id, payload)
  VALUES ('HoldCreated', p_showtime_id, json_build_object(
    'holdId', p_hold_id, 'customerId', p_customer_id, 'seats', v_seats, 'expiresAt', v_expires));

  RETURN QUERY SELECT p_hold_id, v_expires, v_seats;
END;
$$;

-- Ends the lapsed general-admission holds of a class (the caller holds every bucket row of the
-- class locked). SKIP LOCKED: a hold being confirmed, cancelled or swept right now is left to
-- that transaction, and this one never waits on a hold row while it holds counter rows.
CREATE FUNCTION fare_reclaim_lapsed(p_showtime_id bigint, p_fare_class text) RETURNS integer
LANGUAGE sql AS $$
  WITH lapsed AS (
    SELECT id FROM seat_hold
     WHERE showtime_id = p_showtime_id AND fare_class = p_fare_class AND status = 'ACTIVE' AND expires_at <= now()
     ORDER BY expires_at
     LIMIT 500
       FOR UPDATE SKIP LOCKED
  ), ended AS (
    UPDATE seat_hold h SET status = 'EXPIRED', status_cause = 'hold time ran out (places reclaimed by a new hold)', ended_at = now()
      FROM lapsed l WHERE h.id = l.id
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

-- hold_places: a general-admission hold (a class and a quantity) in one round trip, with the
-- guarantees of hold_seats: database clock, per-customer limit under the customer's advisory
-- lock, all or nothing. Refusals (besides hold_seats' WR404/WR410/WR409/WRL22):
--   WRK22 unknown class or a seated one (detail.fareClass, detail.seated)
--   WRS09 not enough places left in the class (detail.fareClass, detail.available, detail.requested)
--
-- TAKE: one conditional UPDATE on a random bucket row (one row lock, no waiting on the others).
-- FALLBACK: if that row has too few places, lock every bucket row of the class in bucket order,
-- reclaim lapsed holds if the class looks full, and take what is free across the buckets.
CREATE FUNCTION hold_places(
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

-- Operator: sets a general-admission class's capacity, overbooking limit and bucket count.
-- Every bucket row is locked in bucket order; each row keeps at least what it has sold and held,
-- the rest is spread evenly. WRK09 (detail.used) when the new total is below what is sold and
-- held, or when fewer buckets would drop a row that still counts places.
CREATE FUNCTION fare_configure_places(
  p_showtime_id bigint, p_fare_class text, p_capacity integer, p_overbook_limit integer, p_buckets smallint
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_used     integer;
  v_rest     integer;
  v_cap_left integer := p_capacity;
  v_row      record;
  v_share    integer;
  v_i        integer := 0;
BEGIN
  PERFORM 1 FROM fare_inventory f
   WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class ORDER BY f.bucket FOR UPDATE;
  IF EXISTS (SELECT 1 FROM fare_inventory f WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class
                AND f.bucket >= p_buckets AND f.sold + f.held > 0) THEN
    RAISE EXCEPTION 'buckets to drop still count places' USING ERRCODE = 'WRK09',
      DETAIL = json_build_object('reason', 'buckets')::text;
  END IF;
  DELETE FROM fare_inventory f WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class AND f.bucket >= p_buckets;
  INSERT INTO fare_inventory (showtime_id, fare_class, bucket, seated, capacity)
  SELECT p_showtime_id, p_fare_class, b, false, 0 FROM generate_series(0, p_buckets - 1) AS b
  ON CONFLICT (showtime_id, fare_class, bucket) DO NOTHING;
  UPDATE fare_class SET buckets = p_buckets WHERE showtime_id = p_showtime_id AND fare_class = p_fare_class;

  SELECT coalesce(sum(f.sold + f.held), 0) INTO v_used
    FROM fare_inventory f WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class;
  IF v_used > p_capacity + p_overbook_limit THEN
    RAISE EXCEPTION 'capacity below what is sold and held' USING ERRCODE = 'WRK09',
      DETAIL = json_build_object('reason', 'capacity', 'used', v_used)::text;
  END IF;
  v_rest := p_capacity + p_overbook_limit - v_used;
  FOR v_row IN
    SELECT f.bucket, f.sold + f.held AS used FROM fare_inventory f
     WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class ORDER BY f.bucket
  LOOP
    -- This row's allowance: what it uses plus its even share of the rest; capacity first,
    -- the overbooking share after it, so both totals come out exact.
    v_share := v_row.used + v_rest / p_buckets + CASE WHEN v_i < v_rest % p_buckets THEN 1 ELSE 0 END;
    UPDATE fare_inventory f SET capacity = least(v_share, v_cap_left), overbook_limit = v_share - least(v_share, v_cap_left)
     WHERE f.showtime_id = p_showtime_id AND f.fare_class = p_fare_class AND f.bucket = v_row.bucket;
    v_cap_left := v_cap_left - least(v_share, v_cap_left);
    v_i := v_i + 1;
  END LOOP;
END;
$$;

-- Buyer cancellation with a refund policy (README.md, "Cancelling a booking").
--
-- refund_policy: per showtime, tiers of "at least this many minutes before the start -> this
-- percent back", read by the database clock; none after the last tier, nothing once it started.
-- A cancelled booking is CONFIRMED -> CANCELLED (its seats and places for sale again, at once);
-- the refund it gives is stored on it and, when above zero, travels as a refund command with
-- that amount through the refund worker and the gateway, like the operator's refund.
ALTER TABLE showtime ADD COLUMN refund_policy jsonb NOT NULL
  DEFAULT '[{"beforeStartMinutes": 1440, "percent": 100}, {"beforeStartMinutes": 120, "percent": 50}]'
  CHECK (jsonb_typeof(refund_policy) = 'array');

ALTER TABLE booking DROP CONSTRAINT booking_status_check;
ALTER TABLE booking ADD CONSTRAINT booking_status_check CHECK (status IN ('CONFIRMED', 'FAILED', 'REFUNDED', 'CANCELLED'));
ALTER TABLE booking ADD COLUMN refund_cents integer CHECK (refund_cents >= 0);
DROP INDEX booking_one_sale_per_hold;
CREATE UNIQUE INDEX booking_one_sale_per_hold ON booking (hold_id) WHERE status IN ('CONFIRMED', 'REFUNDED', 'CANCELLED');
INSERT INTO state_machine (entity_type, from_state, to_state) VALUES ('booking', 'CONFIRMED', 'CANCELLED');

ALTER TABLE refund_command ADD COLUMN amount_cents integer CHECK (amount_cents > 0);

ALTER TABLE outbox DROP CONSTRAINT outbox_type_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_type_check CHECK (type IN ('HoldReleased', 'HoldCreated', 'BookingConfirmed',
  'BookingFailed', 'RefundRequested', 'SeatsReleased', 'ShowtimeSoldOut', 'BookingCancelled'));

-- What cancelling this booking gives back now, by the database clock.
CREATE FUNCTION booking_refund_quote(p_booking_id uuid)
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

-- cancel_booking: the buyer's cancel in one round trip. Lock order as the settlement of a
-- gateway event and the operator's refund: the payment row, then the booking row, then its seats
-- in seat-code order (the counters move by trigger at the end of that statement). Refusals:
--   WRB04 no such booking of this customer   WRB09 not CONFIRMED (detail.status)
--   WR410 the showtime has started
-- A repeat by the same buyer answers the first cancellation again (idempotent).
CREATE FUNCTION cancel_booking(p_booking_id uuid, p_customer_id text, p_showtime_id bigint)
RETURNS TABLE (booking_id uuid, refund_cents integer, percent integer, repeated boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_booking booking%ROWTYPE;
  v_quote   record;
  v_seats   text[];
  v_payment payment%ROWTYPE;
BEGIN
  SELECT * INTO v_booking FROM booking b
   WHERE b.id = p_booking_id AND b.customer_id = p_customer_id AND b.showtime_id = p_showtime_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no booking % of this customer', p_booking_id USING ERRCODE = 'WRB04';
  END IF;
  -- LOCK: the payment first, as a refund webhook does, then the booking (read again, locked)
  SELECT * INTO v_payment FROM payment WHERE id = v_booking.payment_id FOR UPDATE;
  SELECT * INTO v_booking FROM booking b WHERE b.id = p_booking_id FOR UPDATE;
  IF v_booking.status = 'CANCELLED' THEN
    RETURN QUERY SELECT v_booking.id, v_booking.refund_cents,
                        CASE WHEN v_booking.amount_cents > 0 THEN (100 * v_booking.refund_cents / v_booking.amount_cents)::int ELSE 0 END, true;
    RETURN;
  END IF;
  IF v_booking.status <> 'CONFIRMED' THEN
    RAISE EXCEPTION 'booking % is %', p_booking_id, v_booking.status USING ERRCODE = 'WRB09',
      DETAIL = json_build_object('status', v_booking.status)::text;
  END IF;
  SELECT * INTO v_quote FROM booking_refund_quote(p_booking_id);
  IF v_quote.started THEN
    RAISE EXCEPTION 'showtime % has already started', p_showtime_id USING ERRCODE = 'WR410';
  END IF;

  UPDATE booking SET status = 'CANCELLED', status_cause = format('cancelled by the buyer (%s%% refund)', v_quote.percent),
         refund_cents = v_quote.refund_cents
   WHERE id = p_booking_id;
  -- LOCK + WRITE: the seats in seat-code order, freed only where they still carry this booking
  WITH locked AS (
    SELECT s.showtime_id, s.seat_code FROM show_seat s
     WHERE s.showtime_id = v_booking.showtime_id AND s.seat_code = ANY (v_booking.seat_codes)
     ORDER BY s.showtime_id, s.seat_code
       FOR UPDATE
  ), freed AS (
    UPDATE show_seat s SET status = 'AVAILABLE', booking_id = NULL, hold_id = NULL, customer_id = NULL
      FROM locked l
     WHERE s.showtime_id = l.showtime_id AND s.seat_code = l.seat_code
       AND s.booking_id = p_booking_id AND s.status = 'BOOKED'
    RETURNING s.seat_code
  )
  SELECT coalesce(array_agg(seat_code::text ORDER BY seat_code), '{}') INTO v_seats FROM freed;
  UPDATE showtime SET sold_out_at = NULL WHERE id = v_booking.showtime_id AND sold_out_at IS NOT NULL;

  INSERT INTO outbox (type, showtime_id, payload) VALUES
    ('BookingCancelled', v_booking.showtime_id, json_build_object(
       'bookingId', p_booking_id, 'customerId', p_customer_id, 'paymentId', v_booking.payment_id,
       'refundCents', v_quote.refund_cents, 'percent', v_quote.percent, 'currency', v_booking.currency)),
    ('SeatsReleased', v_booking.showtime_id, json_build_object(
       'bookingId', p_booking_id, 'customerId', p_customer_id, 'paymentId', v_booking.payment_id,
       'seats', v_seats, 'reason', 'cancelled'));

  IF v_quote.refund_cents > 0 THEN
    IF v_payment.status = 'SUCCEEDED' THEN
      UPDATE payment SET status = 'REFUND_REQUESTED', status_cause = 'cancelled by the buyer', updated_at = now()
       WHERE id = v_payment.id;
    END IF;
    INSERT INTO refund_command (payment_id, reason, amount_cents)
    VALUES (v_payment.id, 'cancelled by the buyer', CASE WHEN v_quote.refund_cents < v_payment.amount_cents THEN v_quote.refund_cents END)
    ON CONFLICT (payment_id) DO NOTHING;
    INSERT INTO outbox (type, showtime_id, payload)
    VALUES ('RefundRequested', v_booking.showtime_id, json_build_object(
      'holdId', v_booking.hold_id, 'customerId', p_customer_id, 'bookingId', p_booking_id, 'paymentId', v_payment.id,
      'reason', 'cancelled by the buyer', 'amountCents', v_quote.refund_cents, 'currency', v_booking.currency));
  END IF;

  RETURN QUERY SELECT p_booking_id, v_quote.refund_cents, v_quote.percent, false;
END;
$$;
