-- Checkout, payments and the order lifecycle (seeds 000 §7-8, 001, 003).
--
-- Holds, payments and bookings move only through the transitions listed in state_machine; a
-- trigger refuses any other UPDATE of a status and writes every change to state_transition
-- (from, to, cause, time). The cause travels in each table's status_cause column, set by the
-- same statement that changes the status, so no code path can change a state unexplained.

CREATE TABLE state_machine (
  entity_type text NOT NULL,
  from_state  text NOT NULL,
  to_state    text NOT NULL,
  PRIMARY KEY (entity_type, from_state, to_state)
);
INSERT INTO state_machine (entity_type, from_state, to_state) VALUES
  ('hold', 'ACTIVE', 'CANCELLED'),
  ('hold', 'ACTIVE', 'EXPIRED'),
  ('hold', 'ACTIVE', 'CONFIRMED'),
  ('payment', 'PENDING', 'SUCCEEDED'),
  ('payment', 'PENDING', 'FAILED'),
  -- A gateway may report failure (expiry, decline) and later settle the money anyway; the
  -- money must then be booked or refunded, never ignored.
  ('payment', 'FAILED', 'SUCCEEDED'),
  ('payment', 'SUCCEEDED', 'REFUND_REQUESTED'),
  ('payment', 'REFUND_REQUESTED', 'REFUNDED'),
  ('payment', 'SUCCEEDED', 'REFUNDED'),
  ('booking', 'CONFIRMED', 'REFUNDED');

ALTER TABLE seat_hold ADD COLUMN status_cause text NOT NULL DEFAULT 'hold requested';

CREATE TABLE payment (
  id            text PRIMARY KEY,              -- the gateway's payment id (pay_…)
  hold_id       uuid NOT NULL REFERENCES seat_hold (id),
  showtime_id   bigint NOT NULL,
  customer_id   varchar(64) NOT NULL,
  amount_cents  integer NOT NULL CHECK (amount_cents > 0),
  currency      char(3) NOT NULL,
  status        text NOT NULL DEFAULT 'PENDING'
                CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED', 'REFUND_REQUESTED', 'REFUNDED')),
  status_cause  text NOT NULL DEFAULT 'checkout',
  checkout_url  text NOT NULL,
  expires_at    timestamptz NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  next_check_at timestamptz NOT NULL DEFAULT now() -- the reconciler's lease / schedule
);
CREATE INDEX payment_hold_idx ON payment (hold_id);
CREATE INDEX payment_pending_idx ON payment (next_check_at) WHERE status = 'PENDING';

