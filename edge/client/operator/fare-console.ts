/**
 * data-module="fare-console": the "Fares and refunds" page of one showtime. Keeps the class
 * counts live (the operator API every 2 s, said in the polite status line only when the time
 * changes), fills the class form from the class chosen, checks each form in plain words before
 * anything is sent, asks for confirmation in a <dialog>, and sends the change through the
 * operator API with X-Console: 1 (the session cookie says who), so it lands in the audit log.
 */
import { api, errorCode, type ApiResult } from '../core/api';
import { byId, setText } from '../core/dom';
import { explain } from '../core/explain';
import { localTime, money } from '../core/format';
import {
  describeFareChange,
  describePolicy,
  FARE_CODE,
  parseSeatList,
  priceText,
  validateFareChange,
  validatePolicy,
  type FareClassView,
  type RefundTier,
} from './fare-controls';

const REFRESH_MS = 2_000;

/** The core's refusals of a seat move, in the operator's words (the buyer's words speak of a seat map). */
function seatRefusal(result: ApiResult<unknown>): string | null {
  const seats = result.json?.error?.seats;
  const list = Array.isArray(seats) ? seats.join(', ') : 'some of them';
  if (errorCode(result) === 'SEATS_UNAVAILABLE')
    return `${list} ${Array.isArray(seats) && seats.length === 1 ? 'is' : 'are'} held or sold right now; only free seats change class. Nothing was moved.`;
  if (errorCode(result) === 'UNKNOWN_SEATS')
    return `${list} ${Array.isArray(seats) && seats.length === 1 ? 'is' : 'are'} not in this hall. Nothing was moved.`;
  return null;
}
const CONSOLE = { 'x-console': '1' };

