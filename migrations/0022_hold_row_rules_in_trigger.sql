-- seat_hold's multi-column CHECKs move into the hold's row trigger (guard_state_transition,
-- which states them). PostgreSQL parses and compiles a table's CHECKs from their stored text
-- for every statement that writes the table; a hold and its cancel write seat_hold twice, and
-- those four CHECKs cost 8 % of the database's instructions for the pair (hold-instructions),
-- while the trigger, which runs for these rows anyway, parses its expressions once per
-- session. The rules and the error (check_violation, 23514, named by constraint) stay.
--
-- The trigger now fires on every UPDATE of a hold, not only on status changes, so no write
-- to the row escapes the rules. Rows already stored passed the CHECKs being dropped.
DROP TRIGGER seat_hold_state ON seat_hold;
CREATE TRIGGER seat_hold_state AFTER INSERT OR UPDATE ON seat_hold
  FOR EACH ROW EXECUTE FUNCTION guard_state_transition('hold');

ALTER TABLE seat_hold
  DROP CONSTRAINT seat_hold_check,
  DROP CONSTRAINT seat_hold_check1,
  DROP CONSTRAINT seat_hold_quantity_check,
  DROP CONSTRAINT seat_hold_seats_or_places;
