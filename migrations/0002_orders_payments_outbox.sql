-- Checkout, payments and the order lifecycle (README: Checkout, payments and the order lifecycle).
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
