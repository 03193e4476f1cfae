/**
 * The admitted half of the sale page: the turn's countdown, the seat map, the hold with its
 * own countdown, cancel, and the way to the payment page. A cancelled or lapsed hold frees
 * its seats, not the turn: the buyer is back on the map while the turn lasts, and told
 * plainly (with a way back into the line) only when the turn itself is over. Every call
 * names the showtime (X-Showtime-Id) so the edge finds the access cookie on any path.
 */
import { api, errorCode, isTransient, serverNow, type ApiResult } from '../core/api';
import { byId, setText, show } from '../core/dom';
import { explain } from '../core/explain';
import { clock } from '../core/format';
import { pageLocale, t } from '../core/i18n';
import { createDeadlineWarnings, minutesLeftWords, paymentDeadlineMs } from '../logic/deadlines';
import type { SaleFlow } from './flow';
import { createSeatMap, type SeatMapData } from './seat-map';

export interface SavedHold {
  holdId: string;
  expiresAt: string;
  seats: string[];
  /** Idempotency-Key of the current checkout attempt (one per attempt: a retry replays it). */
  key: string | null;
  /** When the payment must be done by (server clock, ms), known when this page made the hold. */
  payByMs?: number;
  status?: string;
  /** General admission: the area and how many places (no seats). */
  fareClass?: string;
  quantity?: number;
}

/** Too little time to get through a payment page: keep the buyer here instead. */
const MIN_TIME_TO_PAY_MS = 30_000;
/** Checkout must start while the turn lasts: Pay stops a moment before the turn's end. */
const TURN_MARGIN_MS = 3_000;

/** Which deadline the hold step counts down to: the payment's or the turn's, whichever is first. */
export function holdDeadline(payByMs: number, turnEndsAtMs: number): { atMs: number; by: 'payment' | 'turn' } {
  return !Number.isNaN(turnEndsAtMs) && turnEndsAtMs < payByMs
    ? { atMs: turnEndsAtMs, by: 'turn' }
    : { atMs: payByMs, by: 'payment' };
}

/** The payment page in the buyer's language: it is on another origin, so it cannot read the cookie. */
export function withLanguage(checkoutUrl: string): string {
  try {
    const url = new URL(checkoutUrl, window.location.href);
    url.searchParams.set('lang', pageLocale());
    return url.toString();
  } catch {
    return checkoutUrl;
  }
}

