-- Data that would otherwise grow forever.
--
-- state_transition (one row per status change the state machines log) becomes a
-- table partitioned by month of `at`. The retention job creates the coming months' partitions
-- ahead of time and detaches months past their retention into the `archive` schema, where an
-- operator dumps and drops them: a detach is a catalog change, not millions of DELETEs, and
-- leaves no bloat behind. A DEFAULT partition catches rows if the job ever falls behind, so a
-- missing month can never make a hold fail; the job reports rows found there.
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
      EXECUTE format('CREATE TABLE public.%I PARTITION OF state_transition FOR VALUES FROM (%L) TO (%L)',
                     v_name, v_month, v_month + interval '1 month');
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
