-- The bucket a seat of a seated class counts in: fixed by its code and the class's bucket count.
CREATE OR REPLACE FUNCTION fare_seat_bucket(p_seat_code text, p_buckets integer) RETURNS smallint
LANGUAGE sql IMMUTABLE AS $$ SELECT (abs(hashtext(p_seat_code)::bigint) % p_buckets)::smallint $$;