export function createPurchase(flow: SaleFlow) {
  const id = flow.showtimeId;
  const holdKey = `wr-hold-${id}`;
  const seatMap = createSeatMap(flow, byId('seat-grid'));
  const turnWarnings = createDeadlineWarnings();
  const holdWarnings = createDeadlineWarnings();
  let turnEndsAt = Number.NaN;
  let turnTimer: ReturnType<typeof setInterval> | null = null;
  let holdTimer: ReturnType<typeof setInterval> | null = null;
  let current: SavedHold | null = null;

  const call = <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    api<T>(method, path, body, { 'x-showtime-id': id, ...headers });

  // localStorage, not sessionStorage: every tab of this buyer knows the hold.
  function savedHold(): SavedHold | null {
    try {
      return JSON.parse(localStorage.getItem(holdKey) ?? 'null') as SavedHold | null;
    } catch {
      return null;
    }
  }
  function saveHold(hold: SavedHold | null) {
    if (hold) localStorage.setItem(holdKey, JSON.stringify(hold));
    else localStorage.removeItem(holdKey);
  }

  const turnOver = () => !Number.isNaN(turnEndsAt) && turnEndsAt <= serverNow();

  function endTurn() {
    flow.ended(t('turn.ended.title'), t('turn.ended.text'), true);
  }

  /** How long this buyer's turn lasts (the admission session); the access token ends with it. */
  function turnCountdown(expiresAt: string | undefined) {
    const ends = Date.parse(expiresAt ?? '');
    if (Number.isNaN(ends)) return;
    turnEndsAt = ends;
    turnWarnings.reset();
    if (turnTimer) clearInterval(turnTimer);
    const tick = () => {
      const left = ends - serverNow();
      setText('turn-countdown', clock(left));
      show('turn-note', true);
      const warn = turnWarnings.check(left);
      if (warn && flow.step === 'step-seats') flow.announce(t('turn.warn', { left: minutesLeftWords(warn) }));
      if (left <= 0) {
        if (turnTimer) clearInterval(turnTimer);
        if (flow.step === 'step-seats') endTurn();
        else if (flow.step === 'step-hold' && current) void endTurnWithHold(current);
      }
    };
    tick();
    turnTimer = setInterval(tick, 1000);
  }

  async function start(sessionExpiresAt: string | undefined) {
    turnCountdown(sessionExpiresAt);
    const hold = savedHold();
    if (hold) {
      const result = await call<SavedHold>('GET', `/api/holds/${hold.holdId}`);
      if (result.ok && result.json?.status === 'ACTIVE') return showHold({ ...hold, ...result.json });
      saveHold(null);
    }
    return loadMap();
  }

  /** Back to the map, unless the turn is over: then say so, rather than invite a refused choice. */
  async function loadMap(message?: string): Promise<void> {
    if (turnOver()) return endTurn();
    flow.go('step-seats');
    if (message) flow.alert(message, true);
    const result = await call<SeatMapData>('GET', `/api/showtimes/${id}/seats`);
    if (!result.ok || !result.json) {
      if (turnEnded(result)) return flow.ended(t('turn.ended.title'), explain(result), true);
      flow.alert(explain(result), true);
      if (isTransient(result)) setTimeout(() => void loadMap(), (result.retryAfterSeconds ?? 2) * 1000);
      return;
    }
    seatMap.show(result.json, savedHold()?.seats ?? []);
    lastMap = result.json;
    for (const listener of mapListeners) listener(result.json.maxSeatsPerCustomer ?? 8);
  }
  let lastMap: SeatMapData | null = null;
  /** Told each time a map is shown, with the showing's per-customer limit (best-seats.ts). */
  const mapListeners: ((limit: number) => void)[] = [];

  const turnEnded = (result: ApiResult<unknown>) =>
    result.status === 401 || result.status === 403 || errorCode(result) === 'TURN_ENDED';

  /** Holds the chosen seats, or places of a general-admission area when `places` is given. */
  async function hold(places?: { fareClass: string; quantity: number }) {
    const button = byId<HTMLButtonElement>(places ? 'places-button' : 'hold-button');
    button.disabled = true;
    const seats = seatMap.selected;
    const result = await call<SavedHold>('POST', `/api/showtimes/${id}/holds`, places ?? { seats });
    button.disabled = false;
    if (result.ok && result.json) {
      const held: SavedHold = {
        holdId: result.json.holdId,
        expiresAt: result.json.expiresAt,
        seats: result.json.seats,
        key: null,
      };
      if (places) Object.assign(held, { fareClass: places.fareClass, quantity: places.quantity });
      const expiresAtMs = Date.parse(result.json.expiresAt);
      if (!Number.isNaN(expiresAtMs)) held.payByMs = paymentDeadlineMs(serverNow(), expiresAtMs);
      seatMap.forget('all');
      saveHold(held);
      return showHold(held);
    }
    if (errorCode(result) === 'PLACES_UNAVAILABLE') return loadMap(explain(result));
    if (errorCode(result) === 'SEATS_UNAVAILABLE') {
      seatMap.forget(result.json?.error?.seats ?? []);
      return loadMap(explain(result));
    }
    if (turnEnded(result)) return flow.ended(t('turn.ended.title'), explain(result), true);
    flow.alert(explain(result, { action: true }), true);
  }

  function showHold(held: SavedHold) {
    current = held;
    flow.go('step-hold');
    flow.alert(null);
    const area = held.fareClass ? seatMap.area(held.fareClass) : null;
    setText(
      'held-seats',
      held.fareClass ? `${held.quantity ?? 0} × ${area?.label ?? held.fareClass}` : held.seats.join(', '),
    );
    setText(
      'hold-total',
      !lastMap
        ? ''
        : held.fareClass
          ? seatMap.priceOfPlaces(held.fareClass, held.quantity ?? 0)
          : seatMap.priceOf(held.seats),
    );
    show('hold-total-line', Boolean(lastMap));
    const expires = Date.parse(held.expiresAt);
    // The payment's own deadline when known (the payment page shows the same clock), else the hold's.
    const payBy = held.payByMs && held.payByMs < expires ? held.payByMs : expires;
    holdWarnings.reset();
    if (holdTimer) clearInterval(holdTimer);
    const tick = () => {
      const now = serverNow();
      const left = expires - now;
      // One clock: the earlier of the payment's deadline and the turn's end, and which one it is.
      const deadline = holdDeadline(payBy, turnEndsAt);
      const leftToAct = deadline.atMs - now;
      setText('hold-countdown-label', deadline.by === 'turn' ? t('hold.countdown.turn') : t('hold.countdown.pay'));
      setText('hold-countdown', clock(leftToAct));
      const warn = holdWarnings.check(leftToAct);
      if (warn)
        flow.announce(
          deadline.by === 'turn'
            ? t('hold.warn.turn', { left: minutesLeftWords(warn) })
            : t('hold.warn.pay', { left: minutesLeftWords(warn) }),
        );
      // Checkout needs a live turn; the payment page then needs time of its own.
      const tooLate = deadline.by === 'turn' ? leftToAct <= TURN_MARGIN_MS : leftToAct < MIN_TIME_TO_PAY_MS;
      byId<HTMLButtonElement>('pay-button').disabled = tooLate;
      show('hold-too-late', tooLate && left > 0 && deadline.by === 'payment');
      if (deadline.by === 'turn' && leftToAct <= 0) {
        if (holdTimer) clearInterval(holdTimer);
        void endTurnWithHold(held);
        return;
      }
      if (left <= 0) {
        if (holdTimer) clearInterval(holdTimer);
        saveHold(null);
        current = null;
        void loadMap(
          explain({ status: 410, ok: false, json: { error: { code: 'HOLD_EXPIRED' } }, retryAfterSeconds: null }),
        );
      }
    };
    tick();
    holdTimer = setInterval(tick, 1000);
  }

  /**
   * The turn ended with seats held but not paid: nothing more can be bought on this turn, so the
   * seats go back at once (best effort: the hold lapses by itself if the release is refused) and
   * the buyer is offered the one next step that works, joining the line again.
   */
  async function endTurnWithHold(held: SavedHold) {
    current = null;
    saveHold(null);
    const released = await call('DELETE', `/api/holds/${held.holdId}`);
    flow.ended(
      t('turn.ended.title'),
      released.ok || released.status === 404 ? t('turn.ended.released') : t('turn.ended.lapses'),
      true,
    );
  }

  async function cancelHold() {
    const held = current;
    if (!held) return;
    const result = await call('DELETE', `/api/holds/${held.holdId}`);
    if (!result.ok && result.status !== 404) return flow.alert(explain(result, { action: true }), true);
    if (holdTimer) clearInterval(holdTimer);
    saveHold(null);
    current = null;
    await loadMap();
    if (flow.step === 'step-seats') flow.announce(t('hold.cancelled'));
  }

  async function pay() {
    const held = current;
    const button = byId<HTMLButtonElement>('pay-button');
    if (!held) return;
    // One Idempotency-Key per attempt: a double click or a retry replays the same session.
    if (!held.key) {
      held.key = crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2);
      saveHold(held);
    }
    button.disabled = true;
    flow.announce(t('hold.opening'));
    const result = await call<{ checkoutUrl?: string }>(
      'POST',
      `/api/holds/${held.holdId}/checkout`,
      {},
      { 'idempotency-key': held.key },
    );
    if (result.ok && result.json?.checkoutUrl) {
      window.location.assign(withLanguage(result.json.checkoutUrl));
      return;
    }
    button.disabled = false;
    if (errorCode(result) === 'HOLD_EXPIRED') {
      saveHold(null);
      return loadMap(explain(result));
    }
    if (turnEnded(result)) return void endTurnWithHold(held);
    flow.alert(explain(result, { action: true }), true);
  }

  function wire() {
    byId('hold-button').addEventListener('click', () => void hold());
    byId('places-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const quantity = Number(byId<HTMLInputElement>('places-quantity').value);
      const fareClass = byId<HTMLSelectElement>('places-class').value;
      if (!fareClass) return flow.alert(t('hold.chooseArea'), true);
      if (!Number.isInteger(quantity) || quantity < 1) return flow.alert(t('hold.wholeNumber'), true);
      flow.alert(null);
      void hold({ fareClass, quantity });
    });
    byId('cancel-button').addEventListener('click', () => void cancelHold());
    byId('pay-button').addEventListener('click', () => void pay());
    byId('refresh-map').addEventListener('click', () => void loadMap());
    flow.onEnded(() => {
      if (turnTimer) clearInterval(turnTimer);
      if (holdTimer) clearInterval(holdTimer);
    });
    // Another tab held, paid or cancelled: this one follows instead of calling its own seats taken.
    window.addEventListener('storage', (event) => {
      if (event.key !== holdKey) return;
      const hold = savedHold();
      if (hold && flow.step === 'step-seats') showHold(hold);
      else if (!hold && flow.step === 'step-hold') {
        if (holdTimer) clearInterval(holdTimer);
        current = null;
        void loadMap();
      }
    });
  }

  return {
    wire,
    start,
    loadMap,
    showHold,
    saveHold,
    savedHold,
    call,
    seatMap,
    onMapShown: (listener: (limit: number) => void) => void mapListeners.push(listener),
  };
}

export type Purchase = ReturnType<typeof createPurchase>;
