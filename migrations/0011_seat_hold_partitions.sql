-- seat_hold (one row per hold: every buyer's every attempt) becomes a table partitioned like
-- show_seat: by RANGE of showtime_id, in the same blocks of consecutive showtime ids
-- (show_seat_block_size()), so the retention job archives a finished block's seats and holds
-- together.
--
-- Keys change with it: a partitioned table's primary key must contain the partition key, so a
-- hold is identified by (showtime_id, id). Every statement on seat_hold names the showtime (the
-- buyer's access token, the payment and the booking all carry it), so each reads one partition.
--
-- payment and booking no longer reference seat_hold by a foreign key: they are money records,
-- kept for years, while a hold is working state of the sale, archived with its showtime. A
-- foreign key would forbid detaching any block that ever sold a seat. In its place a trigger
-- checks, when a payment or booking is written, that its (showtime_id, hold_id) names a hold:
-- stricter than the old key (the showtime must match too) and as cheap. hold_allocation (a
-- general-admission hold's counter rows, needed only while the sale runs) keeps a foreign key,
-- now on (showtime_id, hold_id); the job deletes a block's allocations just before detaching it.

-- GUARD: the old table keeps its rows until they are copied; the new one takes the names.
ALTER TABLE payment DROP CONSTRAINT payment_hold_id_fkey;
ALTER TABLE booking DROP CONSTRAINT booking_hold_id_fkey;
ALTER TABLE hold_allocation DROP CONSTRAINT hold_allocation_hold_id_fkey;

ALTER TABLE seat_hold RENAME TO seat_hold_unpartitioned;
ALTER INDEX seat_hold_pkey RENAME TO seat_hold_unpartitioned_pkey;
ALTER INDEX seat_hold_customer_idx RENAME TO seat_hold_unpartitioned_customer_idx;
ALTER INDEX seat_hold_active_expiry_idx RENAME TO seat_hold_unpartitioned_active_expiry_idx;
ALTER INDEX seat_hold_places_active_idx RENAME TO seat_hold_unpartitioned_places_active_idx;
DROP TRIGGER seat_hold_state ON seat_hold_unpartitioned;
DROP TRIGGER seat_hold_fare_count ON seat_hold_unpartitioned;

CREATE TABLE seat_hold (
  LIKE seat_hold_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS,
  PRIMARY KEY (showtime_id, id)
) PARTITION BY RANGE (showtime_id);
CREATE INDEX seat_hold_customer_idx ON seat_hold (showtime_id, customer_id);
CREATE INDEX seat_hold_active_expiry_idx ON seat_hold (expires_at) WHERE status = 'ACTIVE';
CREATE INDEX seat_hold_places_active_idx ON seat_hold (showtime_id, fare_class, expires_at)
  WHERE status = 'ACTIVE' AND fare_class IS NOT NULL;
CREATE TABLE seat_hold_default PARTITION OF seat_hold DEFAULT;

-- Creates the partitions of every block up to the one holding p_up_to_id; returns how many.
-- Named seat_hold_b<first id, 12 digits>, as show_seat's.
CREATE FUNCTION seat_hold_ensure_partitions(p_up_to_id bigint)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_block bigint := show_seat_block_size();
  v_low   bigint := 0;
  v_name  text;
  v_made  integer := 0;
BEGIN
  WHILE v_low <= p_up_to_id LOOP
    v_name := format('seat_hold_b%s', lpad(v_low::text, 12, '0'));
    IF to_regclass('public.' || v_name) IS NULL AND to_regclass('archive.' || v_name) IS NULL THEN
      IF EXISTS (SELECT 1 FROM seat_hold_default WHERE showtime_id >= v_low AND showtime_id < v_low + v_block) THEN
        -- Holds written before their block existed: move them out of DEFAULT first.
        EXECUTE format('CREATE TABLE public.%I (LIKE seat_hold INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', v_name);
        EXECUTE format('WITH moved AS (DELETE FROM seat_hold_default WHERE showtime_id >= %s AND showtime_id < %s RETURNING *) '
                       'INSERT INTO public.%I SELECT * FROM moved', v_low, v_low + v_block, v_name);
        EXECUTE format('ALTER TABLE seat_hold ATTACH PARTITION public.%I FOR VALUES FROM (%s) TO (%s)', v_name, v_low, v_low + v_block);
      ELSE
        EXECUTE format('CREATE TABLE public.%I PARTITION OF seat_hold FOR VALUES FROM (%s) TO (%s)', v_name, v_low, v_low + v_block);
      END IF;
      v_made := v_made + 1;
    END IF;
    v_low := v_low + v_block;
  END LOOP;
  RETURN v_made;
END;
$$;

-- Detaches, into the archive schema, every block below the newest showtime's whose showtimes
-- all started before p_started_before (the rule show_seat_detach_partitions follows); the
-- block's hold_allocation rows are deleted first. Returns the detached names.
CREATE FUNCTION seat_hold_detach_partitions(p_started_before timestamptz)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  v_block  bigint := show_seat_block_size();
  v_newest bigint := coalesce((SELECT max(id) FROM showtime), 0);
  v_part   record;
BEGIN
  FOR v_part IN
    SELECT c.relname, substr(c.relname, 12)::bigint AS low
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'seat_hold'::regclass AND c.relname ~ '^seat_hold_b[0-9]{12}$'
     ORDER BY c.relname
  LOOP
    CONTINUE WHEN v_part.low + v_block > v_newest;
    CONTINUE WHEN EXISTS (SELECT 1 FROM showtime t
                           WHERE t.id >= v_part.low AND t.id < v_part.low + v_block AND t.starts_at >= p_started_before);
    DELETE FROM hold_allocation WHERE showtime_id >= v_part.low AND showtime_id < v_part.low + v_block;
    EXECUTE format('ALTER TABLE seat_hold DETACH PARTITION public.%I', v_part.relname);
    EXECUTE format('ALTER TABLE public.%I SET SCHEMA archive', v_part.relname);
    RETURN NEXT v_part.relname;
  END LOOP;
END;
$$;

SELECT seat_hold_ensure_partitions(coalesce((SELECT max(id) FROM showtime), 0) + 2 * show_seat_block_size());
INSERT INTO seat_hold SELECT * FROM seat_hold_unpartitioned;
DROP TABLE seat_hold_unpartitioned;

CREATE TRIGGER seat_hold_state AFTER INSERT OR UPDATE OF status ON seat_hold
  FOR EACH ROW EXECUTE FUNCTION guard_state_transition('hold');
CREATE TRIGGER seat_hold_fare_count AFTER UPDATE ON seat_hold
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION fare_count_hold_endings();

CREATE INDEX hold_allocation_showtime_idx ON hold_allocation (showtime_id, hold_id);
ALTER TABLE hold_allocation ADD CONSTRAINT hold_allocation_hold_fkey
  FOREIGN KEY (showtime_id, hold_id) REFERENCES seat_hold (showtime_id, id) ON DELETE CASCADE;

-- A payment or booking names a hold of its own showtime (the check the foreign key made, with
-- the showtime as part of the key). FOR KEY SHARE as the key check took it.
CREATE FUNCTION check_hold_exists() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM seat_hold h WHERE h.showtime_id = NEW.showtime_id AND h.id = NEW.hold_id FOR KEY SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'hold % of showtime % does not exist', NEW.hold_id, NEW.showtime_id
      USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = TG_TABLE_NAME || '_hold_exists';
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER payment_hold_exists AFTER INSERT OR UPDATE OF hold_id, showtime_id ON payment
  FOR EACH ROW EXECUTE FUNCTION check_hold_exists();
CREATE TRIGGER booking_hold_exists AFTER INSERT OR UPDATE OF hold_id, showtime_id ON booking
  FOR EACH ROW EXECUTE FUNCTION check_hold_exists();

-- Statements that matched hold rows by id alone now match on the whole key, so each probes one
-- partition's primary key (the same statement as in 0008 otherwise).
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

-- The ended-holds trigger joins old and new rows on the whole key (ids are unique per showtime).
CREATE OR REPLACE FUNCTION fare_count_hold_endings() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_row record;
BEGIN
  FOR v_row IN
    SELECT a.showtime_id, a.fare_class::text AS fare_class, a.bucket,
           -sum(a.quantity)::int AS held,
           sum(CASE WHEN n.status = 'CONFIRMED' THEN a.quantity ELSE 0 END)::int AS sold
      FROM new_rows n JOIN old_rows o ON o.showtime_id = n.showtime_id AND o.id = n.id
      JOIN hold_allocation a ON a.hold_id = n.id AND a.showtime_id = n.showtime_id
     WHERE o.status = 'ACTIVE' AND n.status <> 'ACTIVE'
     GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  LOOP
    PERFORM fare_apply(v_row.showtime_id, v_row.fare_class, v_row.bucket, v_row.held, v_row.sold);
  END LOOP;
  RETURN NULL;
END;
$$;
