/**
 * console.js: one room of the operator console. Live numbers from the server-sent events
 * (EventSource reconnects by itself), charts of the last minutes, controls that each ask
 * for confirmation in a <dialog> and go through the operator API (X-Console: 1, the
 * session cookie, X-Operator), and the audit log, refreshed after every change.
 */
export const consoleScript = String.raw`'use strict';
(function () {
  var WR = window.WR;
  var id, operator, series = WR.createSeries(), settings = null, lastAt = null;
  var CHARTS = ['waiting', 'active', 'admittedPerMinute', 'seatsAvailable', 'seatsHeld', 'seatsBooked', 'holdConflicts', 'rateLimited'];

  function numbers(data) {
    var room = data.room, stats = room ? room.stats : {}, seats = data.seats || {};
    return {
      waiting: room ? stats.waiting + stats.prequeue : null,
      offered: room ? stats.offered : null,
      active: room ? stats.active : null,
      admittedPerMinute: room ? stats.admittedLastMinute : null,
      abandoned: room ? stats.abandoned : null,
      etaLast: room && stats.etaLastMs !== null ? WR.duration(stats.etaLastMs / 1000) : '—',
      seatsAvailable: seats.available, seatsHeld: seats.held, seatsBooked: seats.booked,
      holdConflicts: data.perMinute.holdConflicts, rateLimited: data.perMinute.rateLimited
    };
  }

  function onStats(event) {
    var data = JSON.parse(event.data);
    var values = numbers(data);
    Object.keys(values).forEach(function (key) {
      var value = values[key];
      WR.text('v-' + key, value === null || value === undefined ? '—' : String(value));
    });
    CHARTS.forEach(function (key) {
      series.push(key, values[key]);
      WR.drawSpark(document.getElementById('chart-' + key), series.get(key));
    });
    lastAt = new Date(data.at);
    live('Live · updated ' + WR.localTime(lastAt, false), true);
    if (!data.room) return WR.text('room-state', 'no room yet');
    var state = data.room.settings.state;
    var badge = WR.text('room-state', state);
    badge.className = 'badge badge-' + state;
    WR.text('seed-hash', data.room.stats.seedHash || '—');
    WR.text('seed', data.room.stats.seed || 'revealed after the opening draw');
    var first = settings === null;
    settings = data.room.settings;
    if (first) fillForm();
  }

  function live(text, ok) {
    var el = WR.text('live', text);
    el.className = ok ? 'live' : 'live down';
  }

  function fillForm() {
    ['capacity', 'admitPerMinute', 'sessionTtlSeconds'].forEach(function (name) {
      var input = document.getElementById(name);
      if (document.activeElement !== input) input.value = settings[name];
    });
    if (settings.opensAt) {
      var d = new Date(settings.opensAt);
      var local = new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 19);
      document.getElementById('opensAt').value = local;
    }
  }

  function consoleAlert(message) {
    var el = WR.text('console-alert', message || '');
    el.hidden = !message;
  }

  /** Every change asks first; resolves true only on "Yes". */
  function confirmChange(text) {
    var dialog = document.getElementById('confirm-dialog');
    WR.text('confirm-text', text);
    return new Promise(function (resolve) {
      dialog.addEventListener('close', function onClose() {
        dialog.removeEventListener('close', onClose);
        resolve(dialog.returnValue === 'yes');
      });
      dialog.returnValue = '';
      dialog.showModal();
      document.getElementById('confirm-no').focus();
    });
  }

  function describe(change) {
    var words = { capacity: 'capacity', admitPerMinute: 'admissions per minute', sessionTtlSeconds: 'session length (s)', state: 'state', opensAt: 'opening time' };
    return Object.keys(change).map(function (key) {
      var before = settings ? settings[key] : '?';
      var after = change[key];
      if (key === 'opensAt') { before = before ? WR.localTime(new Date(before), true) : 'none'; after = WR.localTime(new Date(after), true); }
      return words[key] + ' from ' + before + ' to ' + after;
    }).join('; ');
  }

  function apply(change) {
    if (Object.keys(change).length === 0) return consoleAlert('Nothing changed.');
    return confirmChange('Change ' + describe(change) + '?').then(function (yes) {
      if (!yes) return;
      var headers = { 'x-console': '1' };
      if (operator) headers['x-operator'] = operator;
      return WR.api('PUT', '/api/admin/showtimes/' + id + '/room', change, headers).then(function (result) {
        if (!result.ok) return consoleAlert('Not applied: ' + WR.explain(result));
        consoleAlert('');
        settings = result.json.settings;
        fillForm();
        WR.text('live', 'Applied: ' + describe(change).replace(/ from [^;]* to /g, ' → '));
        loadAudit();
      });
    });
  }

  function onSettings(event) {
    event.preventDefault();
    var change = {};
    ['capacity', 'admitPerMinute', 'sessionTtlSeconds'].forEach(function (name) {
      var value = Number(document.getElementById(name).value);
      if (!settings || value !== settings[name]) change[name] = value;
    });
    apply(change);
  }

  function onOpening(event) {
    event.preventDefault();
    var value = document.getElementById('opensAt').value;
    var at = new Date(value);
    if (isNaN(at.getTime())) return consoleAlert('Enter a valid opening time.');
    apply({ state: 'scheduled', opensAt: at.toISOString() });
  }

  function loadAudit() {
    WR.api('GET', '/api/admin/showtimes/' + id + '/room/audit').then(function (result) {
      var body = document.getElementById('audit-rows');
      if (!result.ok) { if (result.status !== 404) consoleAlert('Audit log: ' + WR.explain(result)); return; }
      body.textContent = '';
      var entries = result.json.entries || [];
      if (entries.length === 0) {
        var empty = body.insertRow();
        var cell = empty.insertCell();
        cell.colSpan = 3;
        cell.textContent = 'No changes yet.';
      }
      entries.forEach(function (entry) {
        var row = body.insertRow();
        row.insertCell().textContent = WR.localTime(new Date(entry.atMs), true);
        row.insertCell().textContent = entry.actor;
        row.insertCell().textContent = changes(entry.before, entry.after);
      });
    });
  }

  function changes(before, after) {
    if (!after) return 'settings changed';
    var keys = ['state', 'capacity', 'admitPerMinute', 'sessionTtlSeconds', 'opensAt'];
    var parts = keys.filter(function (k) { return !before || before[k] !== after[k]; })
      .map(function (k) { return k + ': ' + (before ? before[k] : '—') + ' → ' + after[k]; });
    return parts.length ? parts.join(', ') : 'no visible change';
  }

  document.addEventListener('DOMContentLoaded', function () {
    var root = document.getElementById('console');
    if (!root) return;
    id = root.dataset.showtimeId;
    operator = root.dataset.operator || null;
    document.getElementById('settings-form').addEventListener('submit', onSettings);
    document.getElementById('opening-form').addEventListener('submit', onOpening);
    document.querySelectorAll('button[data-state]').forEach(function (button) {
      button.addEventListener('click', function () { apply({ state: button.dataset.state }); });
    });
    var source = new EventSource('/admin/showtimes/' + id + '/live');
    source.addEventListener('stats', onStats);
    source.addEventListener('unavailable', function () { live('The room store is not answering; retrying…', false); });
    source.onerror = function () { live('Connection lost; reconnecting…', false); };
    loadAudit();
    setInterval(loadAudit, 15000);
  });
})();
`;
