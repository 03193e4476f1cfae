-- Trigger (row, AFTER INSERT OR UPDATE ON payment / booking): a payment or booking names a hold
-- of its own showtime. seat_hold is partitioned and archived with its showtime, so money records
-- cannot reference it by a foreign key; this is the check such a key made, with the showtime as
-- part of the key, taking FOR KEY SHARE as the key check did.
CREATE OR REPLACE FUNCTION check_hold_exists() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM seat_hold h WHERE h.showtime_id = NEW.showtime_id AND h.id = NEW.hold_id FOR KEY SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'hold % of showtime % does not exist', NEW.hold_id, NEW.showtime_id
      USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = TG_TABLE_NAME || '_hold_exists';
  END IF;
  RETURN NULL;
END;
$$;
