-- hold_best_seats: the guards of hold_seats (database clock, sale open, per-customer limit under
-- the customer's advisory lock, all or nothing), then the choice and the write in ONE statement:
--
--   BLOCKS    the hall's blocks of N seats in score order (hall_block, filled once per hall,
--             count and ideal row by hall_blocks_ensure): N seats at consecutive columns of
--             one row, cutting no couple pair, scored (lower wins)
--               2 x |row - ideal row|  +  |block centre - row centre| (in seats)
--               - 3 when N = 2 and the block is one couple pair (preferred for two)
--             ties: the front row, then the leftmost block. Kept: blocks with an accessible
--             seat when accessible seats are asked for, blocks without one otherwise.
--   CHOSEN    for each block in that order, its seats are read: all free (AVAILABLE, or HELD
--             by a lapsed hold) and of the asked class, they are locked FOR UPDATE SKIP LOCKED
--             and re-checked; the first block whose N seats were all locked wins. Seats other
--             buyers are locking right now are skipped, never waited for, so a crowd aiming at
--             the centre spreads over the next-best blocks instead of queueing or conflicting.
--             A couple seat is only ever in a block with its partner, so both are free or
--             neither is taken.
--   TAKEN     the conditional UPDATE of hold_seats on exactly those seats.
--
-- together = false: best N anywhere (couple pairs still whole), seat by seat in score order.
-- Refusals besides hold_seats' WR404/WR410/WR409/WRL22:
--   WRN09 no N together left (detail.requested, detail.maxTogether, detail.available)
--   WRC09 fewer than N eligible seats left at all (together = false; detail.available)
--   WRK22 the fare class is not a seated class of this showtime
--   55P03 every fitting block was locked by other buyers ten statements running (transient:
--         the service retries, then answers 503 BUSY)
--
-- The blocks depend on the hall alone: working them out on every call (window functions over
-- every seat of the showtime) cost some 40 M instructions for two seats in a 600-seat hall.
-- A refusal (WRN09) still reads every seat, to say how many sit together (seats_together).
--
-- When every fitting block is being locked by others (the last seats, a crowd), the attempt is
-- undone (releasing what it locked in part), the function waits for the buyer locking the best
-- block to finish (a plain FOR UPDATE of its seats, in seat-code order, holding no other seat)
-- and chooses again: each round waits for real progress, never a blind sleep.
CREATE OR REPLACE FUNCTION hold_best_seats(
  p_showtime_id bigint,
  p_customer_id text,
  p_count       integer,
  p_together    boolean,
  p_accessible  boolean,
  p_fare_class  text,
  p_hold_id     uuid
) RETURNS TABLE (hold_id uuid, expires_at timestamptz, seat_codes text[])
LANGUAGE plpgsql AS $$
DECLARE
  v_show      showtime%ROWTYPE;
  v_ideal     integer;
  v_owned     integer;
  v_expires   timestamptz;
  v_seats     text[];
  v_max_run   integer;
  v_available integer;
  v_attempt   integer := 0;
  v_best      text[];
