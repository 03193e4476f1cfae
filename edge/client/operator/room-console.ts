/**
 * data-module="room-console": one room of the operator console. Live numbers from the
 * server-sent events (EventSource reconnects by itself), charts of the last minutes,
 * controls that know the room's current state (no "closed to closed", no opening in the
 * past, bounds said in plain words), each change confirmed in a <dialog> and sent through
 * the operator API, and the audit log, refreshed after every change.
 */
import { api } from '../core/api';
import { byId, createAnnouncer, setText } from '../core/dom';
import { explain } from '../core/explain';
import { duration, localTime } from '../core/format';
import { admissionTiles, reasonWords, turnWords, validateAdmission, type AdmissionView } from './admission-controls';
import { createSeries, drawSpark } from './spark-chart';
import { consoleGroup, type ConsoleGroup } from '../../../lib/room-settings-registry';
import {
  describeChange,
  describeSaleChange,
  validateGroup,
  validateSale,
  type GroupValues,
  type RoomChange,
  type RoomSettingsView,
} from './room-controls';

interface StatsEvent {
  at: string;
  room: { settings: RoomSettingsView; stats: Record<string, number | string | null>; admission?: AdmissionView } | null;
  seats?: { available: number; held: number; booked: number };
  perMinute: { holdConflicts: number; rateLimited: number };
  /** The join's proof of work in force on this edge process, and why (pow/pow-governor.ts). */
  pow?: { difficulty: number; base: number; ceiling: number; reason: string } | null;
  /** Whether the seat counts are the core's current ones, or the last it gave (the core is slow or away). */
  core?: { fresh: boolean; staleSince: string | null };
}

/** "12 bits (raised: …)" or "off", for the proof-of-work tile. */
const powWords = (pow: StatsEvent['pow']) =>
  !pow ? null : pow.difficulty > 0 ? `${pow.difficulty} bits (${pow.reason})` : 'off';

const CHARTS = [
  'waiting',
  'active',
  'admittedPerMinute',
  'seatsAvailable',
  'seatsHeld',
  'seatsBooked',
  'holdConflicts',
  'rateLimited',
] as const;
const SEAT_CHARTS = new Set(['seatsAvailable', 'seatsHeld', 'seatsBooked']);
/** The settings forms, one per registry group (edge/src/pages/settings-inputs.ts writes their inputs). */
const FORM_OF_GROUP: Record<ConsoleGroup, string> = {
  room: 'settings-form',
  protection: 'protection-form',
  admission: 'admission-form',
};
const SETTING_GROUPS = Object.keys(FORM_OF_GROUP) as ConsoleGroup[];
const STATE_WORDS: Record<string, string> = {
  open: 'open',
  paused: 'paused',
  closed: 'closed',
  scheduled: 'scheduled',
  opening: 'opening',
  sold_out: 'sold out',
};

