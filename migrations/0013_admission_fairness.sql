-- Fairness anyone can check (docs/fairness.md): the opening draw's seed and commitment live
-- with the showtime, and each showtime has an append-only, hash-chained admission log that the
-- core fills from the waiting room's journal in Redis (core/src/fairness/).

-- One row per showtime: the draw's seed (secret until the sale ends), its commitment (public
-- from the start), the salt hiding queue ids in the log, the chain's head, and how far the
-- copier has read the room's journal (its epoch changes when Redis lost the room).
CREATE TABLE fairness_showtime (
  showtime_id    bigint PRIMARY KEY REFERENCES showtime (id),
  seed           text NOT NULL CHECK (seed ~ '^[0-9a-f]{64}$'),
  commitment     text NOT NULL CHECK (commitment ~ '^[0-9a-f]{64}$'),
  salt           text NOT NULL CHECK (salt ~ '^[0-9a-f]{64}$'),
  head_seq       bigint NOT NULL DEFAULT 0 CHECK (head_seq >= 0),
  head_hash      text CHECK (head_hash ~ '^[0-9a-f]{64}$'),
  journal_epoch  text,
  journal_seq    bigint NOT NULL DEFAULT 0,
  updated_at     timestamptz NOT NULL DEFAULT now(),
  CHECK ((head_seq = 0) = (head_hash IS NULL))
);

CREATE TABLE admission_log (
  showtime_id    bigint NOT NULL REFERENCES fairness_showtime (showtime_id),
  seq            bigint NOT NULL CHECK (seq >= 1),
  -- line_reset: the room's Redis copy was lost; everyone in line then had to join again.
  kind           text NOT NULL CHECK (kind IN ('joined', 'drawn', 'admitted', 'passed_over', 'returned', 'left', 'line_reset')),
  buyer_hash  text NOT NULL CHECK (buyer_hash ~ '^[0-9a-f]{64}$'),
  rank           bigint NOT NULL,
  at_ms          bigint NOT NULL,
  draw_index     integer,
  draw_size      integer,
  hash           text NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$'),
  -- Where the entry came from in the room's journal: a copier that lost a race sees it here.
  journal_epoch  text NOT NULL,
  journal_seq    bigint NOT NULL,
  PRIMARY KEY (showtime_id, seq),
  UNIQUE (showtime_id, journal_epoch, journal_seq)
);

CREATE OR REPLACE FUNCTION admission_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the admission log is append-only (% refused)', TG_OP USING ERRCODE = 'WRF01';
END;
$$;

CREATE TRIGGER admission_log_no_change BEFORE UPDATE OR DELETE ON admission_log
  FOR EACH ROW EXECUTE FUNCTION admission_log_append_only();
CREATE TRIGGER admission_log_no_truncate BEFORE TRUNCATE ON admission_log
  FOR EACH STATEMENT EXECUTE FUNCTION admission_log_append_only();

CREATE OR REPLACE FUNCTION fairness_showtime_create() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  drawn_seed bytea := sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8'));
BEGIN
  INSERT INTO fairness_showtime (showtime_id, seed, commitment, salt)
  VALUES (NEW.id, encode(drawn_seed, 'hex'), encode(sha256(drawn_seed), 'hex'),
          encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')), 'hex'))
  ON CONFLICT (showtime_id) DO NOTHING;
  RETURN NEW;
END;
$$;

CREATE TRIGGER showtime_fairness AFTER INSERT ON showtime
  FOR EACH ROW EXECUTE FUNCTION fairness_showtime_create();

-- Showtimes that exist already get theirs now.
INSERT INTO fairness_showtime (showtime_id, seed, commitment, salt)
SELECT id, encode(s.seed, 'hex'), encode(sha256(s.seed), 'hex'),
       encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')), 'hex')
  FROM showtime,
       LATERAL (SELECT sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text || id::text, 'UTF8')) AS seed) s;
