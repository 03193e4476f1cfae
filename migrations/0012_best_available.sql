-- Best available seats (docs/best-available.md): the buyer says how many, the database picks
-- the best N adjacent seats in one row and holds them in the same transaction.
--
-- The ideal row is configurable per hall (hall.ideal_row) and per showtime (showtime.ideal_row,
-- which wins); without either it is two thirds of the way back (rounded up).
ALTER TABLE hall ADD COLUMN ideal_row smallint CHECK (ideal_row BETWEEN 1 AND 200);
ALTER TABLE showtime ADD COLUMN ideal_row smallint CHECK (ideal_row BETWEEN 1 AND 200);

-- The functions that choose and hold (hold_best_seats, best_seats_anywhere) live in
-- migrations/functions/, as every function body does.