export function roomConsole(root: HTMLElement) {
  const id = root.dataset.showtimeId ?? '';
  const operator = root.dataset.operator || null;
  const series = createSeries();
  let settings: RoomSettingsView | null = null;
  // The polite region speaks changes only: the link going down or coming back, and each change
  // applied (which stays until the next one). The ticking "updated 12:00:01" is not in it.
  const status = createAnnouncer(document.getElementById('console-status'));
  let linkState: string | null = null;
  let pendingKind: string | null = null;
  let sameKind = 0;
  const SETTLE_UPDATES = 3;

  function numbers(data: StatsEvent): Record<string, number | string | null | undefined> {
    const stats = data.room?.stats ?? {};
    const n = (key: string) => (data.room ? (stats[key] as number) : null);
    const seats = data.seats;
    return {
      waiting: data.room ? Number(stats.waiting) + Number(stats.prequeue) : null,
      offered: n('offered'),
      active: n('active'),
      admittedPerMinute: n('admittedLastMinute'),
      abandoned: n('abandoned'),
      etaLast:
        data.room && stats.etaLastMs !== null && stats.etaLastMs !== undefined
          ? duration(Number(stats.etaLastMs) / 1000)
          : '—',
      turn: data.room ? turnWords(stats.turnMs, stats.turnFrom) : null,
      seatsAvailable: seats?.available,
      seatsHeld: seats?.held,
      seatsBooked: seats?.booked,
      holdConflicts: data.perMinute.holdConflicts,
      rateLimited: data.perMinute.rateLimited,
      pow: powWords(data.pow),
    };
  }

  function onStats(event: MessageEvent<string>) {
    const data = JSON.parse(event.data) as StatsEvent;
    const values = numbers(data);
    for (const [key, value] of Object.entries(values))
      setText(`v-${key}`, value === null || value === undefined ? '—' : String(value));
    const seatsTotal = data.seats ? data.seats.available + data.seats.held + data.seats.booked : null;
    record(Date.parse(data.at), values, seatsTotal);
    if (data.core && !data.core.fresh) {
      const since = data.core.staleSince ? ` since ${localTime(new Date(data.core.staleSince), false)}` : '';
      live(
        `Live · updated ${localTime(new Date(data.at), false)} · the seat service is not answering${since}: seat counts as last known`,
        false,
        'core-stale',
      );
    } else {
      live(`Live · updated ${localTime(new Date(data.at), false)}`, true);
    }
    if (!data.room) {
      setText('room-state', 'no room yet');
      return;
    }
    const state = data.room.settings.state;
    const badge = setText('room-state', STATE_WORDS[state] ?? state);
    if (badge) badge.className = `badge badge-${state}`;
    // The console's live stream carries the loop's view inside the stats (the operator API beside them).
    const admission = data.room.admission ?? (data.room.stats.admission as unknown as AdmissionView | undefined);
    for (const [key, value] of Object.entries(admissionTiles(admission))) setText(`v-${key}`, value);
    if (admission) setText('admission-reason', reasonWords(admission));
    setText('seed-hash', String(data.room.stats.seedHash ?? '—'));
    setText('seed', String(data.room.stats.seed ?? 'revealed after the opening draw'));
    const first = settings === null;
    settings = data.room.settings;
    if (first) fillForm();
    stateButtons();
  }

  /** One sample into every chart, then the charts drawn with their time axis (first sample → now). */
  function record(atMs: number, values: Record<string, unknown>, seatsTotal: number | null) {
    series.push('at', atMs);
    for (const key of CHARTS) series.push(key, values[key]);
    const times = series.get('at');
    const span =
      times.length > 1
        ? { from: localTime(new Date(times[0]!), false), to: localTime(new Date(times[times.length - 1]!), false) }
        : null;
    for (const key of CHARTS)
      drawSpark(
        document.getElementById(`chart-${key}`) as SVGSVGElement | null,
        series.get(key),
        SEAT_CHARTS.has(key) ? seatsTotal : null,
        span,
      );
  }

  /** The server's last minutes first, so the charts do not start empty on every load. */
  async function loadHistory() {
    const result = await api<{ samples: { at: number; values: Record<string, number | null> }[] }>(
      'GET',
      `/admin/showtimes/${id}/history`,
    );
    for (const sample of result.ok ? (result.json?.samples ?? []) : []) {
      const v = sample.values;
      const total =
        v.seatsAvailable !== null && v.seatsAvailable !== undefined
          ? (v.seatsAvailable ?? 0) + (v.seatsHeld ?? 0) + (v.seatsBooked ?? 0)
          : null;
      record(sample.at, v, total);
    }
  }

  function live(text: string, ok: boolean, kind: string = ok ? 'live' : text) {
    const element = setText('live', text);
    if (element) element.className = ok ? 'live' : 'live down';
    // A state is news once it has lasted a few updates (a slow second of the core is not); the
    // first connection is not news at all.
    sameKind = kind === pendingKind ? sameKind + 1 : 1;
    pendingKind = kind;
    if (linkState === null && ok) linkState = kind;
    if (kind === linkState || sameKind < SETTLE_UPDATES) return;
    linkState = kind;
    status.say(ok ? 'Live numbers are back.' : text.replace(/ · updated [^·]+ · /, ': '));
  }

  /** A button for the state the room is already in is disabled, and says why. */
  function stateButtons() {
    root.querySelectorAll<HTMLButtonElement>('button[data-state]').forEach((button) => {
      const current = settings?.state === button.dataset.state;
      button.disabled = current;
      button.title = current ? `The room is already ${STATE_WORDS[settings!.state] ?? settings!.state}` : '';
    });
  }

  /** Every settings input shows the room's value, except the one the operator is typing in. */
  function fillForm() {
    if (!settings) return;
    const current = settings as Record<string, unknown>;
    for (const group of SETTING_GROUPS) {
      for (const name of consoleGroup(group)) {
        const input = document.getElementById(name) as HTMLInputElement | null;
        if (!input || document.activeElement === input) continue;
        if (input.type === 'checkbox') input.checked = current[name] !== false;
        else input.value = String(current[name] ?? '');
      }
    }
    if (settings.opensAt) {
      const d = new Date(settings.opensAt);
      byId<HTMLInputElement>('opensAt').value = new Date(d.getTime() - d.getTimezoneOffset() * 60_000)
        .toISOString()
        .slice(0, 19);
    }
  }

  function consoleAlert(message: string | null) {
    const element = setText('console-alert', message ?? '');
    if (!element) return;
    element.hidden = !message;
    if (message) {
      element.tabIndex = -1;
      element.focus();
    }
  }

  /** Every change asks first; resolves true only on "Yes". */
  function confirmChange(text: string): Promise<boolean> {
    const dialog = byId<HTMLDialogElement>('confirm-dialog');
    setText('confirm-text', text);
    return new Promise((resolve) => {
      dialog.addEventListener('close', () => resolve(dialog.returnValue === 'yes'), { once: true });
      dialog.returnValue = '';
      dialog.showModal();
      byId('confirm-no').focus();
    });
  }

  async function apply(change: RoomChange) {
    if (Object.keys(change).length === 0) return consoleAlert('Nothing changed.');
    if (!(await confirmChange(`Change ${describeChange(change, settings)}?`))) return;
    const headers: Record<string, string> = { 'x-console': '1' };
    if (operator) headers['x-operator'] = operator;
    const result = await api<{ settings: RoomSettingsView }>('PUT', `/api/admin/showtimes/${id}/room`, change, headers);
    if (!result.ok || !result.json) return consoleAlert(`Not applied: ${explain(result)}`);
    consoleAlert(null);
    settings = result.json.settings;
    fillForm();
    stateButtons();
    status.say(`Applied: ${describeChange(change, null)}`);
    void loadAudit();
  }

  /** The values of one group's inputs, as the registry lists them. */
  function groupValues(group: ConsoleGroup): GroupValues {
    const values: GroupValues = {};
    for (const name of consoleGroup(group)) {
      const input = byId<HTMLInputElement>(name);
      values[name] = input.type === 'checkbox' ? input.checked : input.value;
    }
    return values;
  }

  function onGroup(group: ConsoleGroup, event: SubmitEvent) {
    event.preventDefault();
    const values = groupValues(group);
    const checked =
      group === 'admission' ? validateAdmission(values, settings) : validateGroup(group, values, settings);
    if (!checked.ok) return consoleAlert(checked.message);
    void apply(checked.change);
  }

  function onOpening(event: SubmitEvent) {
    event.preventDefault();
    const at = new Date(byId<HTMLInputElement>('opensAt').value);
    if (Number.isNaN(at.getTime())) return consoleAlert('Enter the opening date and time.');
    if (at.getTime() <= Date.now())
      return consoleAlert(
        'That opening time has already passed. Choose a time in the future, or press "Resume (open)" to open now.',
      );
    void apply({ state: 'scheduled', opensAt: at.toISOString() });
  }

  async function loadAudit() {
    const result = await api<{
      entries?: {
        atMs: number;
        actor: string;
        actorVia?: string;
        source?: string | null;
        action?: string;
        before: Record<string, unknown> | null;
        after: Record<string, unknown> | null;
      }[];
    }>('GET', `/api/admin/showtimes/${id}/room/audit`);
    const body = byId<HTMLTableSectionElement>('audit-rows');
    if (!result.ok || !result.json) {
      if (result.status !== 404) consoleAlert(`Audit log: ${explain(result)}`);
      return;
    }
    body.textContent = '';
    const entries = result.json.entries ?? [];
    if (entries.length === 0) {
      const cell = body.insertRow().insertCell();
      cell.colSpan = 3;
      cell.textContent = 'No changes yet.';
    }
    for (const entry of entries) {
      const row = body.insertRow();
      row.insertCell().textContent = localTime(new Date(entry.atMs), true);
      // How they signed in, and from where: a typed console name alone proves nothing.
      const via = entry.actorVia === 'console' ? 'console' : entry.actorVia === 'token' ? 'admin token' : null;
      row.insertCell().textContent = [entry.actor, via && `(${via})`, entry.source && `from ${entry.source}`]
        .filter(Boolean)
        .join(' ');
      row.insertCell().textContent = auditChanges(entry.before, entry.after, entry.action);
    }
  }

  /** Hold time and seats per customer: the sale's settings at the core (the form is there when the core answered). */
  const saleForm = document.getElementById('sale-form');
  const saleValue = (name: 'holdTtlSeconds' | 'maxSeatsPerCustomer') =>
    Number(byId<HTMLInputElement>(name).defaultValue);
  async function onSale(event: SubmitEvent) {
    event.preventDefault();
    const current = {
      holdTtlSeconds: saleValue('holdTtlSeconds'),
      maxSeatsPerCustomer: saleValue('maxSeatsPerCustomer'),
    };
    const checked = validateSale(
      {
        holdTtlSeconds: byId<HTMLInputElement>('holdTtlSeconds').value,
        maxSeatsPerCustomer: byId<HTMLInputElement>('maxSeatsPerCustomer').value,
      },
      current,
    );
    if (!checked.ok) return consoleAlert(checked.message);
    if (Object.keys(checked.change).length === 0) return consoleAlert('Nothing changed.');
    const words = describeSaleChange(checked.change, current);
    if (!(await confirmChange(`Change ${words}? It applies to holds made from now on.`))) return;
    const result = await api<{ holdTtlSeconds: number; maxSeatsPerCustomer: number }>(
      'PATCH',
      `/admin/showtimes/${id}/sale`,
      checked.change,
      { 'x-console': '1' },
    );
    if (!result.ok || !result.json) return consoleAlert(`Not applied: ${explain(result)}`);
    consoleAlert(null);
    for (const name of ['holdTtlSeconds', 'maxSeatsPerCustomer'] as const) {
      const input = byId<HTMLInputElement>(name);
      input.defaultValue = String(result.json[name]);
      input.value = input.defaultValue;
    }
    status.say(`Applied: ${words.replace(/ from \S+ to /g, ' → ')}`);
    void loadAudit();
  }
  saleForm?.addEventListener('submit', (event) => void onSale(event as SubmitEvent));

  for (const group of SETTING_GROUPS) {
    document
      .getElementById(FORM_OF_GROUP[group])
      ?.addEventListener('submit', (event) => onGroup(group, event as SubmitEvent));
  }
  byId('opening-form').addEventListener('submit', onOpening);
  root.querySelectorAll<HTMLButtonElement>('button[data-state]').forEach((button) => {
    button.addEventListener('click', () => void apply({ state: button.dataset.state as RoomChange['state'] }));
  });
  void loadHistory().finally(() => {
    const source = new EventSource(`/admin/showtimes/${id}/live`);
    source.addEventListener('stats', onStats);
    source.addEventListener('unavailable', () => live('The room store is not answering; retrying…', false));
    source.onerror = () => live('Connection lost; reconnecting…', false);
  });
  void loadAudit();
  setInterval(() => void loadAudit(), 15_000);
}

/** What changed, by field; a change the log keeps no fields of (a catalog edit) is named by its action. */
function auditChanges(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  action?: string,
): string {
  const named =
    action === 'showtime.update'
      ? 'sale settings changed (hold time, seats per customer or times)'
      : action
        ? `${action}`
        : 'settings changed';
  // A creation (no before) is named, not listed field by field.
  if (!after || !before) return named;
  // Rows keep only the fields a change moved (older rows kept whole views): the room's own
  // fields first, in the console's order, then any other (title, price, fare fields).
  const order = [
    'state',
    'saleState',
    'opensAt',
    ...SETTING_GROUPS.flatMap((group) => consoleGroup(group)),
    'holdTtlSeconds',
    'maxSeatsPerCustomer',
  ];
  const keys = [...order.filter((k) => k in after), ...Object.keys(after).filter((k) => !order.includes(k))];
  const shown = (value: unknown) =>
    typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
  const parts = keys
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .map((k) => `${k}: ${shown(before[k])} → ${shown(after[k])}`);
  return parts.length ? parts.join(', ') : named;
}
