/**
 * confirm.js: back from the payment sandbox at /showtimes/:id?hold=…&status=…. The webhook
 * reaches the core on its own schedule, so the page polls the hold (1 s, then slower) until
 * it is CONFIRMED with a booking id, then shows the booking reference. A declined payment
 * goes back to the live hold (with a fresh Idempotency-Key for the next attempt).
 */
export const confirmScript = String.raw`'use strict';
(function () {
  var WR = window.WR;
  var id, attempts = 0;

  function returned(holdId, status) {
    var root = document.getElementById('sale');
    id = root.dataset.showtimeId;
    var saved = WR.seats.savedHold();
    if (status === 'failed') {
      return WR.seats.api('GET', '/api/holds/' + holdId).then(function (result) {
        if (result.ok && result.json.status === 'ACTIVE') {
          var held = Object.assign(saved || {}, result.json, { key: null });
          WR.seats.saveHold(held);
          WR.seats.showHold(held);
          WR.alert('The payment was not completed, so nothing was charged. Your seats are still held: you can try again before the time runs out.');
          return;
        }
        WR.seats.saveHold(null);
        WR.seats.loadMap('The payment was not completed and the hold has ended. Please choose your seats again.');
      });
    }
    WR.step('step-confirm');
    WR.text('confirm-state', 'Confirming your payment…');
    check(holdId);
  }

  function check(holdId) {
    attempts++;
    WR.seats.api('GET', '/api/holds/' + holdId).then(function (result) {
      if (result.ok && result.json.status === 'CONFIRMED' && result.json.bookingId) return showBooking(result.json.bookingId);
      if (result.ok && (result.json.status === 'EXPIRED' || result.json.status === 'CANCELLED')) {
        WR.seats.saveHold(null);
        return WR.ended('Your seats were released', 'The hold ended before the payment was confirmed. If money was taken it will be refunded automatically.', true);
      }
      if (!result.ok && result.status !== 0 && result.status < 500 && result.status !== 429) {
        return WR.ended('We cannot show this booking', WR.explain(result), false);
      }
      if (attempts === 5) WR.text('confirm-state', 'Still waiting for the payment provider. This can take a little while; keep this page open.');
      setTimeout(function () { check(holdId); }, Math.min(5000, 1000 * Math.ceil(attempts / 5)) * (0.8 + Math.random() * 0.4));
    });
  }

  function showBooking(bookingId) {
    WR.seats.api('GET', '/api/bookings/' + bookingId).then(function (result) {
      if (!result.ok) { setTimeout(function () { showBooking(bookingId); }, 1500); return; }
      var booking = result.json;
      WR.seats.saveHold(null);
      WR.text('confirm-state', 'Your booking is confirmed. Show the reference below at the entrance.');
      // A short reference a person can read out at the door; the full id is shown below it.
      var fullId = booking.bookingId || bookingId;
      WR.text('booking-reference', 'BK-' + fullId.replace(/-/g, '').slice(0, 8).toUpperCase());
      WR.text('booking-id', fullId);
      WR.text('booking-seats', (booking.seats || []).join(', '));
      WR.show('booking-details', true);
      WR.announce('Booking confirmed.');
      document.getElementById('booking-reference').focus();
    });
  }

  WR.seats.returned = returned;
})();
`;
