-- Trigger (row, AFTER INSERT OR UPDATE OF status ON seat_hold / payment / booking, the entity
-- named in TG_ARGV[0]). GUARD: only transitions listed in state_machine (WRT09 otherwise);
-- LOG: every insert and status change into state_transition, with its cause.
CREATE OR REPLACE FUNCTION guard_state_transition() RETURNS trigger LANGUAGE plpgsql AS $$
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
