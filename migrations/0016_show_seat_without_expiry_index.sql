-- show_seat_expiry_idx (hold_expires_at WHERE status = 'HELD') is read by no statement: the
-- sweeper finds lapsed holds through seat_hold_active_expiry_idx, and every hold treats a
-- lapsed seat as free in its own conditional UPDATE. It cost every hold an index entry, and it
-- misled the planner: a generic plan that freed a hold's seats by joining the hold's CTE scanned
-- the whole partial index (every held seat of the partition, dead entries included) instead of
-- looking the seats up by key, so a cancel grew slower with every hold the partition had seen.
DROP INDEX IF EXISTS show_seat_expiry_idx;
