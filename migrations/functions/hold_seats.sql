-- hold_seats: the whole hold decision in one round trip, so a flash crowd costs the database
-- one statement per attempt. Refusals are raised with custom SQLSTATEs (class WR) carrying a
-- JSON detail; core/src/db/sql-errors.ts maps each one to a domain error. Raising also rolls
-- back everything the call did: a hold is all-or-nothing. The hold is announced (HoldCreated)
-- through the outbox in the same transaction; the state trigger logs it.
--
--   WR404 showtime not found            WR410 showtime already started
--   WR409 sale not open (detail.state)  WR422 unknown seats (detail.seats)
--   WRL22 per-customer limit (detail.limit, detail.owned, detail.requested)
--   WRC09 seats not available (detail.seats)
--
-- A paused or sold-out sale stops admissions only: buyers already admitted keep buying. The
-- per-customer limit counts seats and general-admission places (customer_places_owned). The
-- seats' class counters move in the same statement, by the show_seat trigger
-- (fare_count_seat_changes).
--
-- now() is the transaction's start time on the database clock: a hold that expires while
-- this call waits for a lock is still seen as live, which can only refuse, never double-sell.
--
-- Fewer statements per call (docs/best-available.md, "The hold path's own cost"). Every
-- guarantee of the earlier version stays: the database clock, the per-customer limit
-- under the customer's advisory lock, rows locked in seat-code order, one conditional UPDATE,
-- all or nothing, the hold record, its logged transition and the HoldCreated event in the same
-- transaction. What changed is how many statements the function runs for a successful hold:
--
--   first   asked seats sorted; showtime; unknown seats; advisory lock; owned seats; owned
--           places; lock + UPDATE; result check; seat_hold INSERT; outbox INSERT;
--           the answer                                                         (11 statements)
--   now     showtime and advisory lock; asked seats sorted with the owned seats (and places,
--           by a statement of their own, only where the showtime sells general admission);
--           lock, which also reports which seats exist and which are free; seat_hold and
--           outbox in one statement; the conditional UPDATE; the answer returned without a
--           query                                                               (5 statements)
--
-- Unknown seats are found by the lock statement itself (a seat it cannot lock does not exist
-- in this showtime): the answer is the same 422 UNKNOWN_SEATS, raised after the limit check.
-- The seat UPDATE comes last: the class counters it moves (show_seat trigger) lock a bucket
-- row shared with every other hold and cancel of the class until commit, and written last that
-- row is held for the commit alone. A refusal is decided on the locked rows before anything is
-- written, so a buyer who loses a seat costs the lock and nothing else.
CREATE OR REPLACE FUNCTION hold_seats(
  p_showtime_id bigint,
  p_customer_id text,
  p_seat_codes  text[],
  p_hold_id     uuid
) RETURNS TABLE (hold_id uuid, expires_at timestamptz, seat_codes text[])
LANGUAGE plpgsql AS $$
DECLARE
  v_show    showtime%ROWTYPE;
  v_seats   text[];
  v_owned   integer;
  v_sells_places boolean;
  v_found   text[];
  v_free    text[];
  v_expires timestamptz;
  v_count   integer;
