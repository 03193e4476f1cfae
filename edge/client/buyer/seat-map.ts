/**
 * The seat map: drawn from rows and columns as a grid with a roving tabindex (arrow keys,
 * Home/End, Page Up/Down, Space or Enter to choose). Row labels stay in view while the map
 * scrolls sideways on a phone. Couple seats are chosen in pairs.
 */
import { setText, show as showElement } from '../core/dom';
import { money } from '../core/format';
import { t } from '../core/i18n';
import { couplePartners, toggleSeat } from '../logic/seat-pairs';
import type { SaleFlow } from './flow';

export interface Seat {
  code: string;
  row: number;
  column: number;
  rowLabel: string;
  label: string;
  type: 'standard' | 'couple' | 'accessible';
  /** The fare class the seat is sold in (its price is the class's). */
  fareClass?: string;
  status: 'AVAILABLE' | 'HELD' | 'BOOKED';
}

export interface FareClassPrice {
  fareClass: string;
  label: string;
  priceCents: number;
  seated: boolean;
  available: number;
}

export interface SeatMapData {
  seats: Seat[];
  counts: { total: number; available: number };
  maxSeatsPerCustomer?: number;
  priceCents: number;
  currency: string;
  /** Prices per class; seats of a class cost the class's price. */
  fareClasses?: FareClassPrice[];
}

const TYPE_KEYS = {
  standard: 'seat.type.standard',
  couple: 'seat.type.couple',
  accessible: 'seat.type.accessible',
} as const;
/** A seat's kind in words; a couple seat without a partner is sold alone, so it is not called a pair. */
const typeWords = (type: string, paired = true) =>
  type === 'couple' && !paired
    ? t('seat.type.coupleAlone')
    : type in TYPE_KEYS
      ? t(TYPE_KEYS[type as keyof typeof TYPE_KEYS])
      : type;

