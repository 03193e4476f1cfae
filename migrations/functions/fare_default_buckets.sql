-- Buckets a seated class starts with: about 18 seats a row (a plane's economy: 10 of 18).
CREATE OR REPLACE FUNCTION fare_default_buckets(p_seats bigint) RETURNS smallint
LANGUAGE sql IMMUTABLE AS $$ SELECT greatest(1, least(16, p_seats / 18))::smallint $$;
