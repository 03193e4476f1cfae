-- Every operator change is audited by one function (core/src/audit/audit-log.ts), labelled
-- with how the actor signed in: the admin token (API) or a console session. Rows written
-- before this migration did not say: 'unknown'. No default afterwards, so a writer must name it.
ALTER TABLE operator_audit
  ADD COLUMN actor_via text NOT NULL DEFAULT 'unknown'
  CHECK (actor_via IN ('token', 'console', 'unknown'));
ALTER TABLE operator_audit ALTER COLUMN actor_via DROP DEFAULT;
