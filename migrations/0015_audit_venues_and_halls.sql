-- Venues and halls are operator changes too, but belong to no showtime: their audit rows name
-- what they changed (subject 'venue:<id>' or 'hall:<id>') and carry no room version (0).
ALTER TABLE operator_audit ALTER COLUMN showtime_id DROP NOT NULL;
ALTER TABLE operator_audit ADD COLUMN subject text CHECK (length(subject) BETWEEN 1 AND 64);
ALTER TABLE operator_audit
  ADD CONSTRAINT operator_audit_names_what_changed CHECK (showtime_id IS NOT NULL OR subject IS NOT NULL);
CREATE INDEX operator_audit_subject_idx ON operator_audit (subject, id DESC) WHERE subject IS NOT NULL;