export function fareConsole(root: HTMLElement) {
  const id = root.dataset.showtimeId ?? '';
  const currency = root.dataset.currency ?? 'EUR';
  const showPrice = (cents: number) => money(cents, currency);
  let classes: FareClassView[] = JSON.parse(root.dataset.classes ?? '[]') as FareClassView[];
  const select = byId<HTMLSelectElement>('fareClass');
  const input = (name: string) => byId<HTMLInputElement>(name);

  function alertBox(message: string | null) {
    const element = setText('fares-alert', message ?? '');
    if (!element) return;
    element.hidden = !message;
    if (message) {
      element.tabIndex = -1;
      element.focus();
    }
  }

  function status(text: string, ok = true) {
    const element = setText('fares-live', text);
    if (element) element.className = ok ? 'live' : 'live down';
  }

  function confirmChange(text: string): Promise<boolean> {
    const dialog = byId<HTMLDialogElement>('fare-confirm');
    setText('fare-confirm-text', text);
    return new Promise((resolve) => {
      dialog.addEventListener('close', () => resolve(dialog.returnValue === 'yes'), { once: true });
      dialog.returnValue = '';
      dialog.showModal();
      byId('fare-confirm-no').focus();
    });
  }

  const chosen = () => classes.find((f) => f.fareClass === select.value) ?? null;

  /** The class form shows the chosen class; seated classes have no places or overbooking to set. */
  function fillForm() {
    const current = chosen();
    byId('new-code-field').hidden = current !== null;
    input('fareLabel').value = current?.label ?? '';
    input('farePrice').value = current?.ownPrice ? priceText(current.priceCents) : '';
    input('fareCapacity').value = current ? String(current.capacity) : '';
    input('fareOverbook').value = current ? String(current.overbookLimit) : '0';
    input('fareBuckets').value = current ? String(current.buckets) : '1';
    const seated = current?.seated ?? false;
    for (const name of ['fareCapacity', 'fareOverbook']) {
      input(name).disabled = seated;
      input(name).parentElement!.hidden = seated;
    }
    byId('seated-hint').hidden = !seated;
  }

  const cellsOf = (f: FareClassView): [string, string | null][] => [
    [f.seated ? 'seats' : 'standing places', null],
    [`${showPrice(f.priceCents)}${f.ownPrice ? '' : " (showing's price)"}`, null],
    [String(f.capacity), null],
    [f.seated ? '—' : String(f.overbookLimit), null],
    [String(f.sold), 'sold'],
    [String(f.held), 'held'],
    [String(f.heldLapsed), 'heldLapsed'],
    [String(f.available), 'available'],
  ];

  function newRow(body: HTMLTableSectionElement, f: FareClassView) {
    const row = body.insertRow();
    row.dataset.fareClass = f.fareClass;
    const head = document.createElement('th');
    head.scope = 'row';
    row.append(head);
    for (const [, count] of cellsOf(f)) {
      const cell = row.insertCell();
      if (count) cell.dataset.count = count;
    }
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'button small';
    button.dataset.edit = f.fareClass;
    button.textContent = 'Change';
    row.insertCell().append(button);
    return row;
  }

  /**
   * The table and the class list from the operator API's answer. Rows of the same classes are
   * updated in place (text only where it changed), so focus and a screen reader's place stay put.
   */
  function render(next: FareClassView[]) {
    const sameClasses = next.length === classes.length && next.every((f, i) => f.fareClass === classes[i]!.fareClass);
    classes = next;
    const body = byId<HTMLTableSectionElement>('fare-rows');
    const existing = Array.from(body.rows);
    const reuse =
      existing.length === next.length && existing.every((row, i) => row.dataset.fareClass === next[i]!.fareClass);
    if (!reuse) body.textContent = '';
    next.forEach((f, i) => {
      const row = reuse ? existing[i]! : newRow(body, f);
      const head = row.cells[0]!;
      const headText = `${f.label} (${f.fareClass})`;
      if (head.textContent !== headText) {
        const code = document.createElement('span');
        code.className = 'muted';
        code.textContent = `(${f.fareClass})`;
        head.replaceChildren(`${f.label} `, code);
      }
      cellsOf(f).forEach(([text], j) => {
        const cell = row.cells[j + 1]!;
        if (cell.textContent !== text) cell.textContent = text;
      });
      row.querySelector('button')?.setAttribute('aria-label', `Change ${f.label}`);
    });
    if (sameClasses && select.options.length === next.length + 1) return;
    const before = select.value;
    select.replaceChildren(
      ...next.map((f) => new Option(`${f.label} (${f.fareClass})`, f.fareClass)),
      new Option('A new standing area…', ''),
    );
    select.value = next.some((f) => f.fareClass === before) || before === '' ? before : (next[0]?.fareClass ?? '');
    byId('seated-classes').replaceChildren(...next.filter((f) => f.seated).map((f) => new Option('', f.fareClass)));
  }

  async function refresh() {
    const result = await api<{ fareClasses: FareClassView[] }>('GET', `/api/admin/showtimes/${id}/fares`);
    if (!result.ok || !result.json) return status(`Counts not updated: ${explain(result)}`, false);
    const editing = root.contains(document.activeElement) && document.activeElement?.closest('form') !== null;
    render(result.json.fareClasses);
    if (!editing) fillForm();
    status(`Counts updated ${localTime(new Date(), false)}`);
  }

  async function onFare(event: SubmitEvent) {
    event.preventDefault();
    const current = chosen();
    const code = current?.fareClass ?? input('newCode').value.trim().toUpperCase();
    if (!current && !FARE_CODE.test(code)) {
      return alertBox(
        'The code of a new area is 1 to 16 capital letters, digits or underscores, starting with a letter, such as GA_FLOOR.',
      );
    }
    if (!current && classes.some((f) => f.fareClass === code))
      return alertBox(`${code} already exists: choose it in the list to change it.`);
    const checked = validateFareChange(
      {
        label: input('fareLabel').value,
        price: input('farePrice').value,
        capacity: input('fareCapacity').value,
        overbookLimit: input('fareOverbook').value,
        buckets: input('fareBuckets').value,
      },
      current,
    );
    if (!checked.ok) return alertBox(checked.message);
    if (Object.keys(checked.value).length === 0) return alertBox('Nothing changed.');
    const words = describeFareChange(checked.value, current, showPrice);
    if (
      !(await confirmChange(
        current ? `Change ${current.label}: ${words}?` : `Add the standing area ${code}: ${words}?`,
      ))
    )
      return;
    const result = await api<FareClassView>('PUT', `/api/admin/showtimes/${id}/fares/${code}`, checked.value, CONSOLE);
    if (!result.ok || !result.json) {
      const used = errorCode(result) === 'FARE_CLASS_IN_USE' ? result.json?.error?.used : undefined;
      return alertBox(
        `Not saved: ${typeof used === 'number' ? `${used} places are sold or held right now: places plus overbooking cannot go below that.` : explain(result)}`,
      );
    }
    alertBox(null);
    status(`Saved: ${result.json.label} (${words}).`);
    select.value = result.json.fareClass;
    await refresh();
    select.value = result.json.fareClass;
    fillForm();
  }

  async function onSeats(event: SubmitEvent) {
    event.preventDefault();
    const seats = parseSeatList(input('seatCodes').value);
    if (!seats.ok) return alertBox(seats.message);
    const target = input('targetClass').value.trim().toUpperCase();
    if (!FARE_CODE.test(target))
      return alertBox(
        'Name the class to move the seats to: 1 to 16 capital letters, digits or underscores, such as PREMIUM.',
      );
    const known = classes.find((f) => f.fareClass === target);
    if (known && !known.seated) return alertBox(`${known.label} is a standing area: it has places, not seats.`);
    const list =
      seats.value.length > 6
        ? `${seats.value.slice(0, 6).join(', ')} and ${seats.value.length - 6} more`
        : seats.value.join(', ');
    if (!(await confirmChange(`Move ${list} to ${known ? known.label : `a new seated class ${target}`}?`))) return;
    const result = await api<{ moved: string[] }>(
      'PUT',
      `/api/admin/showtimes/${id}/seat-classes`,
      { seats: seats.value, fareClass: target },
      CONSOLE,
    );
    if (!result.ok || !result.json) return alertBox(`Not moved: ${seatRefusal(result) ?? explain(result)}`);
    alertBox(null);
    status(
      result.json.moved.length === 0
        ? 'Those seats were already in that class.'
        : `Moved ${result.json.moved.length} ${result.json.moved.length === 1 ? 'seat' : 'seats'} to ${target}.`,
    );
    input('seatCodes').value = '';
    await refresh();
  }

  const policyRows = () =>
    Array.from(byId('policy-rows').querySelectorAll('tr')).map((row: HTMLTableRowElement) => ({
      hours: row.querySelector<HTMLInputElement>('[data-hours]')?.value ?? '',
      percent: row.querySelector<HTMLInputElement>('[data-percent]')?.value ?? '',
    }));

  function summarise(tiers: RefundTier[] | null) {
    const checked = tiers ? { ok: true as const, value: tiers } : validatePolicy(policyRows());
    if (checked.ok) setText('policy-summary', describePolicy(checked.value));
  }

  function addStep() {
    const body = byId<HTMLTableSectionElement>('policy-rows');
    const index = body.rows.length;
    const row = body.insertRow();
    const cell = (kind: 'hours' | 'percent', words: string) => {
      const td = row.insertCell();
      const label = document.createElement('label');
      label.className = 'visually-hidden';
      label.htmlFor = `${kind}-${index}`;
      label.textContent = `Step ${index + 1}: ${words}`;
      const field = document.createElement('input');
      field.id = `${kind}-${index}`;
      field.dataset[kind] = '';
      field.type = kind === 'hours' ? 'text' : 'number';
      if (kind === 'hours') field.inputMode = 'decimal';
      td.append(label, field);
      return field;
    };
    const first = cell('hours', 'hours before the start');
    cell('percent', 'percent back');
    first.focus();
  }

  async function onPolicy(event: SubmitEvent) {
    event.preventDefault();
    const checked = validatePolicy(policyRows());
    if (!checked.ok) return alertBox(checked.message);
    const words = describePolicy(checked.value);
    if (!(await confirmChange(`Set the refund policy to: ${words} It applies to cancellations from now on.`))) return;
    const result = await api<{ tiers: RefundTier[] }>(
      'PUT',
      `/api/admin/showtimes/${id}/refund-policy`,
      { tiers: checked.value },
      CONSOLE,
    );
    if (!result.ok || !result.json) return alertBox(`Not saved: ${explain(result)}`);
    alertBox(null);
    summarise(result.json.tiers);
    status('Saved the refund policy.');
  }

  root.addEventListener('click', (event) => {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>('button[data-edit]');
    if (!button) return;
    select.value = button.dataset.edit ?? '';
    fillForm();
    byId('fare-form-title').focus();
  });
  select.addEventListener('change', fillForm);
  byId('fare-form').addEventListener('submit', (event) => void onFare(event as SubmitEvent));
  byId('seat-class-form').addEventListener('submit', (event) => void onSeats(event as SubmitEvent));
  byId('policy-form').addEventListener('submit', (event) => void onPolicy(event as SubmitEvent));
  byId('policy-form').addEventListener('input', () => summarise(null));
  byId('add-step').addEventListener('click', addStep);
  fillForm();
  summarise(null);
  setInterval(() => void refresh(), REFRESH_MS);
}
