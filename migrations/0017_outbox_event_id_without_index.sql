-- outbox.event_id stays what consumers deduplicate on, but no index: the database draws it
-- (gen_random_uuid(), 122 random bits; no statement supplies one) and no statement looks an
-- event up by it (the relay reads by id). A unique index over random values put every event's
-- entry on a random leaf page: the hold path's two events touched two such pages per hold and
-- cancel, and after each checkpoint each touch wrote a full page image to the WAL.
ALTER TABLE outbox DROP CONSTRAINT IF EXISTS outbox_event_id_key;
