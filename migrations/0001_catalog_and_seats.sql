-- Venues, halls and their physical seats; showtimes and the per-showtime seat state that
-- arbitrates every sale (docs/architecture.md). CHECK constraints keep impossible states out of the table,
-- so a bug in the service shows up as a refused write, never as a seat sold twice.

CREATE TABLE venue (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name       text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 200),
  city       text NOT NULL DEFAULT '' CHECK (length(city) <= 200),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE hall (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  venue_id   bigint NOT NULL REFERENCES venue (id),
  name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (venue_id, name)
);

CREATE TABLE hall_seat (
  hall_id       bigint NOT NULL REFERENCES hall (id) ON DELETE CASCADE,
  seat_code     varchar(8) NOT NULL CHECK (seat_code ~ '^[A-Z0-9][A-Z0-9-]{0,7}$'),
  row_label     varchar(4) NOT NULL CHECK (length(row_label) >= 1),
  row_number    smallint NOT NULL CHECK (row_number BETWEEN 1 AND 200),
  column_number smallint NOT NULL CHECK (column_number BETWEEN 1 AND 200),
  label         text NOT NULL CHECK (length(label) BETWEEN 1 AND 32),
  seat_type     text NOT NULL DEFAULT 'standard' CHECK (seat_type IN ('standard', 'couple', 'accessible')),
  PRIMARY KEY (hall_id, seat_code),
  UNIQUE (hall_id, row_number, column_number)
);

-- sale_state is the operator's switch; whether a showtime is on sale right now is derived
-- from it and the database clock: OPEN and sale_opens_at <= now() < starts_at.
CREATE TABLE showtime (
  id                     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  hall_id                bigint NOT NULL REFERENCES hall (id),
  title                  text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  starts_at              timestamptz NOT NULL,
  sale_state             text NOT NULL DEFAULT 'OPEN' CHECK (sale_state IN ('OPEN', 'PAUSED', 'CLOSED')),
  sale_opens_at          timestamptz NOT NULL,
  price_cents            integer NOT NULL CHECK (price_cents >= 0),
  currency               char(3) NOT NULL DEFAULT 'EUR' CHECK (currency ~ '^[A-Z]{3}$'),
  max_seats_per_customer smallint NOT NULL DEFAULT 8 CHECK (max_seats_per_customer BETWEEN 1 AND 50),
  hold_ttl_ms            integer NOT NULL DEFAULT 600000 CHECK (hold_ttl_ms BETWEEN 1000 AND 3600000),
  -- Set once, when the last seat is booked, so ShowtimeSoldOut is announced exactly once.
  sold_out_at            timestamptz,
  created_at             timestamptz NOT NULL DEFAULT now(),
  CHECK (sale_opens_at < starts_at)
);
CREATE INDEX showtime_starts_at_idx ON showtime (starts_at);

-- One row per seat per showtime: the arbiter. A hold is a conditional UPDATE of these rows.
CREATE TABLE show_seat (
  showtime_id     bigint NOT NULL REFERENCES showtime (id) ON DELETE CASCADE,
  seat_code       varchar(8) NOT NULL,
  status          varchar(16) NOT NULL DEFAULT 'AVAILABLE',
  hold_id         uuid,
  customer_id     varchar(64),
  hold_expires_at timestamptz,
  booking_id      uuid,
  PRIMARY KEY (showtime_id, seat_code),
  CONSTRAINT show_seat_status_known CHECK (status IN ('AVAILABLE', 'HELD', 'BOOKED')),
  CONSTRAINT show_seat_status_columns CHECK (
    (status = 'AVAILABLE' AND hold_id IS NULL AND customer_id IS NULL
                          AND hold_expires_at IS NULL AND booking_id IS NULL)
    OR (status = 'HELD'   AND hold_id IS NOT NULL AND customer_id IS NOT NULL
                          AND hold_expires_at IS NOT NULL AND booking_id IS NULL)
    OR (status = 'BOOKED' AND booking_id IS NOT NULL AND customer_id IS NOT NULL
                          AND hold_expires_at IS NULL)
  )
);
CREATE INDEX show_seat_hold_idx ON show_seat (hold_id) WHERE hold_id IS NOT NULL;
CREATE INDEX show_seat_customer_idx ON show_seat (showtime_id, customer_id) WHERE customer_id IS NOT NULL;
CREATE INDEX show_seat_expiry_idx ON show_seat (hold_expires_at) WHERE status = 'HELD';

-- The hold as a record: who asked for which seats, and how it ended. The seats themselves are
-- decided in show_seat; this row is what GET /holds/:id reads and what later steps lock.
-- No foreign key to showtime on purpose: every insert would take FOR KEY SHARE on the one hot
-- showtime row, and thousands of concurrent holds would pile up MultiXacts on it. Only
-- hold_seats() inserts here, after reading the showtime.
CREATE TABLE seat_hold (
  id          uuid PRIMARY KEY,
  showtime_id bigint NOT NULL,
  customer_id varchar(64) NOT NULL,
  seat_codes  varchar(8)[] NOT NULL CHECK (cardinality(seat_codes) BETWEEN 1 AND 50),
  status      text NOT NULL DEFAULT 'ACTIVE'
              CHECK (status IN ('ACTIVE', 'CANCELLED', 'EXPIRED', 'CONFIRMED')),
  status_cause text NOT NULL DEFAULT 'hold requested',
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  ended_at    timestamptz,
  CHECK (expires_at > created_at),
  CHECK ((status = 'ACTIVE') = (ended_at IS NULL))
);
CREATE INDEX seat_hold_customer_idx ON seat_hold (showtime_id, customer_id);
CREATE INDEX seat_hold_active_expiry_idx ON seat_hold (expires_at) WHERE status = 'ACTIVE';

-- Every state change of a hold, booking or payment, so any outcome can be explained later.
CREATE TABLE state_transition (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  entity_type text NOT NULL CHECK (entity_type IN ('hold', 'booking', 'payment')),
  entity_id   text NOT NULL,
  from_state  text,
  to_state    text NOT NULL,
  cause       text NOT NULL,
  at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX state_transition_entity_idx ON state_transition (entity_type, entity_id);
