/**
 * seats.js: the admitted half of /showtimes/:id. Draws the seat map from rows and columns
 * (a grid with a roving tabindex: arrow keys, Home/End, Page Up/Down, Space or Enter to
 * choose), holds the chosen seats, counts the hold down with a cancel, and sends the buyer
 * to the payment sandbox's hosted page. Every call names the showtime (X-Showtime-Id) so
 * the edge can find the HttpOnly access cookie on paths without one.
 */
export const seatsScript = String.raw`'use strict';
(function () {
  var WR = window.WR;
  // Deferred scripts run after parsing: the page's data is there before any handler runs.
  var saleRoot = document.getElementById('sale');
  var id = saleRoot ? saleRoot.dataset.showtimeId : null, map = null, selected = [], limit = 8, holdTimer = null, focusCode = null;
  var TYPES = { standard: 'standard seat', couple: 'couple seat', accessible: 'wheelchair-accessible space' };
  var H = function () { return { 'x-showtime-id': id }; };
  var api = function (method, path, body, headers) { return WR.api(method, path, body, Object.assign(H(), headers || {})); };

  function savedHold() {
    try { return JSON.parse(sessionStorage.getItem('wr-hold-' + id) || 'null'); } catch (e) { return null; }
  }
  function saveHold(hold) {
    if (hold) sessionStorage.setItem('wr-hold-' + id, JSON.stringify(hold));
    else sessionStorage.removeItem('wr-hold-' + id);
  }

  var turnTimer = null;
  /** How long this buyer's turn lasts (the admission session); the access token ends with it. */
  function turnCountdown(expiresAt) {
    var ends = Date.parse(expiresAt || '');
    if (isNaN(ends)) return;
    if (turnTimer) clearInterval(turnTimer);
    var tick = function () {
      var left = ends - WR.now();
      WR.text('turn-countdown', WR.clock(left));
      WR.show('turn-note', true);
      if (left <= 0) {
        clearInterval(turnTimer);
        if (WR.currentStep === 'step-seats') WR.ended('Your turn has ended', 'The time to choose seats ran out. Join the line again to get a new turn.', true);
      }
    };
    tick();
    turnTimer = setInterval(tick, 1000);
  }

  function start(sessionExpiresAt) {
    turnCountdown(sessionExpiresAt);
    var hold = savedHold();
    if (hold) {
      return api('GET', '/api/holds/' + hold.holdId).then(function (result) {
        if (result.ok && result.json.status === 'ACTIVE') return showHold(Object.assign(hold, result.json));
        saveHold(null);
        loadMap();
      });
    }
    loadMap();
  }

  function loadMap(message) {
    WR.step('step-seats');
    if (message) WR.alert(message);
    return api('GET', '/api/showtimes/' + id + '/seats').then(function (result) {
      if (!result.ok) {
        if (result.status === 401 || result.status === 403 || WR.errorCode(result) === 'TURN_ENDED') return WR.ended('Your turn has ended', WR.explain(result), true);
        WR.alert(WR.explain(result));
        if (result.status === 0 || result.status === 429 || result.status >= 500) setTimeout(function () { loadMap(); }, (result.retryAfterSeconds || 2) * 1000);
        return;
      }
      map = result.json;
      limit = map.maxSeatsPerCustomer || 8;
      WR.text('seat-limit', 'Choose up to ' + WR.plural(limit, 'seat', 'seats') + '.');
      WR.text('seats-left', WR.plural(map.counts.available, 'seat', 'seats') + ' available of ' + map.counts.total + '.');
      selected = selected.filter(function (code) { return seatBy(code) && seatBy(code).status === 'AVAILABLE'; });
      draw();
    });
  }

  function seatBy(code) {
    for (var i = 0; i < map.seats.length; i++) if (map.seats[i].code === code) return map.seats[i];
    return null;
  }

  function draw() {
    var grid = document.getElementById('seat-grid');
    var rows = {}, maxColumn = 0;
    map.seats.forEach(function (seat) {
      (rows[seat.row] = rows[seat.row] || { label: seat.rowLabel, seats: {} }).seats[seat.column] = seat;
      maxColumn = Math.max(maxColumn, seat.column);
    });
    grid.textContent = '';
    grid.style.setProperty('--columns', String(maxColumn));
    var available = map.seats.filter(function (s) { return s.status === 'AVAILABLE'; });
    if (!focusCode || !seatBy(focusCode)) focusCode = (available[0] || map.seats[0] || {}).code;
    Object.keys(rows).map(Number).sort(function (a, b) { return a - b; }).forEach(function (rowNumber) {
      var row = rows[rowNumber];
      var rowEl = document.createElement('div');
      rowEl.setAttribute('role', 'row');
      rowEl.className = 'seat-row';
      var header = document.createElement('span');
      header.setAttribute('role', 'rowheader');
      header.className = 'row-label';
      header.textContent = row.label;
      rowEl.appendChild(header);
      for (var column = 1; column <= maxColumn; column++) {
        var cell = document.createElement('span');
        cell.setAttribute('role', 'gridcell');
        var seat = row.seats[column];
        if (seat) cell.appendChild(seatButton(seat));
        else cell.className = 'aisle';
        rowEl.appendChild(cell);
      }
      grid.appendChild(rowEl);
    });
    summary();
  }

  function seatButton(seat) {
    var button = document.createElement('button');
    var chosen = selected.indexOf(seat.code) >= 0;
    var free = seat.status === 'AVAILABLE';
    button.type = 'button';
    button.className = 'seat seat-' + seat.type + ' seat-' + seat.status.toLowerCase() + (chosen ? ' seat-selected' : '');
    button.dataset.code = seat.code;
    button.dataset.row = String(seat.row);
    button.dataset.column = String(seat.column);
    button.textContent = String(seat.column);
    button.tabIndex = seat.code === focusCode ? 0 : -1;
    button.setAttribute('aria-pressed', chosen ? 'true' : 'false');
    if (!free) button.setAttribute('aria-disabled', 'true');
    var state = free ? (chosen ? 'selected' : 'available') : seat.status === 'HELD' ? 'held by another buyer' : 'sold';
    button.setAttribute('aria-label', seat.label + ', ' + TYPES[seat.type] + ', ' + state);
    button.title = seat.label + ' (' + TYPES[seat.type] + ', ' + state + ')';
    return button;
  }

  function toggle(code) {
    var seat = seatBy(code);
    if (!seat) return;
    if (seat.status !== 'AVAILABLE') return WR.announce(seat.label + ' is not available.');
    var at = selected.indexOf(code);
    if (at >= 0) selected.splice(at, 1);
    else if (selected.length >= limit) return WR.alert('You can choose up to ' + WR.plural(limit, 'seat', 'seats') + ' for this showing.');
    else selected.push(code);
    WR.alert('');
    focusCode = code;
    draw();
    focusSeat(code);
    WR.announce(seat.label + (at >= 0 ? ' removed.' : ' selected.') + ' ' + WR.plural(selected.length, 'seat', 'seats') + ' chosen.');
  }

  function focusSeat(code) {
    var el = document.querySelector('#seat-grid button[data-code="' + code + '"]');
    if (!el) return;
    document.querySelectorAll('#seat-grid button[tabindex="0"]').forEach(function (b) { b.tabIndex = -1; });
    el.tabIndex = 0;
    el.focus();
    focusCode = code;
  }

  /** Arrow keys move to the nearest seat in that direction, skipping aisles. */
  function move(from, dRow, dColumn, toEdge) {
    var row = Number(from.dataset.row), column = Number(from.dataset.column);
    var seats = map.seats, best = null;
    seats.forEach(function (s) {
      if (dRow === 0 && s.row === row && (dColumn > 0 ? s.column > column : s.column < column)) {
        var d = Math.abs(s.column - column);
        if (!best || (toEdge ? d > best.d : d < best.d)) best = { s: s, d: d };
      }
      if (dColumn === 0 && (dRow > 0 ? s.row > row : s.row < row)) {
        var dr = Math.abs(s.row - row), dc = Math.abs(s.column - column);
        var score = (toEdge ? -dr : dr) * 1000 + dc;
        if (!best || score < best.d) best = { s: s, d: score };
      }
    });
    if (best) focusSeat(best.s.code);
  }

  function onKey(event) {
    var target = event.target;
    if (!target.dataset || !target.dataset.code) return;
    var keys = { ArrowRight: [0, 1], ArrowLeft: [0, -1], ArrowDown: [1, 0], ArrowUp: [-1, 0] };
    if (keys[event.key]) { move(target, keys[event.key][0], keys[event.key][1], false); event.preventDefault(); }
    else if (event.key === 'Home') { move(target, 0, -1, true); event.preventDefault(); }
    else if (event.key === 'End') { move(target, 0, 1, true); event.preventDefault(); }
    else if (event.key === 'PageUp') { move(target, -1, 0, true); event.preventDefault(); }
    else if (event.key === 'PageDown') { move(target, 1, 0, true); event.preventDefault(); }
  }

  function summary() {
    var price = map.priceCents * selected.length;
    WR.text('selection', selected.length ? 'Chosen: ' + selected.join(', ') + ' · ' + money(price) : 'No seats chosen yet.');
    document.getElementById('hold-button').disabled = selected.length === 0;
  }

  function money(cents) {
    try { return new Intl.NumberFormat(undefined, { style: 'currency', currency: map ? map.currency : 'EUR' }).format(cents / 100); }
    catch (e) { return (cents / 100).toFixed(2); }
  }

  function hold() {
    var button = document.getElementById('hold-button');
    button.disabled = true;
    api('POST', '/api/showtimes/' + id + '/holds', { seats: selected.slice() }).then(function (result) {
      button.disabled = false;
      if (result.ok) {
        var held = { holdId: result.json.holdId, expiresAt: result.json.expiresAt, seats: result.json.seats, key: null };
        selected = [];
        saveHold(held);
        return showHold(held);
      }
      if (WR.errorCode(result) === 'SEATS_UNAVAILABLE') {
        var taken = result.json.error.seats || [];
        selected = selected.filter(function (code) { return taken.indexOf(code) < 0; });
        return loadMap(WR.explain(result));
      }
      if (result.status === 401 || result.status === 403 || WR.errorCode(result) === 'TURN_ENDED') return WR.ended('Your turn has ended', WR.explain(result), true);
      WR.alert(WR.explain(result));
    });
  }

  function showHold(held) {
    WR.step('step-hold');
    WR.alert('');
    WR.text('held-seats', (held.seats || []).join(', '));
    var expires = Date.parse(held.expiresAt);
    if (holdTimer) clearInterval(holdTimer);
    var tick = function () {
      var left = expires - WR.now();
      WR.text('hold-countdown', WR.clock(left));
      if (left <= 0) {
        clearInterval(holdTimer);
        saveHold(null);
        loadMap(WR.explain({ status: 410, json: { error: { code: 'HOLD_EXPIRED' } } }));
      }
    };
    tick();
    holdTimer = setInterval(tick, 1000);
    WR.currentHold = held;
  }

  function cancelHold() {
    var held = WR.currentHold;
    if (!held) return;
    api('DELETE', '/api/holds/' + held.holdId).then(function (result) {
      if (!result.ok && result.status !== 404) return WR.alert(WR.explain(result));
      clearInterval(holdTimer);
      saveHold(null);
      WR.currentHold = null;
      loadMap();
      WR.announce('Your hold was cancelled and the seats were released.');
    });
  }

  function pay() {
    var held = WR.currentHold;
    var button = document.getElementById('pay-button');
    if (!held) return;
    // One Idempotency-Key per attempt: a double click or a retry replays the same session.
    if (!held.key) { held.key = (crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2)); saveHold(held); }
    button.disabled = true;
    WR.announce('Opening the payment page…');
    api('POST', '/api/holds/' + held.holdId + '/checkout', {}, { 'idempotency-key': held.key }).then(function (result) {
      if (result.ok && result.json.checkoutUrl) { window.location.assign(result.json.checkoutUrl); return; }
      button.disabled = false;
      if (WR.errorCode(result) === 'HOLD_EXPIRED') { saveHold(null); return loadMap(WR.explain(result)); }
      WR.alert(WR.explain(result));
    });
  }

  WR.seats = { start: start, loadMap: loadMap, showHold: showHold, saveHold: saveHold, savedHold: savedHold, api: api };

  document.addEventListener('DOMContentLoaded', function () {
    if (!saleRoot) return;
    var grid = document.getElementById('seat-grid');
    grid.addEventListener('click', function (event) {
      var button = event.target.closest('button[data-code]');
      if (button) toggle(button.dataset.code);
    });
    grid.addEventListener('keydown', onKey);
    document.getElementById('hold-button').addEventListener('click', hold);
    document.getElementById('cancel-button').addEventListener('click', cancelHold);
    document.getElementById('pay-button').addEventListener('click', pay);
    document.getElementById('refresh-map').addEventListener('click', function () { loadMap(); });
  });
})();
`;
