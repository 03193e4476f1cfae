-- Trigger (row, AFTER INSERT ON showtime).
-- Every showtime is born with its fairness record: the opening draw's secret seed and its
-- commitment (SHA-256 of the seed's bytes, as queue/src/fair-draw.ts computes it), and the salt
-- that hides queue ids in the admission log until the sale ends. Kept here, not in Redis, so a
-- commitment published before a Redis loss still verifies after it.
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
