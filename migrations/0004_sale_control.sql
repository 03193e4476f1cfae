-- One authoritative sale state per showtime, with the waiting room's settings and the
-- operator audit log beside it (README.md, "Sale control", explains the model).
--
-- showtime.sale_state is the operator's switch: OPEN, PAUSED, CLOSED or SOLD_OUT. What buyers,
-- pages, the catalog and the waiting room see is derived from it and the database clock
-- (opening soon, on sale, paused, sold out, closed, started). Every change of the switch goes
-- through the sale state machine below and is logged in state_transition with its cause.
--
-- room_settings holds what the operator set for the waiting room (capacity, admission rate,
-- turn length, buckets, proof of work...) as a JSON patch over the defaults, and a version
-- that grows with every change of the settings, the switch or the sale's times. Redis keeps
-- a copy stamped with that version; a copy that is missing or older is restored from here.

ALTER TABLE showtime DROP CONSTRAINT showtime_sale_state_check;
ALTER TABLE showtime ADD CONSTRAINT showtime_sale_state_check
  CHECK (sale_state IN ('OPEN', 'PAUSED', 'CLOSED', 'SOLD_OUT'));
ALTER TABLE showtime ADD COLUMN sale_state_cause text NOT NULL DEFAULT 'created';

ALTER TABLE state_transition DROP CONSTRAINT state_transition_entity_type_check;
ALTER TABLE state_transition ADD CONSTRAINT state_transition_entity_type_check
  CHECK (entity_type IN ('hold', 'booking', 'payment', 'sale'));

-- Pause and sold out stop admissions; close ends every turn; a closed sale may be reopened.
INSERT INTO state_machine (entity_type, from_state, to_state) VALUES
  ('sale', 'OPEN', 'PAUSED'),
  ('sale', 'OPEN', 'CLOSED'),
  ('sale', 'OPEN', 'SOLD_OUT'),
  ('sale', 'PAUSED', 'OPEN'),
  ('sale', 'PAUSED', 'CLOSED'),
  ('sale', 'PAUSED', 'SOLD_OUT'),
  ('sale', 'SOLD_OUT', 'OPEN'),
  ('sale', 'SOLD_OUT', 'PAUSED'),
  ('sale', 'SOLD_OUT', 'CLOSED'),
  ('sale', 'CLOSED', 'OPEN'),
  ('sale', 'CLOSED', 'PAUSED');

CREATE TABLE room_settings (
  showtime_id bigint PRIMARY KEY REFERENCES showtime (id) ON DELETE CASCADE,
  settings    jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(settings) = 'object'),
  version     bigint NOT NULL DEFAULT 1 CHECK (version >= 1),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO room_settings (showtime_id) SELECT id FROM showtime;

-- Who changed what, when, from where: written in the same transaction as the change.
CREATE TABLE operator_audit (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  showtime_id bigint NOT NULL REFERENCES showtime (id) ON DELETE CASCADE,
  actor       text NOT NULL CHECK (length(actor) BETWEEN 1 AND 128),
  source      text CHECK (length(source) <= 128),
  action      text NOT NULL CHECK (length(action) BETWEEN 1 AND 64),
  before      jsonb,
  after       jsonb,
  version     bigint NOT NULL,
  at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX operator_audit_showtime_idx ON operator_audit (showtime_id, id DESC);

-- Admission turns the waiting room granted, written when a buyer is admitted, ended when they
-- leave or the sale closes. Redis keeps the live copy; when Redis loses a room, its turns come
-- back from here, so they keep working until they expire and count against the capacity.
-- No foreign key to showtime, as for seat_hold: inserts would share-lock the hot showtime row.
CREATE TABLE admission_turn (
  showtime_id bigint NOT NULL,
  customer_id varchar(128) NOT NULL,
  ticket      bigint NOT NULL CHECK (ticket >= 0),
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  ended_at    timestamptz,
  PRIMARY KEY (showtime_id, customer_id, ticket)
);
CREATE INDEX admission_turn_live_idx ON admission_turn (showtime_id, expires_at) WHERE ended_at IS NULL;

-- GUARD + LOG: the switch moves only along the sale state machine; every move is logged.
-- VERSION: the room's copy in Redis is stale as soon as the switch or the sale's times change.
CREATE FUNCTION guard_sale_state() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO room_settings (showtime_id) VALUES (NEW.id);
    INSERT INTO state_transition (entity_type, entity_id, from_state, to_state, cause)
    VALUES ('sale', NEW.id::text, NULL, NEW.sale_state, NEW.sale_state_cause);
    RETURN NEW;
  END IF;
  IF NEW.sale_state IS DISTINCT FROM OLD.sale_state THEN
    IF NOT EXISTS (SELECT 1 FROM state_machine
                    WHERE entity_type = 'sale' AND from_state = OLD.sale_state AND to_state = NEW.sale_state) THEN
      RAISE EXCEPTION 'sale of showtime % cannot move from % to %', OLD.id, OLD.sale_state, NEW.sale_state
        USING ERRCODE = 'WRT09';
    END IF;
    INSERT INTO state_transition (entity_type, entity_id, from_state, to_state, cause)
    VALUES ('sale', NEW.id::text, OLD.sale_state, NEW.sale_state, NEW.sale_state_cause);
  END IF;
  IF NEW.sale_state IS DISTINCT FROM OLD.sale_state
     OR NEW.sale_opens_at IS DISTINCT FROM OLD.sale_opens_at
     OR NEW.starts_at IS DISTINCT FROM OLD.starts_at THEN
    UPDATE room_settings SET version = version + 1, updated_at = now() WHERE showtime_id = NEW.id;
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER showtime_sale_state AFTER INSERT OR UPDATE OF sale_state, sale_opens_at, starts_at ON showtime
  FOR EACH ROW EXECUTE FUNCTION guard_sale_state();

-- Holds: a paused or sold-out sale stops admissions only; buyers already admitted keep buying.
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
