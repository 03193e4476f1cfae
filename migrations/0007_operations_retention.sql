-- Data that would otherwise grow forever.
--
-- state_transition (one row per status change the state machines log) becomes a
-- table partitioned by month of `at`. The retention job creates the coming months' partitions
-- ahead of time and detaches months past their retention into the `archive` schema, where an
-- operator dumps and drops them: a detach is a catalog change, not millions of DELETEs, and
-- leaves no bloat behind. A DEFAULT partition catches rows if the job ever falls behind, so a
-- missing month can never make a hold fail; /metrics reports rows found there, and the job moves
-- them into their partition when it creates it.
--
-- outbox, idempotency_key and payment_event are trimmed by batched DELETEs (indexes below make
-- finding what is past its retention cheap).

CREATE SCHEMA IF NOT EXISTS archive;

-- GUARD: keep the old table's rows and ids; the new one takes its name and index names, and
-- copies its columns and CHECK constraints as they are now (other migrations extend them).
ALTER TABLE state_transition RENAME TO state_transition_unpartitioned;
ALTER INDEX state_transition_entity_idx RENAME TO state_transition_unpartitioned_entity_idx;
ALTER INDEX state_transition_pkey RENAME TO state_transition_unpartitioned_pkey;
ALTER SEQUENCE state_transition_id_seq RENAME TO state_transition_unpartitioned_id_seq;

CREATE TABLE state_transition (
  LIKE state_transition_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS,
  PRIMARY KEY (id, at)
) PARTITION BY RANGE (at);
CREATE SEQUENCE state_transition_id_seq AS bigint OWNED BY state_transition.id;
SELECT setval('state_transition_id_seq', coalesce((SELECT max(id) FROM state_transition_unpartitioned), 0) + 1, false);
ALTER TABLE state_transition ALTER COLUMN id SET DEFAULT nextval('state_transition_id_seq');
CREATE INDEX state_transition_entity_idx ON state_transition (entity_type, entity_id);
CREATE TABLE state_transition_default PARTITION OF state_transition DEFAULT;

-- Creates the monthly partitions covering [p_from, p_to) that do not exist yet; returns how many
-- it created. Partitions are named state_transition_yYYYYmMM (the job reads months from names).
CREATE FUNCTION state_transition_ensure_partitions(p_from timestamptz, p_to timestamptz)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_month timestamptz := date_trunc('month', p_from, 'UTC');
  v_name  text;
  v_made  integer := 0;
BEGIN
  WHILE v_month < p_to LOOP
    v_name := format('state_transition_y%sm%s', to_char(v_month AT TIME ZONE 'UTC', 'YYYY'), to_char(v_month AT TIME ZONE 'UTC', 'MM'));
    IF to_regclass('public.' || v_name) IS NULL AND to_regclass('archive.' || v_name) IS NULL THEN
      IF EXISTS (SELECT 1 FROM state_transition_default WHERE at >= v_month AND at < v_month + interval '1 month') THEN
        -- The month was written before its partition existed: move its rows out of DEFAULT first.
        EXECUTE format('CREATE TABLE public.%I (LIKE state_transition INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', v_name);
        EXECUTE format('WITH moved AS (DELETE FROM state_transition_default WHERE at >= %L AND at < %L RETURNING *) '
                       'INSERT INTO public.%I SELECT * FROM moved', v_month, v_month + interval '1 month', v_name);
        EXECUTE format('ALTER TABLE state_transition ATTACH PARTITION public.%I FOR VALUES FROM (%L) TO (%L)',
                       v_name, v_month, v_month + interval '1 month');
      ELSE
        EXECUTE format('CREATE TABLE public.%I PARTITION OF state_transition FOR VALUES FROM (%L) TO (%L)',
                       v_name, v_month, v_month + interval '1 month');
      END IF;
      v_made := v_made + 1;
    END IF;
    v_month := v_month + interval '1 month';
  END LOOP;
  RETURN v_made;
END;
$$;

-- Detaches the monthly partitions that end on or before p_before and moves them to the archive
-- schema; returns their names.
CREATE FUNCTION state_transition_detach_partitions(p_before timestamptz)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  v_part record;
BEGIN
  FOR v_part IN
    SELECT c.relname,
           make_timestamptz(substr(c.relname, 19, 4)::int, substr(c.relname, 24, 2)::int, 1, 0, 0, 0, 'UTC') AS month_start
      FROM pg_inherits i
      JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'state_transition'::regclass
       AND c.relname ~ '^state_transition_y[0-9]{4}m[0-9]{2}$'
     ORDER BY c.relname
  LOOP
    CONTINUE WHEN v_part.month_start + interval '1 month' > p_before;
    EXECUTE format('ALTER TABLE state_transition DETACH PARTITION public.%I', v_part.relname);
    EXECUTE format('ALTER TABLE public.%I SET SCHEMA archive', v_part.relname);
    RETURN NEXT v_part.relname;
  END LOOP;
END;
$$;

-- Every month that already has rows, through two months ahead; then the rows move over.
SELECT state_transition_ensure_partitions(
  least(coalesce((SELECT min(at) FROM state_transition_unpartitioned), now()), now()),
  now() + interval '3 months');

INSERT INTO state_transition SELECT * FROM state_transition_unpartitioned;
DROP TABLE state_transition_unpartitioned;

