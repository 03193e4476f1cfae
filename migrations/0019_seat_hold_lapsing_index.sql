-- The sweeper's index, reachable by the sweeper alone. seat_hold_active_expiry_idx
-- (expires_at WHERE status = 'ACTIVE') was also a candidate for every statement that names one
-- live hold (a cancel, a confirmation: "... AND status = 'ACTIVE'"). Planned once per
-- connection on statistics that said the table was empty, such a statement could take it
-- instead of the primary key and read every live hold of the partition, for as long as the
-- plan lived: 354 blocks for one cancel among 20,000 live holds. The predicate now also says
-- ended_at IS NULL (the same rows: a table CHECK ties ended_at to the status), which only the
-- sweeper's query states, so the planner cannot offer it to the others.
DROP INDEX IF EXISTS seat_hold_active_expiry_idx;
CREATE INDEX seat_hold_lapsing_idx ON seat_hold (expires_at) WHERE status = 'ACTIVE' AND ended_at IS NULL;
