-- cancel_booking: the buyer's cancel in one round trip. Lock order as the settlement of a
-- gateway event and the operator's refund: the payment row, then the booking row, then its seats
-- in seat-code order (the counters move by trigger at the end of that statement). Refusals:
--   WRB04 no such booking of this customer   WRB09 not CONFIRMED (detail.status)
--   WR410 the showtime has started
-- A repeat by the same buyer answers the first cancellation again (idempotent).
CREATE OR REPLACE FUNCTION cancel_booking(p_booking_id uuid, p_customer_id text, p_showtime_id bigint)
RETURNS TABLE (booking_id uuid, refund_cents integer, percent integer, repeated boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_booking booking%ROWTYPE;
  v_quote   record;
  v_seats   text[];
  v_payment payment%ROWTYPE;
BEGIN
  SELECT * INTO v_booking FROM booking b
   WHERE b.id = p_booking_id AND b.customer_id = p_customer_id AND b.showtime_id = p_showtime_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no booking % of this customer', p_booking_id USING ERRCODE = 'WRB04';
  END IF;
  -- LOCK: the payment first, as a refund webhook does, then the booking (read again, locked)
  SELECT * INTO v_payment FROM payment WHERE id = v_booking.payment_id FOR UPDATE;
  SELECT * INTO v_booking FROM booking b WHERE b.id = p_booking_id FOR UPDATE;
  IF v_booking.status = 'CANCELLED' THEN
    RETURN QUERY SELECT v_booking.id, v_booking.refund_cents,
                        CASE WHEN v_booking.amount_cents > 0 THEN (100 * v_booking.refund_cents / v_booking.amount_cents)::int ELSE 0 END, true;
    RETURN;
  END IF;
  IF v_booking.status <> 'CONFIRMED' THEN
    RAISE EXCEPTION 'booking % is %', p_booking_id, v_booking.status USING ERRCODE = 'WRB09',
      DETAIL = json_build_object('status', v_booking.status)::text;
  END IF;
  SELECT * INTO v_quote FROM booking_refund_quote(p_booking_id);
  IF v_quote.started THEN
    RAISE EXCEPTION 'showtime % has already started', p_showtime_id USING ERRCODE = 'WR410';
  END IF;

  UPDATE booking SET status = 'CANCELLED', status_cause = format('cancelled by the buyer (%s%% refund)', v_quote.percent),
         refund_cents = v_quote.refund_cents
   WHERE id = p_booking_id;
  -- LOCK + WRITE: the seats in seat-code order, freed only where they still carry this booking
  WITH locked AS (
    SELECT s.showtime_id, s.seat_code FROM show_seat s
     WHERE s.showtime_id = v_booking.showtime_id AND s.seat_code = ANY (v_booking.seat_codes)
     ORDER BY s.showtime_id, s.seat_code
       FOR UPDATE
  ), freed AS (
    UPDATE show_seat s SET status = 'AVAILABLE', booking_id = NULL, hold_id = NULL, customer_id = NULL
      FROM locked l
     WHERE s.showtime_id = l.showtime_id AND s.seat_code = l.seat_code
       AND s.booking_id = p_booking_id AND s.status = 'BOOKED'
    RETURNING s.seat_code
  )
  SELECT coalesce(array_agg(seat_code::text ORDER BY seat_code), '{}') INTO v_seats FROM freed;
  UPDATE showtime SET sold_out_at = NULL WHERE id = v_booking.showtime_id AND sold_out_at IS NOT NULL;

  INSERT INTO outbox (type, showtime_id, payload) VALUES
    ('BookingCancelled', v_booking.showtime_id, json_build_object(
       'bookingId', p_booking_id, 'customerId', p_customer_id, 'paymentId', v_booking.payment_id,
       'refundCents', v_quote.refund_cents, 'percent', v_quote.percent, 'currency', v_booking.currency)),
    ('SeatsReleased', v_booking.showtime_id, json_build_object(
       'bookingId', p_booking_id, 'customerId', p_customer_id, 'paymentId', v_booking.payment_id,
       'seats', v_seats, 'reason', 'cancelled'));

  IF v_quote.refund_cents > 0 THEN
    IF v_payment.status = 'SUCCEEDED' THEN
      UPDATE payment SET status = 'REFUND_REQUESTED', status_cause = 'cancelled by the buyer', updated_at = now()
       WHERE id = v_payment.id;
    END IF;
    INSERT INTO refund_command (payment_id, reason, amount_cents)
    VALUES (v_payment.id, 'cancelled by the buyer', CASE WHEN v_quote.refund_cents < v_payment.amount_cents THEN v_quote.refund_cents END)
    ON CONFLICT (payment_id) DO NOTHING;
    INSERT INTO outbox (type, showtime_id, payload)
    VALUES ('RefundRequested', v_booking.showtime_id, json_build_object(
      'holdId', v_booking.hold_id, 'customerId', p_customer_id, 'bookingId', p_booking_id, 'paymentId', v_payment.id,
      'reason', 'cancelled by the buyer', 'amountCents', v_quote.refund_cents, 'currency', v_booking.currency));
  END IF;

  RETURN QUERY SELECT p_booking_id, v_quote.refund_cents, v_quote.percent, false;
END;
$$;