BEGIN
  IF p_count IS NULL OR p_count < 1 OR p_count > 50 THEN
    RAISE EXCEPTION 'count must be between 1 and 50' USING ERRCODE = '22003';
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
  -- GUARD: a seated class of this showtime, when one is named
  IF p_fare_class IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM fare_class c WHERE c.showtime_id = p_showtime_id AND c.fare_class = p_fare_class AND c.seated) THEN
    RAISE EXCEPTION 'no seated class % in showtime %', p_fare_class, p_showtime_id USING ERRCODE = 'WRK22',
      DETAIL = json_build_object('fareClass', p_fare_class, 'seated', false)::text;
  END IF;

  -- LOCK + GUARD: the customer's limit, as in hold_seats
  PERFORM pg_advisory_xact_lock(hashtextextended(p_showtime_id::text || '/' || p_customer_id, 0));
  v_owned := customer_places_owned(p_showtime_id, p_customer_id);
  IF v_owned + p_count > v_show.max_seats_per_customer THEN
    RAISE EXCEPTION 'seat limit of % per customer exceeded', v_show.max_seats_per_customer
      USING ERRCODE = 'WRL22',
      DETAIL = json_build_object('limit', v_show.max_seats_per_customer, 'owned', v_owned, 'requested', p_count)::text;
  END IF;

  SELECT coalesce(v_show.ideal_row, h.ideal_row,
                  (SELECT ceil(max(hs.row_number) * 2 / 3.0)::int FROM hall_seat hs WHERE hs.hall_id = h.id))
    INTO v_ideal FROM hall h WHERE h.id = v_show.hall_id;
  v_expires := now() + make_interval(secs => v_show.hold_ttl_ms / 1000.0);
  IF p_together THEN
    PERFORM hall_blocks_ensure(v_show.hall_id, p_count, v_ideal);
  END IF;

  LOOP
    v_attempt := v_attempt + 1;
    IF p_together THEN
      -- An attempt that finds no whole block is undone (a subtransaction), so the seats it
      -- locked in part are let go before this buyer waits on anyone: two buyers can never each
      -- hold half of what the other waits for.
      BEGIN
      -- CHOOSE + LOCK + WRITE: one statement (see the header). The blocks come in score order
      -- from the hall's list (an index scan); each one's seats are read, and locked only when
      -- all of them are free, so a buyer passing over a half-taken block locks none of it.
      WITH chosen AS (
        SELECT l.codes
          FROM (SELECT b.seat_codes FROM hall_block b
                 WHERE b.hall_id = v_show.hall_id AND b.seat_count = p_count AND b.ideal_row = v_ideal
                   AND CASE WHEN p_accessible THEN b.accessible_seats > 0 ELSE b.accessible_seats = 0 END
                 ORDER BY b.score, b.row_number, b.first_column) b
          CROSS JOIN LATERAL (
            SELECT count(*) AS free FROM show_seat s
             WHERE s.showtime_id = p_showtime_id AND s.seat_code = ANY (b.seat_codes)
               AND (s.status = 'AVAILABLE' OR (s.status = 'HELD' AND s.hold_expires_at <= now()))
               AND (p_fare_class IS NULL OR s.fare_class = p_fare_class)
          ) f
          CROSS JOIN LATERAL (
            SELECT array_agg(x.seat_code::text ORDER BY x.seat_code) AS codes
              FROM (SELECT s.seat_code FROM show_seat s
                     WHERE f.free = p_count
                       AND s.showtime_id = p_showtime_id AND s.seat_code = ANY (b.seat_codes)
                       AND (s.status = 'AVAILABLE' OR (s.status = 'HELD' AND s.hold_expires_at <= now()))
                       AND (p_fare_class IS NULL OR s.fare_class = p_fare_class)
                     ORDER BY s.seat_code
                       FOR UPDATE SKIP LOCKED) x
          ) l
         WHERE cardinality(l.codes) = p_count
         LIMIT 1
      ), taken AS (
        UPDATE show_seat s
           SET status = 'HELD', hold_id = p_hold_id, customer_id = p_customer_id,
               hold_expires_at = v_expires, booking_id = NULL
          FROM chosen ch
         WHERE s.showtime_id = p_showtime_id AND s.seat_code = ANY (ch.codes)
           AND (s.status = 'AVAILABLE' OR (s.status = 'HELD' AND s.hold_expires_at <= now()))
        RETURNING s.seat_code
      )
      SELECT array_agg(t.seat_code::text ORDER BY t.seat_code) INTO v_seats FROM taken t;
      IF v_seats IS NULL THEN
        RAISE EXCEPTION 'no whole block locked' USING ERRCODE = 'WRN00';
      END IF;
      EXCEPTION WHEN SQLSTATE 'WRN00' THEN
        NULL; -- the partial locks are released
      END;
      EXIT WHEN v_seats IS NOT NULL;
      -- No whole block could be locked. The best block whose seats all read free (some buyer is
      -- locking it right now, uncommitted) is the one to wait for; none at all: none is left.
      SELECT b.seat_codes INTO v_best
        FROM hall_block b
       WHERE b.hall_id = v_show.hall_id AND b.seat_count = p_count AND b.ideal_row = v_ideal
         AND CASE WHEN p_accessible THEN b.accessible_seats > 0 ELSE b.accessible_seats = 0 END
         AND (SELECT count(*) FROM show_seat s
               WHERE s.showtime_id = p_showtime_id AND s.seat_code = ANY (b.seat_codes)
                 AND (s.status = 'AVAILABLE' OR (s.status = 'HELD' AND s.hold_expires_at <= now()))
                 AND (p_fare_class IS NULL OR s.fare_class = p_fare_class)) = p_count
       ORDER BY b.score, b.row_number, b.first_column
       LIMIT 1;
      IF v_best IS NULL THEN
        SELECT t.max_run, t.available INTO v_max_run, v_available
          FROM seats_together(p_showtime_id, v_show.hall_id, p_accessible, p_fare_class) t;
        RAISE EXCEPTION 'no % seats together left', p_count USING ERRCODE = 'WRN09',
          DETAIL = json_build_object('requested', p_count, 'maxTogether', v_max_run, 'available', v_available)::text;
      END IF;
    ELSE
      v_seats := best_seats_anywhere(p_showtime_id, v_show.hall_id, p_count, p_accessible, p_fare_class, v_ideal);
      EXIT WHEN cardinality(v_seats) = p_count;
      IF v_seats IS NULL THEN
        SELECT count(*) INTO v_available FROM show_seat s JOIN hall_seat hs ON hs.hall_id = v_show.hall_id AND hs.seat_code = s.seat_code
         WHERE s.showtime_id = p_showtime_id
           AND (s.status = 'AVAILABLE' OR (s.status = 'HELD' AND s.hold_expires_at <= now()))
           AND (p_fare_class IS NULL OR s.fare_class = p_fare_class)
           AND (p_accessible OR hs.seat_type <> 'accessible');
        RAISE EXCEPTION 'fewer than % seats left', p_count USING ERRCODE = 'WRC09',
          DETAIL = json_build_object('seats', '[]'::json, 'requested', p_count, 'available', v_available)::text;
      END IF;
      -- Seats enough, but some were locked by other buyers: let them finish and look again.
    END IF;
    IF v_attempt >= 10 THEN
      RAISE EXCEPTION 'every fitting block is being locked by other buyers' USING ERRCODE = '55P03';
    END IF;
    IF p_together AND v_best IS NOT NULL THEN
      -- WAIT: for the buyer locking the best block to commit or roll back, then let the locks
      -- go again (a subtransaction) and choose again: between attempts this buyer holds no seat.
      BEGIN
        PERFORM 1 FROM show_seat s WHERE s.showtime_id = p_showtime_id AND s.seat_code = ANY (v_best)
         ORDER BY s.seat_code FOR UPDATE;
        RAISE EXCEPTION 'waited' USING ERRCODE = 'WRN00';
      EXCEPTION WHEN SQLSTATE 'WRN00' THEN
        NULL;
      END;
    ELSE
      PERFORM pg_sleep(0.005 * v_attempt);
    END IF;
  END LOOP;

  IF NOT p_together THEN
    UPDATE show_seat s
       SET status = 'HELD', hold_id = p_hold_id, customer_id = p_customer_id,
           hold_expires_at = v_expires, booking_id = NULL
     WHERE s.showtime_id = p_showtime_id AND s.seat_code = ANY (v_seats)
       AND (s.status = 'AVAILABLE' OR (s.status = 'HELD' AND s.hold_expires_at <= now()));
  END IF;

  INSERT INTO seat_hold (id, showtime_id, customer_id, seat_codes, expires_at)
  VALUES (p_hold_id, p_showtime_id, p_customer_id, v_seats, v_expires);
  INSERT INTO outbox (type, showtime_id, payload)
  VALUES ('HoldCreated', p_showtime_id, json_build_object(
    'holdId', p_hold_id, 'customerId', p_customer_id, 'seats', v_seats, 'expiresAt', v_expires));

  RETURN QUERY SELECT p_hold_id, v_expires, v_seats;
END;
$$;
