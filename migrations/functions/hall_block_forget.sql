-- hall_block_forget: a hall's seats changed (inserted, updated, deleted), so its best-available
-- blocks (hall_block, migrations/0021_hall_blocks.sql) may be wrong: forget every set of the
-- halls touched; hall_blocks_ensure works them out again from the seats when next asked.
-- `changed` holds the rows inserted or deleted, or the rows before an update; `changed_to`
-- (updates only) the rows after it, in case a seat was moved to another hall.
CREATE OR REPLACE FUNCTION hall_block_forget() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM hall_block_set s WHERE s.hall_id IN (SELECT c.hall_id FROM changed c);
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM hall_block_set s WHERE s.hall_id IN (SELECT c.hall_id FROM changed_to c);
  END IF;
  RETURN NULL;
END;
$$;
