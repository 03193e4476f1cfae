/**
 * common.js: what every page's script shares. `WR.api` calls the edge's JSON API with the
 * browser's cookies and never throws (a network failure is status 0); `WR.explain` turns
 * the API's error codes into words a buyer understands; times render in local time.
 * Served as a static asset (no inline script, strict CSP); plain ES2020, no build step.
 */
export const commonScript = String.raw`'use strict';
(function () {
  var WR = (window.WR = window.WR || {});

  WR.api = function (method, path, body, headers) {
    var init = { method: method, headers: Object.assign({ accept: 'application/json' }, headers || {}), credentials: 'same-origin' };
    if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(
      function (response) {
        var retry = Number(response.headers.get('retry-after'));
        var date = Date.parse(response.headers.get('date') || '');
        // Countdowns run on the server's clock: a buyer's clock that is off must not show a
        // hold as live after the server has released it (Date has 1 s resolution: close enough).
        if (!isNaN(date)) WR.clockOffsetMs = date + 500 - Date.now();
        return response.text().then(function (text) {
          var json = null;
          try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
          return { status: response.status, ok: response.ok, json: json, retryAfterSeconds: retry > 0 ? retry : null };
        });
      },
      function () { return { status: 0, ok: false, json: null, retryAfterSeconds: null }; }
    );
  };

  WR.clockOffsetMs = 0;
  WR.now = function () { return Date.now() + WR.clockOffsetMs; };

  WR.errorCode = function (result) {
    return result && result.json && result.json.error ? result.json.error.code : null;
  };

  WR.plural = function (n, one, many) { return n + ' ' + (n === 1 ? one : many); };

  WR.duration = function (seconds) {
    seconds = Math.max(0, Math.round(seconds));
    if (seconds < 60) return WR.plural(seconds, 'second', 'seconds');
    var minutes = Math.round(seconds / 60);
    if (minutes < 60) return 'about ' + WR.plural(minutes, 'minute', 'minutes');
    var hours = Math.floor(minutes / 60);
    return 'about ' + WR.plural(hours, 'hour', 'hours') + (minutes % 60 ? ' ' + WR.plural(minutes % 60, 'minute', 'minutes') : '');
  };

  WR.clock = function (ms) {
    var total = Math.max(0, Math.ceil(ms / 1000));
    var m = Math.floor(total / 60), s = total % 60;
    return m + ':' + (s < 10 ? '0' : '') + s;
  };

  WR.localTime = function (date, withDate) {
    var options = withDate
      ? { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' }
      : { hour: '2-digit', minute: '2-digit', second: '2-digit' };
    return new Intl.DateTimeFormat(undefined, options).format(date);
  };

  /** Words for every failure a buyer can meet, with when to retry when the server said so. */
  WR.explain = function (result) {
    var code = WR.errorCode(result);
    var wait = result.retryAfterSeconds ? WR.duration(result.retryAfterSeconds) : 'a few seconds';
    if (result.status === 0) return 'We cannot reach the ticket service. Check your connection; we will keep trying.';
    if (result.status === 429) return 'Too many requests in a short time. Please wait ' + wait + ' and try again.';
    if (result.status === 503 || result.status === 502 || result.status === 504) return 'The service is busy right now. We will try again in ' + wait + '.';
    switch (code) {
      case 'TURN_ENDED': return 'Your turn to buy has ended (your purchase finished, or your time ran out). You can join the line again.';
      case 'TURN_EXPIRED': return 'Your turn has expired because the page did not check in for a while. You can join the line again, at the back.';
      case 'HOLD_EXPIRED': return 'The time to pay for these seats ran out, so they were released. Please choose your seats again.';
      case 'SEATS_UNAVAILABLE': return 'Sorry, someone else just took ' + seatList(result.json.error.seats) + '. The seat map has been refreshed: please pick again.';
      case 'SEAT_LIMIT_EXCEEDED': return 'You have reached the maximum number of seats one person can buy for this showing.';
      case 'SALE_NOT_OPEN': return 'Sales for this showing are not open at the moment.';
      case 'SHOWTIME_STARTED': return 'This showing has already started, so tickets are no longer on sale.';
      case 'HOLD_CONFIRMED': return 'These seats are already paid for.';
      case 'HOLD_CANCELLED': return 'This hold was cancelled. Please choose your seats again.';
      case 'MISSING_TOKEN': case 'TOKEN_EXPIRED': case 'INVALID_TOKEN':
        return 'Your time to buy has ended. Join the line again to get a new turn.';
      case 'NOT_YOUR_TOKEN': case 'NOT_YOUR_HOLD': return 'This page belongs to another buyer session. Reload the page to continue as yourself.';
      case 'ROUTE_NOT_FOUND': return 'Joining is not available on this site right now.';
    }
    if (result.json && result.json.error && result.json.error.message) return result.json.error.message + '.';
    return 'Something went wrong (' + result.status + '). Please try again.';
  };

  function seatList(seats) {
    if (!seats || !seats.length) return 'one of those seats';
    return (seats.length === 1 ? 'seat ' : 'seats ') + seats.join(', ');
  }

  /** Re-renders <time data-local> elements in the reader's own time zone. */
  WR.renderTimes = function (root) {
    (root || document).querySelectorAll('time[data-local]').forEach(function (el) {
      var date = new Date(el.getAttribute('datetime'));
      if (!isNaN(date.getTime())) el.textContent = WR.localTime(date, el.getAttribute('data-local') === 'datetime');
    });
  };

  /** Sets text in an element by id (no HTML: every server string goes through textContent). */
  WR.text = function (id, value) {
    var el = document.getElementById(id);
    if (el) el.textContent = value;
    return el;
  };

  WR.show = function (id, visible) {
    var el = document.getElementById(id);
    if (el) el.hidden = !visible;
    return el;
  };

  document.addEventListener('DOMContentLoaded', function () { WR.renderTimes(); });
})();
`;
