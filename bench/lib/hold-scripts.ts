/**
 * The hold path's statements as pgbench scripts, shared by `holds` (timed under load) and
 * `hold-instructions` (counted in one session): the bare conditional UPDATE and release, exactly
 * what the service sends per hold and cancel, and best available.
 */
export const CLIENTS = 32;
export const ROWS = 20;
export const COLUMNS = 30; // 600 seats
const ROW_LABELS = 'ABCDEFGHJKLMNPQRSTUV';

// Seat index idx = client + 32·k (k < 18) → row 1 + idx / 30, column 1 + idx % 30.
export const PICK_SEAT = `
\\set idx :client_id + ${CLIENTS} * random(0, ${Math.floor((ROWS * COLUMNS) / CLIENTS) - 1})
\\set row 1 + :idx / ${COLUMNS}
\\set col 1 + :idx % ${COLUMNS}
`;
export const SEAT = `substr('${ROW_LABELS}', :row, 1) || :col`;

export const BARE_UPDATE = `${PICK_SEAT}
UPDATE show_seat SET status = 'HELD', hold_id = gen_random_uuid(), customer_id = 'pgbench-' || :client_id,
       hold_expires_at = now() + interval '10 minutes', booking_id = NULL
 WHERE showtime_id = :show AND seat_code = ${SEAT}
   AND (status = 'AVAILABLE' OR (status = 'HELD' AND hold_expires_at <= now()));
UPDATE show_seat SET status = 'AVAILABLE', hold_id = NULL, customer_id = NULL, hold_expires_at = NULL
 WHERE showtime_id = :show AND seat_code = ${SEAT} AND customer_id = 'pgbench-' || :client_id AND status = 'HELD';
`;

// The statements of core/src/seats/seat-repo.ts (holdSeats, endHold), as the service sends them.
export const SAME_STATEMENTS = `${PICK_SEAT}
SELECT hold_id FROM hold_seats(:show, 'pgbench-' || :client_id, ARRAY[${SEAT}], gen_random_uuid()) \\gset
WITH ended AS (
  UPDATE seat_hold SET status = CASE WHEN expires_at <= now() THEN 'EXPIRED' ELSE 'CANCELLED' END,
         status_cause = 'cancelled by customer', ended_at = now()
   WHERE id = :hold_id::uuid AND customer_id = 'pgbench-' || :client_id AND showtime_id = :show AND status = 'ACTIVE'
  RETURNING id, showtime_id, customer_id, status, seat_codes
), locked AS (
  SELECT s.seat_code FROM show_seat s
   WHERE s.showtime_id = :show AND s.seat_code = ANY ((SELECT e.seat_codes FROM ended e)::text[])
   ORDER BY s.seat_code FOR UPDATE
), freed AS (
  UPDATE show_seat s SET status = 'AVAILABLE', hold_id = NULL, customer_id = NULL, hold_expires_at = NULL
   WHERE s.showtime_id = :show AND s.seat_code = ANY ((SELECT array_agg(l.seat_code) FROM locked l)::text[])
     AND s.hold_id = :hold_id::uuid AND s.status = 'HELD'
  RETURNING s.seat_code
), announced AS (
  INSERT INTO outbox (type, showtime_id, payload)
  SELECT 'HoldReleased', e.showtime_id, jsonb_build_object('holdId', e.id, 'customerId', e.customer_id,
         'reason', lower(e.status), 'seats', (SELECT coalesce(jsonb_agg(seat_code ORDER BY seat_code), '[]') FROM freed))
    FROM ended e
)
SELECT e.status AS ended_as, (SELECT count(*) FROM freed)::int AS seats_freed FROM ended e;
`;

// Best available: the core picks 2 together (hold_best_seats), then the same cancel.
export const BEST_STATEMENTS = SAME_STATEMENTS.replace(PICK_SEAT, '').replace(
  `SELECT hold_id FROM hold_seats(:show, 'pgbench-' || :client_id, ARRAY[${SEAT}], gen_random_uuid()) \\gset`,
  `SELECT hold_id FROM hold_best_seats(:show, 'pgbench-' || :client_id, 2, true, false, NULL, gen_random_uuid()) \\gset`,
);
