-- Trigger (row, AFTER INSERT OR UPDATE OF sale_state, sale_opens_at, starts_at ON showtime).
-- GUARD + LOG: the switch moves only along the sale state machine; every move is logged.
-- VERSION: the room's copy in Redis is stale as soon as the switch or the sale's times change.
CREATE OR REPLACE FUNCTION guard_sale_state() RETURNS trigger LANGUAGE plpgsql AS $$
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