export function createSeatMap(flow: SaleFlow, grid: HTMLElement) {
  let map: SeatMapData | null = null;
  let partners = new Map<string, string>();
  let selected: string[] = [];
  let focusCode: string | null = null;
  let ownHeld: string[] = [];
  let limit = 8;
  const changeListeners: (() => void)[] = [];

  const seatBy = (code: string) => map?.seats.find((s) => s.code === code) ?? null;
  const classOf = (seat: Seat | null) => map?.fareClasses?.find((c) => c.fareClass === seat?.fareClass) ?? null;
  const priceOfSeat = (code: string) => classOf(seatBy(code))?.priceCents ?? map?.priceCents ?? 0;
  /** Class names and prices, said only when a showing has more than one seated class. */
  const pricedClasses = () => (map?.fareClasses ?? []).filter((c) => c.seated);

  function show(data: SeatMapData, heldByMe: string[]) {
    map = data;
    ownHeld = heldByMe;
    partners = couplePartners(data.seats);
    limit = data.maxSeatsPerCustomer ?? 8;
    setText('seat-limit', t('map.limit', { n: limit }));
    const classes = pricedClasses();
    const prices =
      classes.length > 1
        ? ` ${classes.map((c) => `${c.label} ${money(c.priceCents, data.currency)}`).join(' · ')}.`
        : '';
    setText('seats-left', `${t('map.available', { n: data.counts.available, total: data.counts.total })}${prices}`);
    selected = selected.filter((code) => seatBy(code)?.status === 'AVAILABLE');
    draw();
    showPlaces(data);
  }

  /** General-admission areas of the showing, bought by quantity with the picker under the map. */
  function showPlaces(data: SeatMapData) {
    const areas = (data.fareClasses ?? []).filter((c) => !c.seated);
    const form = document.getElementById('places-form');
    const select = document.getElementById('places-class') as HTMLSelectElement | null;
    if (!form || !select) return;
    form.hidden = areas.length === 0;
    const chosen = select.value;
    select.textContent = '';
    for (const area of areas) {
      const option = document.createElement('option');
      option.value = area.fareClass;
      option.textContent = t('map.areaOption', {
        area: area.label,
        price: money(area.priceCents, data.currency),
        left: area.available > 0 ? t('map.placesLeft', { n: area.available }) : t('map.areaSoldOut'),
      });
      option.disabled = area.available === 0;
      select.appendChild(option);
    }
    if (areas.some((a) => a.fareClass === chosen)) select.value = chosen;
    const quantity = document.getElementById('places-quantity') as HTMLInputElement | null;
    if (quantity) quantity.max = String(limit);
  }

  function draw() {
    if (!map) return;
    const rows = new Map<number, { label: string; seats: Map<number, Seat> }>();
    let maxColumn = 0;
    for (const seat of map.seats) {
      const row = rows.get(seat.row) ?? { label: seat.rowLabel, seats: new Map() };
      row.seats.set(seat.column, seat);
      rows.set(seat.row, row);
      maxColumn = Math.max(maxColumn, seat.column);
    }
    grid.textContent = '';
    grid.style.setProperty('--columns', String(maxColumn));
    if (!focusCode || !seatBy(focusCode))
      focusCode = (map.seats.find((s) => s.status === 'AVAILABLE') ?? map.seats[0])?.code ?? null;
    for (const rowNumber of [...rows.keys()].sort((a, b) => a - b)) {
      const row = rows.get(rowNumber)!;
      const rowElement = document.createElement('div');
      rowElement.setAttribute('role', 'row');
      rowElement.className = 'seat-row';
      const header = document.createElement('span');
      header.setAttribute('role', 'rowheader');
      header.className = 'row-label';
      header.textContent = row.label;
      rowElement.appendChild(header);
      for (let column = 1; column <= maxColumn; column++) {
        const cell = document.createElement('span');
        cell.setAttribute('role', 'gridcell');
        const seat = row.seats.get(column);
        if (seat) cell.appendChild(seatButton(seat));
        else cell.className = 'aisle';
        rowElement.appendChild(cell);
      }
      grid.appendChild(rowElement);
    }
    summary();
    overflowHint();
  }

  /** Says the map scrolls sideways only when it really is wider than its box (a phone, a big hall). */
  function overflowHint() {
    const scroller = grid.parentElement;
    if (scroller) showElement('scroll-hint', scroller.scrollWidth > scroller.clientWidth + 1);
  }

  function seatButton(seat: Seat): HTMLButtonElement {
    const button = document.createElement('button');
    const chosen = selected.includes(seat.code);
    const free = seat.status === 'AVAILABLE';
    const mine = seat.status === 'HELD' && ownHeld.includes(seat.code);
    button.type = 'button';
    button.className = `seat seat-${seat.type} seat-${seat.status.toLowerCase()}${chosen ? ' seat-selected' : ''}${mine ? ' seat-mine' : ''}`;
    button.dataset.code = seat.code;
    button.dataset.row = String(seat.row);
    button.dataset.column = String(seat.column);
    button.textContent = String(seat.column);
    button.tabIndex = seat.code === focusCode ? 0 : -1;
    button.setAttribute('aria-pressed', chosen ? 'true' : 'false');
    if (!free) button.setAttribute('aria-disabled', 'true');
    const state = t(
      free
        ? chosen
          ? 'seat.state.selected'
          : 'seat.state.available'
        : mine
          ? 'seat.state.mine'
          : seat.status === 'HELD'
            ? 'seat.state.held'
            : 'seat.state.sold',
    );
    const kind = typeWords(seat.type, partners.has(seat.code));
    const fare = pricedClasses().length > 1 ? classOf(seat) : null;
    const priced = fare ? `, ${fare.label} ${money(fare.priceCents, map?.currency ?? 'EUR')}` : '';
    button.setAttribute('aria-label', `${seat.label}, ${kind}${priced}, ${state}`);
    button.title = `${seat.label} (${kind}${priced}, ${state})`;
    return button;
  }

  function toggle(code: string) {
    const seat = seatBy(code);
    if (!map || !seat) return;
    const outcome = toggleSeat(code, selected, map.seats, partners, limit);
    if (!outcome.ok) {
      if (outcome.reason === 'limit') return flow.alert(t('map.limitReached', { n: limit }), true);
      if (outcome.reason === 'partner_taken') return flow.alert(t('map.partnerTaken', { seat: seat.label }), true);
      return flow.announce(t('map.notAvailable', { seat: seat.label }));
    }
    selected = outcome.selected;
    flow.alert(null);
    focusCode = code;
    draw();
    focusSeat(code);
    const names = outcome.codes.map((c) => seatBy(c)?.label ?? c).join(t('seat.and'));
    flow.announce(t(outcome.added ? 'map.selectedSpoken' : 'map.removedSpoken', { seats: names, n: selected.length }));
  }

  function focusSeat(code: string) {
    const element = grid.querySelector<HTMLButtonElement>(`button[data-code="${CSS.escape(code)}"]`);
    if (!element) return;
    grid.querySelectorAll<HTMLButtonElement>('button[tabindex="0"]').forEach((b) => (b.tabIndex = -1));
    element.tabIndex = 0;
    element.focus();
    focusCode = code;
  }

  /** Arrow keys move to the nearest seat in that direction, skipping aisles. */
  function move(from: HTMLElement, dRow: number, dColumn: number, toEdge: boolean) {
    if (!map) return;
    const row = Number(from.dataset.row);
    const column = Number(from.dataset.column);
    let best: { seat: Seat; score: number } | null = null;
    for (const s of map.seats) {
      if (dRow === 0 && s.row === row && (dColumn > 0 ? s.column > column : s.column < column)) {
        const d = Math.abs(s.column - column);
        if (!best || (toEdge ? d > best.score : d < best.score)) best = { seat: s, score: d };
      }
      if (dColumn === 0 && (dRow > 0 ? s.row > row : s.row < row)) {
        const score = (toEdge ? -Math.abs(s.row - row) : Math.abs(s.row - row)) * 1000 + Math.abs(s.column - column);
        if (!best || score < best.score) best = { seat: s, score };
      }
    }
    if (best) focusSeat(best.seat.code);
  }

  function onKey(event: KeyboardEvent) {
    const target = event.target as HTMLElement;
    if (!target.dataset?.code) return;
    const arrows: Record<string, [number, number]> = {
      ArrowRight: [0, 1],
      ArrowLeft: [0, -1],
      ArrowDown: [1, 0],
      ArrowUp: [-1, 0],
    };
    const arrow = arrows[event.key];
    if (arrow) move(target, arrow[0], arrow[1], false);
    else if (event.key === 'Home') move(target, 0, -1, true);
    else if (event.key === 'End') move(target, 0, 1, true);
    else if (event.key === 'PageUp') move(target, -1, 0, true);
    else if (event.key === 'PageDown') move(target, 1, 0, true);
    else return;
    event.preventDefault();
  }

  function summary() {
    if (!map) return;
    const price = selected.reduce((sum, code) => sum + priceOfSeat(code), 0);
    setText(
      'selection',
      selected.length
        ? t('map.chosen', { seats: selected.join(', '), price: money(price, map.currency) })
        : t('sale.seats.none'),
    );
    const holdButton = document.getElementById('hold-button') as HTMLButtonElement | null;
    if (holdButton) holdButton.disabled = selected.length === 0;
    for (const listener of changeListeners) listener();
  }

  grid.addEventListener('click', (event) => {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>('button[data-code]');
    if (button?.dataset.code) toggle(button.dataset.code);
  });
  grid.addEventListener('keydown', onKey);
  window.addEventListener('resize', overflowHint);

  return {
    show,
    get selected() {
      return selected.slice();
    },
    /** Drops seats from the choice (taken by someone else, or just held). */
    forget(codes: string[] | 'all') {
      selected = codes === 'all' ? [] : selected.filter((c) => !codes.includes(c));
      draw();
    },
    /** A general-admission area by its class code (label and price), if the map lists it. */
    area(fareClass: string) {
      return map?.fareClasses?.find((c) => c.fareClass === fareClass && !c.seated) ?? null;
    },
    /** What places of an area cost. */
    priceOfPlaces(fareClass: string, quantity: number) {
      const area = map?.fareClasses?.find((c) => c.fareClass === fareClass);
      return map && area ? money(area.priceCents * quantity, map.currency) : '';
    },
    /** Seats in words for a person: "Row F, seats 5 and 6" when in one row, else each seat's label. */
    labels(codes: string[]) {
      const seats = codes
        .map((code) => seatBy(code))
        .filter((seat): seat is Seat => seat !== null)
        .sort((a, b) => a.row - b.row || a.column - b.column);
      if (seats.length !== codes.length || seats.length === 0) return codes.join(', ');
      if (seats.length === 1 || new Set(seats.map((s) => s.row)).size > 1) return seats.map((s) => s.label).join(', ');
      const columns = seats.map((s) => String(s.column));
      return `Row ${seats[0]!.rowLabel}, seats ${columns.slice(0, -1).join(', ')} and ${columns[columns.length - 1]}`;
    },
    /** What these seats cost, each at its class's price (what checkout charges). */
    priceOf(codes: string[]) {
      return map
        ? money(
            codes.reduce((sum, code) => sum + priceOfSeat(code), 0),
            map.currency,
          )
        : '';
    },
  };
}

export type SeatMap = ReturnType<typeof createSeatMap>;
