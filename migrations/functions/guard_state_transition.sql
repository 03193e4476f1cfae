-- Trigger (row, AFTER INSERT OR UPDATE OF status ON payment / booking, AFTER INSERT OR UPDATE
-- ON seat_hold; the entity named in TG_ARGV[0]).
-- ROW RULES (holds only): the rules of a hold row that span columns. They were table CHECKs;
-- PostgreSQL reads a table's CHECKs back from their stored text and compiles them for every
-- statement that writes the table: 8 % of the instructions of a hold and its cancel
-- (the hold path writes seat_hold twice). This trigger runs for every such row anyway, and
-- its expressions are parsed once per session. Same rules, same error: check_violation
-- (23514) named by the rule broken. (Single-column rules are domains: migration 0020.)
-- GUARD: only transitions listed in state_machine (WRT09 otherwise);
-- LOG: every insert and status change into state_transition, with its cause.
CREATE OR REPLACE FUNCTION guard_state_transition() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_entity text := TG_ARGV[0];
  v_rule   text;
BEGIN
  -- Nested, not joined by AND: SQL does not promise to evaluate the entity test first, and a
  -- payment or booking row has none of these fields. One expression on the way through;
  -- which rule broke is worked out only on the way out.
  IF v_entity = 'hold' THEN
    IF NOT (NEW.expires_at > NEW.created_at
            AND (NEW.status = 'ACTIVE') = (NEW.ended_at IS NULL)
            -- Seats (chosen or best available: codes, no class or quantity) or general-admission
            -- places (a class and a quantity, no codes), 1 to 50 of either.
            AND CASE WHEN NEW.fare_class IS NULL
                     THEN NEW.quantity IS NULL AND cardinality(NEW.seat_codes) BETWEEN 1 AND 50
                     ELSE NEW.quantity IS NOT NULL AND NEW.quantity BETWEEN 1 AND 50
                          AND cardinality(NEW.seat_codes) = 0
                END) THEN
      v_rule := CASE WHEN NOT (NEW.expires_at > NEW.created_at) THEN 'seat_hold_expires_after_creation'
                     WHEN NOT ((NEW.status = 'ACTIVE') = (NEW.ended_at IS NULL)) THEN 'seat_hold_ended_unless_active'
                     ELSE 'seat_hold_seats_or_places' END;
      RAISE EXCEPTION 'hold % breaks %', NEW.id, v_rule
        USING ERRCODE = 'check_violation', TABLE = 'seat_hold', CONSTRAINT = v_rule;
    END IF;
  END IF;
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