BEGIN
  -- GUARD: the showtime exists and is on sale by the database clock.
  -- LOCK (same statement): one customer's holds on one showtime run one at a time, so two
  -- parallel requests cannot both pass the limit below. Transaction-scoped: released at commit
  -- or rollback. The limit is read by the next statement, whose snapshot is taken after the
  -- lock is granted; a refusal raised below gives the lock back with everything else.
  SELECT s.* INTO v_show
    FROM showtime s, pg_advisory_xact_lock(hashtextextended(p_showtime_id::text || '/' || p_customer_id, 0))
   WHERE s.id = p_showtime_id;
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

  -- GUARD: the customer never holds or owns more than the showtime allows: seats held live or
  -- booked, plus general-admission places (as customer_places_owned counts them). The same
  -- statement sorts and deduplicates the asked seats, and says whether the showtime sells
  -- general admission at all: only then are the customer's places counted, by a statement of
  -- their own, so a seated-only sale never reads (nor locks) seat_hold's partitions and
  -- booking here. A class created later is seen: this runs after the customer's lock, and a
  -- places hold takes the same lock.
  SELECT ARRAY(SELECT DISTINCT code FROM unnest(p_seat_codes) AS code ORDER BY code),
         (SELECT count(*) FROM show_seat s
           WHERE s.showtime_id = p_showtime_id AND s.customer_id = p_customer_id
             AND (s.status = 'BOOKED' OR (s.status = 'HELD' AND s.hold_expires_at > now()))),
         EXISTS (SELECT 1 FROM fare_class c WHERE c.showtime_id = p_showtime_id AND NOT c.seated)
    INTO v_seats, v_owned, v_sells_places;
  IF v_sells_places THEN
    v_owned := v_owned + customer_places_held(p_showtime_id, p_customer_id);
  END IF;
  IF v_owned + cardinality(v_seats) > v_show.max_seats_per_customer THEN
    RAISE EXCEPTION 'seat limit of % per customer exceeded', v_show.max_seats_per_customer
      USING ERRCODE = 'WRL22',
      DETAIL = json_build_object('limit', v_show.max_seats_per_customer, 'owned', v_owned,
                                 'requested', cardinality(v_seats))::text;
  END IF;

  -- LOCK: the asked rows in seat-code order (no deadlock between {A,B} and {B,A}), reading
  -- which exist (found) and which are free (a lapsed hold counts as free). Once locked, a free
  -- seat stays free until this transaction ends: nobody else can take it.
  v_expires := now() + make_interval(secs => v_show.hold_ttl_ms / 1000.0);
  WITH wanted AS (
    SELECT s.seat_code, (s.status = 'AVAILABLE' OR (s.status = 'HELD' AND s.hold_expires_at <= now())) AS free
      FROM show_seat s
     WHERE s.showtime_id = p_showtime_id AND s.seat_code = ANY (v_seats)
     ORDER BY s.seat_code
       FOR UPDATE
  )
  SELECT coalesce(array_agg(w.seat_code::text ORDER BY w.seat_code), '{}'),
         coalesce(array_agg(w.seat_code::text ORDER BY w.seat_code) FILTER (WHERE w.free), '{}')
    INTO v_found, v_free
    FROM wanted w;

  -- GUARD: every seat exists in this showtime's hall
  IF cardinality(v_found) <> cardinality(v_seats) THEN
    RAISE EXCEPTION 'unknown seats for showtime %', p_showtime_id USING ERRCODE = 'WR422',
      DETAIL = json_build_object('seats',
        ARRAY(SELECT code FROM unnest(v_seats) AS code WHERE code <> ALL (v_found) ORDER BY code))::text;
  END IF;
  -- GUARD: all or nothing
  IF cardinality(v_free) <> cardinality(v_seats) THEN
    RAISE EXCEPTION 'seats not available' USING ERRCODE = 'WRC09',
      DETAIL = json_build_object('seats',
        ARRAY(SELECT code FROM unnest(v_seats) AS code WHERE code <> ALL (v_free) ORDER BY code))::text;
  END IF;

  -- The hold record (its trigger logs the transition) and its event, in one statement.
  WITH recorded AS (
    INSERT INTO seat_hold (id, showtime_id, customer_id, seat_codes, expires_at)
    VALUES (p_hold_id, p_showtime_id, p_customer_id, v_seats, v_expires)
    RETURNING id
  )
  INSERT INTO outbox (type, showtime_id, payload)
  SELECT 'HoldCreated', p_showtime_id, json_build_object(
    'holdId', r.id, 'customerId', p_customer_id, 'seats', v_seats, 'expiresAt', v_expires)
    FROM recorded r;

  -- WRITE, last: the conditional UPDATE on the rows locked above. The class counters move at
  -- the end of this statement (show_seat trigger) and their bucket rows stay locked until
  -- commit: written last, they are held for the commit alone, not for the hold record too.
  UPDATE show_seat s
     SET status = 'HELD', hold_id = p_hold_id, customer_id = p_customer_id,
         hold_expires_at = v_expires, booking_id = NULL
   WHERE s.showtime_id = p_showtime_id AND s.seat_code = ANY (v_seats)
     AND (s.status = 'AVAILABLE' OR (s.status = 'HELD' AND s.hold_expires_at <= now()));
  GET DIAGNOSTICS v_count = ROW_COUNT;
  IF v_count <> cardinality(v_seats) THEN
    -- Cannot happen while the rows are locked; refuse rather than hold part of the seats.
    RAISE EXCEPTION 'seats not available' USING ERRCODE = 'WRC09',
      DETAIL = json_build_object('seats', v_seats)::text;
  END IF;

  hold_id := p_hold_id;
  expires_at := v_expires;
  seat_codes := v_seats;
  RETURN NEXT;
END;
$$;