CREATE TABLE booking (
  id           uuid PRIMARY KEY,
  hold_id      uuid NOT NULL REFERENCES seat_hold (id),
  payment_id   text NOT NULL UNIQUE REFERENCES payment (id),
  showtime_id  bigint NOT NULL,
  customer_id  varchar(64) NOT NULL,
  seat_codes   varchar(8)[] NOT NULL CHECK (cardinality(seat_codes) >= 1),
  amount_cents integer NOT NULL,
  currency     char(3) NOT NULL,
  status       text NOT NULL CHECK (status IN ('CONFIRMED', 'FAILED', 'REFUNDED')),
  status_cause text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
-- One hold becomes at most one sale, whatever number of payments raced for it.
CREATE UNIQUE INDEX booking_one_sale_per_hold ON booking (hold_id) WHERE status IN ('CONFIRMED', 'REFUNDED');
CREATE INDEX booking_customer_idx ON booking (showtime_id, customer_id);

-- Webhook deduplication on the gateway's event id (every duplicate is answered 2xx).
CREATE TABLE payment_event (
  event_id    text PRIMARY KEY,
  payment_id  text NOT NULL,
  type        text NOT NULL,
  outcome     text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);

-- Idempotency-Key records, scoped to the customer, kept at least 24 hours. IN_FLIGHT rows carry
-- a lease so a request that died mid-way does not block its key forever.
CREATE TABLE idempotency_key (
  customer_id     varchar(64) NOT NULL,
  key             varchar(255) NOT NULL,
  request_hash    text NOT NULL,
  state           text NOT NULL CHECK (state IN ('IN_FLIGHT', 'DONE')),
  locked_until    timestamptz,
  response_status smallint,
  response_body   text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz NOT NULL DEFAULT now() + interval '24 hours',
  PRIMARY KEY (customer_id, key),
  CHECK ((state = 'DONE') = (response_status IS NOT NULL AND response_body IS NOT NULL))
);
CREATE INDEX idempotency_key_expiry_idx ON idempotency_key (expires_at);

-- Transactional outbox: written in the same transaction as the change it describes, published
-- at least once by the relay. The relay selects by published_at IS NULL (never by an id
-- cursor), so a transaction that commits after a higher id was published is not skipped.
CREATE TABLE outbox (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id     uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
  type         text NOT NULL CHECK (type IN ('HoldCreated', 'HoldReleased', 'BookingConfirmed', 'BookingFailed',
                                             'RefundRequested', 'SeatsReleased', 'ShowtimeSoldOut')),
  showtime_id  bigint NOT NULL,
  payload      jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz
);
CREATE INDEX outbox_unpublished_idx ON outbox (id) WHERE published_at IS NULL;

-- Refund commands for the refund worker (money owed back to a buyer).
CREATE TABLE refund_command (
  payment_id      text PRIMARY KEY REFERENCES payment (id),
  reason          text NOT NULL,
  state           text NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING', 'DONE')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error      text,
  gateway_refund_id text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  done_at         timestamptz
);
CREATE INDEX refund_command_due_idx ON refund_command (next_attempt_at) WHERE state = 'PENDING';

-- GUARD: only listed transitions; LOG: every insert and status change.
CREATE FUNCTION guard_state_transition() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_entity text := TG_ARGV[0];
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO state_transition (entity_type, entity_id, from_state, to_state, cause)
    VALUES (v_entity, NEW.id::text, NULL, NEW.status, NEW.status_cause);
    RETURN NEW;
  END IF;
  IF NEW.status IS NOT DISTINCT FROM OLD.status THEN
    RETURN NEW;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM state_machine
                  WHERE entity_type = v_entity AND from_state = OLD.status AND to_state = NEW.status) THEN
    RAISE EXCEPTION '% % cannot move from % to %', v_entity, OLD.id, OLD.status, NEW.status
      USING ERRCODE = 'WRT09';
  END IF;
  INSERT INTO state_transition (entity_type, entity_id, from_state, to_state, cause)
  VALUES (v_entity, NEW.id::text, OLD.status, NEW.status, NEW.status_cause);
  RETURN NEW;
END;
$$;

CREATE TRIGGER seat_hold_state AFTER INSERT OR UPDATE OF status ON seat_hold
  FOR EACH ROW EXECUTE FUNCTION guard_state_transition('hold');
CREATE TRIGGER payment_state AFTER INSERT OR UPDATE OF status ON payment
  FOR EACH ROW EXECUTE FUNCTION guard_state_transition('payment');
CREATE TRIGGER booking_state AFTER INSERT OR UPDATE OF status ON booking
  FOR EACH ROW EXECUTE FUNCTION guard_state_transition('booking');

-- hold_seats, now also announcing HoldCreated through the outbox; its own transition insert
-- is gone (the trigger logs it).
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
  IF v_show.sale_state <> 'OPEN' OR v_show.sale_opens_at > now() THEN
    RAISE EXCEPTION 'showtime % is not on sale', p_showtime_id USING ERRCODE = 'WR409',
      DETAIL = json_build_object('state', CASE WHEN v_show.sale_state = 'OPEN' THEN 'SCHEDULED'
                                               ELSE v_show.sale_state END,
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

  -- GUARD: the customer never holds or owns more than the showtime allows
  SELECT count(*) INTO v_owned
    FROM show_seat s
   WHERE s.showtime_id = p_showtime_id AND s.customer_id = p_customer_id
     AND (s.status = 'BOOKED' OR (s.status = 'HELD' AND s.hold_expires_at > now()));
  IF v_owned + cardinality(v_seats) > v_show.max_seats_per_customer THEN
    RAISE EXCEPTION 'seat limit of % per customer exceeded', v_show.max_seats_per_customer
      USING ERRCODE = 'WRL22',
      DETAIL = json_build_object('limit', v_show.max_seats_per_customer, 'owned', v_owned,
                                 'requested', cardinality(v_seats))::text;
  END IF;

  -- WRITE: lock the rows in seat-code order (no deadlock between {A,B} and {B,A}), then take
  -- only those that are free, where a lapsed hold counts as free.
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

-- Set once, when the last seat is booked, so ShowtimeSoldOut is announced exactly once.
ALTER TABLE showtime ADD COLUMN sold_out_at timestamptz;