-- Retention lookups: published outbox rows by age, webhook events by age.
CREATE INDEX outbox_published_idx ON outbox (published_at) WHERE published_at IS NOT NULL;
CREATE INDEX payment_event_received_idx ON payment_event (received_at);

-- show_seat (one row per seat per showtime: millions a day at the scale of a cinema chain)
-- becomes a table partitioned by RANGE of showtime_id, in blocks of consecutive showtime ids.
-- Every statement on show_seat names the showtime, so each one reads a single partition with no
-- change to any query (hold_seats included), and the primary key (showtime_id, seat_code) stays
-- as it is. Ids grow as showtimes are created, so a block holds the showtimes created over a
-- stretch of time; the retention job detaches a block once every showtime in it has started
-- long enough ago, and never the block new showtimes are being created in.
ALTER TABLE show_seat RENAME TO show_seat_unpartitioned;
ALTER INDEX show_seat_pkey RENAME TO show_seat_unpartitioned_pkey;
ALTER INDEX show_seat_hold_idx RENAME TO show_seat_unpartitioned_hold_idx;
ALTER INDEX show_seat_customer_idx RENAME TO show_seat_unpartitioned_customer_idx;
ALTER INDEX show_seat_expiry_idx RENAME TO show_seat_unpartitioned_expiry_idx;

CREATE TABLE show_seat (
  LIKE show_seat_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS,
  PRIMARY KEY (showtime_id, seat_code),
  CONSTRAINT show_seat_showtime_fkey FOREIGN KEY (showtime_id) REFERENCES showtime (id) ON DELETE CASCADE
) PARTITION BY RANGE (showtime_id);
CREATE INDEX show_seat_hold_idx ON show_seat (hold_id) WHERE hold_id IS NOT NULL;
CREATE INDEX show_seat_customer_idx ON show_seat (showtime_id, customer_id) WHERE customer_id IS NOT NULL;
CREATE INDEX show_seat_expiry_idx ON show_seat (hold_expires_at) WHERE status = 'HELD';
CREATE TABLE show_seat_default PARTITION OF show_seat DEFAULT;

-- The block size is fixed once chosen (partitions are named by their first id).
CREATE FUNCTION show_seat_block_size() RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT 10000::bigint $$;

-- Creates the partitions of every block up to the one holding p_up_to_id; returns how many.
CREATE FUNCTION show_seat_ensure_partitions(p_up_to_id bigint)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_block bigint := show_seat_block_size();
  v_low   bigint := 0;
  v_name  text;
  v_made  integer := 0;
BEGIN
  WHILE v_low <= p_up_to_id LOOP
    v_name := format('show_seat_b%s', lpad(v_low::text, 12, '0'));
    IF to_regclass('public.' || v_name) IS NULL AND to_regclass('archive.' || v_name) IS NULL THEN
      IF EXISTS (SELECT 1 FROM show_seat_default WHERE showtime_id >= v_low AND showtime_id < v_low + v_block) THEN
        -- Seats written before their block existed: move them out of DEFAULT first.
        EXECUTE format('CREATE TABLE public.%I (LIKE show_seat INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', v_name);
        EXECUTE format('WITH moved AS (DELETE FROM show_seat_default WHERE showtime_id >= %s AND showtime_id < %s RETURNING *) '
                       'INSERT INTO public.%I SELECT * FROM moved', v_low, v_low + v_block, v_name);
        EXECUTE format('ALTER TABLE show_seat ATTACH PARTITION public.%I FOR VALUES FROM (%s) TO (%s)', v_name, v_low, v_low + v_block);
      ELSE
        EXECUTE format('CREATE TABLE public.%I PARTITION OF show_seat FOR VALUES FROM (%s) TO (%s)', v_name, v_low, v_low + v_block);
      END IF;
      v_made := v_made + 1;
    END IF;
    v_low := v_low + v_block;
  END LOOP;
  RETURN v_made;
END;
$$;

-- Detaches, into the archive schema, every block below the newest showtime's whose showtimes
-- all started before p_started_before; returns their names.
CREATE FUNCTION show_seat_detach_partitions(p_started_before timestamptz)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  v_block  bigint := show_seat_block_size();
  v_newest bigint := coalesce((SELECT max(id) FROM showtime), 0);
  v_part   record;
BEGIN
  FOR v_part IN
    SELECT c.relname, substr(c.relname, 12)::bigint AS low
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'show_seat'::regclass AND c.relname ~ '^show_seat_b[0-9]{12}$'
     ORDER BY c.relname
  LOOP
    CONTINUE WHEN v_part.low + v_block > v_newest;
    CONTINUE WHEN EXISTS (SELECT 1 FROM showtime t
                           WHERE t.id >= v_part.low AND t.id < v_part.low + v_block AND t.starts_at >= p_started_before);
    EXECUTE format('ALTER TABLE show_seat DETACH PARTITION public.%I', v_part.relname);
    EXECUTE format('ALTER TABLE public.%I SET SCHEMA archive', v_part.relname);
    RETURN NEXT v_part.relname;
  END LOOP;
END;
$$;

SELECT show_seat_ensure_partitions(coalesce((SELECT max(id) FROM showtime), 0) + 2 * show_seat_block_size());
INSERT INTO show_seat SELECT * FROM show_seat_unpartitioned;
DROP TABLE show_seat_unpartitioned;
