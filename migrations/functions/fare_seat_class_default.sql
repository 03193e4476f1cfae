-- Trigger (row, BEFORE INSERT ON show_seat): a new seat's class comes from the hall's seat
-- unless the insert names one; STANDARD when the hall has none.
CREATE OR REPLACE FUNCTION fare_seat_class_default() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.fare_class IS NULL THEN
    SELECT h.fare_class INTO NEW.fare_class
      FROM showtime t JOIN hall_seat h ON h.hall_id = t.hall_id AND h.seat_code = NEW.seat_code
     WHERE t.id = NEW.showtime_id;
    NEW.fare_class := coalesce(NEW.fare_class, 'STANDARD');
  END IF;
  RETURN NEW;
END;
$$;
