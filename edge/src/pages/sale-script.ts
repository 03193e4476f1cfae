/**
 * sale.js: the waiting-room half of /showtimes/:id. Join (demo login first when there is no
 * customer cookie), then poll at the server's `pollAfterMs` with ±20 % jitter, backing off
 * exponentially on errors (or waiting Retry-After). While the buyer waits, closing the page
 * sends a beacon so the place is given up at once; the edge defers that leave for a few
 * seconds and cancels it when the same buyer loads the page again, so a refresh keeps the
 * place. Once admitted, seats.js takes over.
 */
export const saleScript = String.raw`'use strict';
(function () {
  var WR = window.WR;
  var root, id, opensAt, timer = null, failures = 0, firstPosition = null, beaconArmed = false, countdownTimer = null;

  var STEPS = ['step-start', 'step-prequeue', 'step-waiting', 'step-seats', 'step-hold', 'step-confirm', 'step-ended'];
  WR.step = function (name) {
    STEPS.forEach(function (step) { WR.show(step, step === name); });
    var section = document.getElementById(name);
    var heading = section && section.querySelector('h2');
    if (heading && WR.currentStep !== name) { heading.setAttribute('tabindex', '-1'); heading.focus({ preventScroll: false }); }
    WR.currentStep = name;
  };

  WR.alert = function (message) {
    var el = WR.text('alert', message || '');
    if (el) el.hidden = !message;
  };

  WR.announce = function (message) { WR.text('status', message); };

  WR.ended = function (title, message, canRejoin) {
    stopPolling();
    beaconArmed = false;
    WR.text('ended-title', title);
    WR.text('ended-text', message);
    WR.show('rejoin-button', Boolean(canRejoin));
    WR.alert('');
    WR.step('step-ended');
  };

  function stopPolling() { if (timer) clearTimeout(timer); timer = null; }

  /** The server's interval with ±20 % jitter; on errors 1 s, 2 s, 4 s … up to 30 s, or Retry-After. */
  function schedule(ms, retryAfterSeconds) {
    stopPolling();
    var delay = ms;
    if (failures > 0) delay = retryAfterSeconds ? retryAfterSeconds * 1000 : Math.min(30000, 1000 * Math.pow(2, failures - 1));
    delay = Math.max(250, Math.round(delay * (0.8 + Math.random() * 0.4)));
    timer = setTimeout(poll, delay);
    return delay;
  }

  function poll() {
    WR.api('GET', '/api/showtimes/' + id + '/queue').then(handle);
  }

  function join() {
    var button = document.getElementById('join-button');
    button.disabled = true;
    WR.alert('');
    var ready = root.dataset.customer === '1'
      ? Promise.resolve({ ok: true })
      : WR.api('POST', '/api/auth/demo', {});
    ready.then(function (login) {
      if (!login.ok) { button.disabled = false; WR.alert(WR.explain(login)); return; }
      root.dataset.customer = '1';
      return WR.api('POST', '/api/showtimes/' + id + '/queue').then(function (result) {
        button.disabled = false;
        handle(result);
      });
    });
  }

  function handle(result) {
    if (!result.ok) return handleError(result);
    failures = 0;
    WR.alert('');
    var answer = result.json;
    WR.text('last-updated', WR.localTime(new Date(), false));
    switch (answer.state) {
      case 'prequeue': return prequeue(answer);
      case 'waiting': case 'paused': return waiting(answer);
      case 'admitted':
        stopPolling();
        beaconArmed = false;
        WR.announce('It is your turn. Choose your seats.');
        return WR.seats.start(answer.sessionExpiresAt);
      case 'sold_out': return WR.ended('Sold out', 'Every seat for this showing has been sold. Thank you for waiting.', false);
      case 'closed': return WR.ended('Sales are closed', 'The cinema has closed sales for this showing.', false);
    }
  }

  function handleError(result) {
    var code = WR.errorCode(result);
    if (result.status === 401 && WR.currentStep !== 'step-waiting' && WR.currentStep !== 'step-prequeue') return showStart();
    if (result.status === 410 || code === 'TURN_EXPIRED') return WR.ended('Your turn has expired', WR.explain(result), true);
    if (result.status === 0 || result.status === 429 || result.status >= 500) {
      failures++;
      var delay = schedule(2000, result.retryAfterSeconds);
      WR.alert(WR.explain({ status: result.status, json: result.json, retryAfterSeconds: Math.ceil(delay / 1000) }));
      return;
    }
    WR.alert(WR.explain(result));
  }

  function armBeacon() { beaconArmed = true; }

  function prequeue(answer) {
    armBeacon();
    if (WR.currentStep !== 'step-prequeue') WR.step('step-prequeue');
    startCountdown('prequeue-countdown');
    schedule(answer.pollAfterMs || 5000);
  }

  function waiting(answer) {
    armBeacon();
    if (WR.currentStep !== 'step-waiting') WR.step('step-waiting');
    var paused = answer.state === 'paused';
    WR.show('paused-note', paused);
    if (typeof answer.position === 'number') {
      if (firstPosition === null || answer.position > firstPosition) firstPosition = answer.position;
      WR.text('position', String(answer.position));
      var ahead = Math.max(0, answer.position - 1);
      WR.text('ahead', ahead === 0 ? 'You are next.' : WR.plural(ahead, 'person', 'people') + ' ahead of you.');
      var done = firstPosition > 1 ? (firstPosition - answer.position) / (firstPosition - 1) : 1;
      var bar = document.getElementById('progress');
      bar.value = Math.round(Math.max(0.02, Math.min(1, done)) * 100);
      bar.setAttribute('aria-valuetext', answer.position + ' in line');
    }
    WR.text('eta', paused ? 'Paused by the cinema; your place is kept.'
      : typeof answer.etaSeconds === 'number' ? WR.duration(answer.etaSeconds) : 'Calculating…');
    schedule(answer.pollAfterMs || 2000);
  }

  function startCountdown(elementId) {
    if (countdownTimer) clearInterval(countdownTimer);
    var tick = function () {
      var left = opensAt - WR.now();
      WR.text(elementId, left > 0 ? WR.clock(left) : 'Opening now…');
      if (left <= 0) {
        clearInterval(countdownTimer);
        countdownTimer = null;
        if (WR.currentStep === 'step-prequeue') schedule(500);
      }
    };
    tick();
    countdownTimer = setInterval(tick, 1000);
  }

  function showStart() {
    stopPolling();
    WR.step('step-start');
    if (opensAt > WR.now()) startCountdown('start-countdown');
  }

  WR.rejoin = function () { firstPosition = null; showStart(); };

  document.addEventListener('DOMContentLoaded', function () {
    root = document.getElementById('sale');
    if (!root) return;
    id = root.dataset.showtimeId;
    opensAt = Date.parse(root.dataset.opensAt);
    document.getElementById('join-button').addEventListener('click', join);
    document.getElementById('rejoin-button').addEventListener('click', WR.rejoin);
    // Leaving while waiting gives the place up at once (the edge defers it briefly: a reload keeps it).
    window.addEventListener('pagehide', function () {
      if (beaconArmed && navigator.sendBeacon) navigator.sendBeacon('/showtimes/' + id + '/leave?view=' + encodeURIComponent(root.dataset.view));
    });
    var state = root.dataset.saleState;
    if (root.dataset.returnHold) return WR.seats.returned(root.dataset.returnHold, root.dataset.returnStatus);
    if (root.dataset.joined === '1') { WR.currentStep = null; return poll(); }
    if (state === 'sold_out') return WR.ended('Sold out', 'Every seat for this showing has been sold.', false);
    if (state === 'closed' || state === 'started') return WR.ended('Sales are closed', 'Tickets for this showing are no longer on sale.', false);
    showStart();
  });
})();
`;
