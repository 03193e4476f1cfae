-- How many consecutive showtime ids share one partition of show_seat and of seat_hold. Fixed
-- once chosen: partitions are named by their first id and bounded by this size, so changing it
-- would leave existing partitions misnamed and new ones overlapping.
CREATE OR REPLACE FUNCTION show_seat_block_size() RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT 10000::bigint $$;
