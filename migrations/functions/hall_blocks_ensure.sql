-- hall_blocks_ensure: best available's candidate blocks of N seats for a hall and an ideal row
-- (hall_block, migrations/0021_hall_blocks.sql), worked out from the hall's seats the first time
-- they are asked for. Nothing here depends on who holds what:
--
--   RUNS    seats at consecutive columns of one row (gaps and islands); an aisle (a missing
--           column) ends a run.
--   PAIRS   couple seats pair up in column order within a row, the 1st with the 2nd, the 3rd
--           with the 4th… (lib/couple-pairs.ts); a lone last one has no partner.
--   BLOCKS  every window of N seats inside a run that cuts no couple pair, scored (lower wins):
--             2 x |row - ideal row|  +  |block centre - row centre| (in seats)
--             - 3 when N = 2 and the block is one couple pair (preferred for two)
--           ties: the front row, then the leftmost block.
--
-- hold_best_seats then keeps the blocks a buyer may have (accessible seats in the block only
-- when asked for, and then at least one) and checks their seats, in this order.
--
-- Two buyers asking for the same new set at once: the second waits on the first's mark (its
-- primary key) and, once the first commits, finds it there; if the first rolled back (its hold
-- was refused), the second works the set out itself.
CREATE OR REPLACE FUNCTION hall_blocks_ensure(p_hall_id bigint, p_count integer, p_ideal integer)
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM hall_block_set s
              WHERE s.hall_id = p_hall_id AND s.seat_count = p_count AND s.ideal_row = p_ideal) THEN
    RETURN;
  END IF;
  INSERT INTO hall_block_set (hall_id, seat_count, ideal_row) VALUES (p_hall_id, p_count, p_ideal)
    ON CONFLICT DO NOTHING;
  IF NOT FOUND THEN
    RETURN; -- another session worked it out meanwhile
  END IF;
  INSERT INTO hall_block (hall_id, seat_count, ideal_row, score, row_number, first_column, accessible_seats, seat_codes)
  WITH seat AS (
    SELECT hs.seat_code, hs.row_number AS r, hs.column_number AS c, hs.seat_type
      FROM hall_seat hs
     WHERE hs.hall_id = p_hall_id
  ), paired AS (
    SELECT seat.*,
           min(c) OVER (PARTITION BY r) AS row_first, max(c) OVER (PARTITION BY r) AS row_last,
           CASE WHEN seat_type = 'couple' THEN
             CASE WHEN row_number() OVER w % 2 = 1 THEN lead(c) OVER w ELSE lag(c) OVER w END END AS partner_c
      FROM seat
    WINDOW w AS (PARTITION BY r, seat_type = 'couple' ORDER BY c)
  ), runs AS (
    SELECT p.*, c - row_number() OVER (PARTITION BY r ORDER BY c) AS run
      FROM paired p
  ), windows AS (
    SELECT r, c AS first_c, row_first, row_last,
           array_agg(seat_code::text) OVER f AS codes,
           count(*) OVER f AS n,
           max(c) OVER f AS last_c,
           min(partner_c) OVER f AS min_partner,
           max(partner_c) OVER f AS max_partner,
           count(*) FILTER (WHERE seat_type = 'accessible') OVER f AS accessible_n,
           count(*) FILTER (WHERE seat_type = 'couple') OVER f AS couple_n
      FROM runs
    WINDOW f AS (PARTITION BY r, run ORDER BY c ROWS BETWEEN CURRENT ROW AND p_count - 1 FOLLOWING)
  )
  SELECT p_hall_id, p_count, p_ideal,
         2 * abs(r - p_ideal) + abs((first_c + last_c) / 2.0 - (row_first + row_last) / 2.0)
           - CASE WHEN p_count = 2 AND couple_n = 2 THEN 3 ELSE 0 END,
         r, first_c, accessible_n, codes
    FROM windows
   WHERE n = p_count
     AND (min_partner IS NULL OR (min_partner >= first_c AND max_partner <= last_c));
END;
$$;
