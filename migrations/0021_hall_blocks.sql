-- Best available's candidate blocks, kept per hall instead of worked out on every call.
--
-- Which N adjacent seats of a hall form a block, and how good each block is, depends on the
-- hall alone (rows, columns, couple pairs, accessible seats) and on the ideal row: not on who
-- holds what. hold_best_seats used to find them on each call with window functions over every
-- seat of the showtime (some 40 M instructions for two seats in a 600-seat hall); it now reads
-- them here in score order and checks only the seats of the blocks it looks at.
--
-- hall_block_set marks a (hall, count, ideal row) whose blocks are here: a set may have no
-- block at all (no run of N seats), so the mark is kept apart from the rows. Both are a cache:
-- hall_blocks_ensure fills a set the first time it is asked for, and a change to a hall's seats
-- forgets that hall's sets (hall_block_forget), so they are worked out again from the seats.
CREATE TABLE hall_block_set (
  hall_id    bigint   NOT NULL REFERENCES hall (id) ON DELETE CASCADE,
  seat_count smallint NOT NULL CHECK (seat_count BETWEEN 1 AND 50),
  ideal_row  smallint NOT NULL,
  PRIMARY KEY (hall_id, seat_count, ideal_row)
);

-- One block: seat_count seats at consecutive columns of one row, cutting no couple pair. Lower
-- score wins, then the front row, then the leftmost block (the primary key's order, which the
-- choice reads in). accessible_seats: how many of them are accessible seats.
CREATE TABLE hall_block (
  hall_id          bigint   NOT NULL,
  seat_count       smallint NOT NULL,
  ideal_row        smallint NOT NULL,
  score            numeric  NOT NULL,
  row_number       smallint NOT NULL,
  first_column     smallint NOT NULL,
  accessible_seats smallint NOT NULL,
  seat_codes       text[]   NOT NULL,
  PRIMARY KEY (hall_id, seat_count, ideal_row, score, row_number, first_column),
  FOREIGN KEY (hall_id, seat_count, ideal_row) REFERENCES hall_block_set ON DELETE CASCADE
);

-- The triggers' function is migrations/functions/hall_block_forget.sql, applied after the
-- migrations; a placeholder lets the triggers be created first on a database that has not
-- had the file yet (it replaces the placeholder right after).
DO $$
BEGIN
  IF to_regprocedure('hall_block_forget()') IS NULL THEN
    CREATE FUNCTION hall_block_forget() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NULL; END';
  END IF;
END;
$$;
CREATE TRIGGER hall_seat_inserted_forgets_blocks AFTER INSERT ON hall_seat
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION hall_block_forget();
CREATE TRIGGER hall_seat_updated_forgets_blocks AFTER UPDATE ON hall_seat
  REFERENCING OLD TABLE AS changed NEW TABLE AS changed_to FOR EACH STATEMENT EXECUTE FUNCTION hall_block_forget();
CREATE TRIGGER hall_seat_deleted_forgets_blocks AFTER DELETE ON hall_seat
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION hall_block_forget();
