-- The process that took a checkout's claim (an Idempotency-Key in flight, a hold's checkout
-- lease): a retry may take the claim over as soon as that process is gone, instead of waiting
-- out the lease (core/src/checkout/claim-owner.ts). NULL for claims taken before, and by a core
-- that holds no instance lock: those wait out their lease as before.
ALTER TABLE idempotency_key ADD COLUMN owner_instance integer;
