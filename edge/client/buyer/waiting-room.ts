/**
 * The waiting-room half of the sale page: join (demo login first when there is no customer
 * cookie), then poll at the server's `pollAfterMs` with ±20 % jitter, backing off on errors
 * (or waiting Retry-After). Place, smoothed ETA, progress from the starting place, pause,
 * and "updated N s ago" are shown; changes worth hearing go to the live region. Closing the
 * page while waiting sends a beacon that gives the place up (the edge defers it briefly, so
 * a reload keeps the place). Admission hands over to the seat picker.
 */
import { api, errorCode, isTransient, type ApiResult } from '../core/api';
import { byId, setText, show } from '../core/dom';
import { explain } from '../core/explain';
import { ago, clock, duration } from '../core/format';
import { serverNow } from '../core/api';
import { createEtaSmoother, trendWords } from '../logic/eta';
import { positionIsNews, progressShare } from '../logic/progress';
import { saleStateFromQueue } from '../logic/sale-state';
import { joinWithProofOfWork } from '../pow/proof-of-work';
import type { SaleFlow } from './flow';
import type { SaleStatus } from './sale-status';
import { storedBookings } from './booking-store';
import { t } from '../core/i18n';
import { keepReceipt, offerKeptReceipt } from './join-receipt';

export interface QueueAnswer {
  state: 'prequeue' | 'waiting' | 'paused' | 'admitted' | 'closed' | 'sold_out';
  position?: number;
  etaSeconds?: number;
  /** Everyone waiting, the pre-queue included. */
  lineLength?: number;
  /** The short id of this place, to quote to support (none in the pre-queue). */
  queueId?: string;
  /** Seats left (available and held), and whether those ahead will likely take them all. */
  seatsLeft?: number;
  seatsLikelyGone?: boolean;
  pollAfterMs: number | null;
  sessionExpiresAt?: string;
  /** On a join: the signed join receipt (join-receipt.ts). */
  receipt?: string;
}

/**
 * Joins the line: the one place a join request is made, so a step before it (a
 * proof-of-work solved in a Worker, say) has a single function to wrap.
 */
export async function joinLine(
  showtimeId: string,
  headers: Record<string, string> = {},
): Promise<ApiResult<QueueAnswer>> {
  return api<QueueAnswer>('POST', `/api/showtimes/${showtimeId}/queue`, undefined, headers);
}

export interface WaitingRoomOptions {
  flow: SaleFlow;
  status: SaleStatus;
  /** Admission: the seat picker takes over with the turn's end. */
  onAdmitted: (sessionExpiresAt: string | undefined) => void;
}

export function createWaitingRoom(options: WaitingRoomOptions) {
  const { flow, status } = options;
  const id = flow.showtimeId;
  const opensAt = Date.parse(flow.root.dataset.opensAt ?? '');
  const eta = createEtaSmoother();
  const startKey = `wr-start-position-${id}`;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let countdownTimer: ReturnType<typeof setInterval> | null = null;
  let failures = 0;
  let beaconArmed = false;
  let lastAnswerMs = 0;
  let lastAnnouncedPosition: number | null = null;
  let wasPaused = false;

  function stopPolling() {
    if (timer) clearTimeout(timer);
    timer = null;
  }

  /** The server's interval with ±20 % jitter; on errors 1 s, 2 s, 4 s … up to 30 s, or Retry-After. */
  function schedule(ms: number, retryAfterSeconds: number | null = null): number {
    stopPolling();
    let delay = ms;
    if (failures > 0)
      delay = retryAfterSeconds ? retryAfterSeconds * 1000 : Math.min(30_000, 1000 * 2 ** (failures - 1));
    delay = Math.max(250, Math.round(delay * (0.8 + Math.random() * 0.4)));
    timer = setTimeout(poll, delay);
    return delay;
  }

  async function poll() {
    handle(await api<QueueAnswer>('GET', `/api/showtimes/${id}/queue`));
  }

  async function join() {
    const button = byId<HTMLButtonElement>('join-button');
    button.disabled = true;
    flow.alert(null);
    if (flow.root.dataset.customer !== '1') {
      const login = await api('POST', '/api/auth/demo', {});
      if (!login.ok) {
        button.disabled = false;
        flow.alert(explain(login));
        return;
      }
      flow.root.dataset.customer = '1';
    }
    // A room may ask for proof of work first: solved in a Web Worker, progress on the button.
    const label = button.textContent ?? t('sale.joinLine');
    const result = await joinWithProofOfWork(
      (headers) => joinLine(id, headers),
      (share) => {
        if (share === 0) flow.announce(t('wait.powSpoken'));
        setText('join-button', share === null ? label : t('wait.powProgress', { percent: share }));
      },
    );
    button.disabled = false;
    if (result.ok) keepReceipt(id, result.json?.receipt);
    handle(result);
  }

  function handle(result: ApiResult<QueueAnswer>) {
    if (!result.ok || !result.json) return handleError(result);
    failures = 0;
    flow.alert(null);
    const answer = result.json;
    lastAnswerMs = Date.now();
    status.fromQueue(saleStateFromQueue(answer.state));
    switch (answer.state) {
      case 'prequeue':
        return prequeue(answer);
      case 'waiting':
      case 'paused':
        return waiting(answer);
      case 'admitted':
        stopPolling();
        beaconArmed = false;
        sessionStorage.removeItem(startKey);
        flow.title(t('turn.yours'));
        flow.announce(t('turn.yoursSpoken'));
        notifyTurn();
        return options.onAdmitted(answer.sessionExpiresAt);
      case 'sold_out':
        return flow.ended(t('soldOut.title'), t('soldOut.textWaited'), false);
      case 'closed':
        return flow.ended(t('closed.title'), t('closed.byCinema'), false);
    }
  }

  function handleError(result: ApiResult<QueueAnswer>) {
    const code = errorCode(result);
    if (result.status === 401 && flow.step !== 'step-waiting' && flow.step !== 'step-prequeue') return showStart();
    if (result.status === 410 || code === 'TURN_EXPIRED' || code === 'TURN_ENDED') return void turnOver(result);
    if (isTransient(result)) {
      failures++;
      const delay = schedule(2000, result.retryAfterSeconds);
      flow.alert(explain({ ...result, retryAfterSeconds: Math.ceil(delay / 1000) }));
      return;
    }
    flow.alert(explain(result));
  }

  /**
   * The line says this place is over. A buyer who bought on it is told that (their purchase
   * ended the turn), not that the page failed to check in; anyone else gets the line's reason.
   */
  async function turnOver(result: ApiResult<QueueAnswer>) {
    stopPolling();
    if (await hasBooking(id)) return flow.ended(t('booked.title'), t('booked.text'), false);
    flow.ended(
      errorCode(result) === 'TURN_ENDED' ? t('turn.ended.title') : t('turn.expired.title'),
      explain(result),
      true,
    );
  }

  function prequeue(answer: QueueAnswer) {
    beaconArmed = true;
    if (flow.step !== 'step-prequeue') flow.go('step-prequeue');
    flow.title(t('wait.prequeueTitle'));
    flow.announce(t('wait.prequeueSpoken'));
    startCountdown('prequeue-countdown');
    if (typeof answer.lineLength === 'number')
      setText('prequeue-length', t('wait.prequeueLength', { n: answer.lineLength }));
    schedule(answer.pollAfterMs ?? 5000);
  }

  function startPosition(position: number): number {
    const kept = Number(sessionStorage.getItem(startKey));
    const start = Math.max(kept, position);
    if (start !== kept) sessionStorage.setItem(startKey, String(start));
    return start;
  }

  function waiting(answer: QueueAnswer) {
    beaconArmed = true;
    if (flow.step !== 'step-waiting') flow.go('step-waiting');
    const paused = answer.state === 'paused';
    show('paused-note', paused);
    let spoken = '';
    if (typeof answer.position === 'number') {
      const position = answer.position;
      setText('position', String(position));
      const ahead = Math.max(0, position - 1);
      setText('ahead', ahead === 0 ? t('wait.next') : t('wait.ahead', { n: ahead }));
      const bar = byId<HTMLProgressElement>('progress');
      bar.value = Math.round(progressShare(startPosition(position), position) * 100);
      bar.setAttribute('aria-valuetext', t('wait.inLine', { position }));
      flow.title(t('wait.tabTitle', { position }));
      if (positionIsNews(lastAnnouncedPosition, position)) {
        lastAnnouncedPosition = position;
        spoken = ahead === 0 ? t('wait.nextSpoken') : t('wait.placeSpoken', { position });
      }
    }
    if (typeof answer.lineLength === 'number') setText('line-length', t('wait.lineLength', { n: answer.lineLength }));
    if (typeof answer.seatsLeft === 'number') {
      setText('line-seats-left', seatsWords(answer.seatsLeft, answer.seatsLikelyGone === true));
      show('line-seats-left', true);
    }
    if (answer.queueId) {
      setText('queue-id', answer.queueId);
      show('queue-id-note', true);
    }
    if (paused) {
      eta.reset();
      setText('eta', t('wait.pausedEta'));
      setText('eta-why', '');
    } else {
      const reading = eta.update(typeof answer.etaSeconds === 'number' ? answer.etaSeconds : null, Date.now());
      setText('eta', reading.seconds === null ? t('sale.waiting.calculating') : duration(reading.seconds));
      // Said only on the reading that saw the change: a steady line clears it.
      setText('eta-why', trendWords(reading.trend));
      if (spoken && reading.seconds !== null) spoken += t('wait.etaSpoken', { eta: duration(reading.seconds) });
    }
    if (paused !== wasPaused) {
      spoken = paused ? t('wait.pausedSpoken') : t('wait.resumedSpoken', { rest: spoken });
      wasPaused = paused;
    }
    if (spoken) flow.announce(spoken.trim());
    // Near a pause or resume the buyer wants news quickly; far back the server's slow pace is fine.
    schedule(Math.min(answer.pollAfterMs ?? 2000, paused ? 5000 : 30_000));
  }

  function startCountdown(elementId: string) {
    if (countdownTimer) clearInterval(countdownTimer);
    const tick = () => {
      const left = opensAt - serverNow();
      setText(elementId, left > 0 ? clock(left) : t('wait.openingNow'));
      if (left <= 0 && countdownTimer) {
        clearInterval(countdownTimer);
        countdownTimer = null;
        if (flow.step === 'step-prequeue') schedule(500);
      }
    };
    tick();
    countdownTimer = setInterval(tick, 1000);
  }

  /** Opt-in only (a checkbox the buyer ticks): a system notification when the turn comes. */
  function notifyTurn() {
    const box = document.getElementById('notify-me') as HTMLInputElement | null;
    if (
      !box?.checked ||
      typeof Notification === 'undefined' ||
      Notification.permission !== 'granted' ||
      !document.hidden
    )
      return;
    try {
      new Notification(t('turn.yours'), { body: t('turn.notifyBody') });
    } catch {
      // Some browsers allow notifications only from a service worker: the title still says it.
    }
  }

  function showStart() {
    stopPolling();
    flow.go('step-start');
    if (opensAt > serverNow()) startCountdown('start-countdown');
  }

  function updatedAgoTicker() {
    setInterval(() => {
      if (lastAnswerMs && (flow.step === 'step-waiting' || flow.step === 'step-prequeue'))
        setText('last-updated', ago(Date.now() - lastAnswerMs));
    }, 1000);
  }

  function wire() {
    offerKeptReceipt(id);
    byId('join-button').addEventListener('click', join);
    byId('rejoin-button').addEventListener('click', () => {
      sessionStorage.removeItem(startKey);
      lastAnnouncedPosition = null;
      eta.reset();
      showStart();
    });
    document.getElementById('notify-me')?.addEventListener('change', (event) => {
      const box = event.target as HTMLInputElement;
      if (box.checked && typeof Notification !== 'undefined' && Notification.permission === 'default') {
        void Notification.requestPermission().then((answer) => {
          if (answer !== 'granted') box.checked = false;
        });
      }
    });
    // Leaving while waiting gives the place up at once (the edge defers it briefly: a reload keeps it).
    window.addEventListener('pagehide', () => {
      if (beaconArmed && navigator.sendBeacon)
        navigator.sendBeacon(`/showtimes/${id}/leave?view=${encodeURIComponent(flow.root.dataset.view ?? '')}`);
    });
    flow.onEnded(() => {
      stopPolling();
      beaconArmed = false;
    });
    status.onLineCheck(() => {
      if (flow.step === 'step-waiting' || flow.step === 'step-prequeue') schedule(0);
    });
    // The start step's words follow the sale: "Join the pre-queue" becomes "Join the line".
    status.onChange((state) => {
      // The sale moved (the catalog is read every few seconds): a buyer in line asks the room now
      // instead of at the pace of a long wait, so a pause or a resume shows at once.
      if (flow.step === 'step-waiting' && (state === 'paused' || state === 'on_sale')) {
        schedule(0);
        return;
      }
      if (flow.step !== 'step-start') return;
      if (state === 'on_sale' || state === 'paused') {
        setText('start-title', t('sale.joinLine'));
        setText('join-button', t('sale.joinLine'));
        show('start-opening', false);
        show('start-open', true);
      }
      if (state === 'closed' || state === 'started')
        flow.ended(t('closed.title'), state === 'started' ? t('closed.started') : t('closed.text'), false);
    });
    updatedAgoTicker();
  }

  return { wire, poll, showStart, stop: stopPolling };
}

/** What the line is told of the seats: how many are left, and when the sale is effectively over for this place. */
export function seatsWords(seatsLeft: number, likelyGone: boolean): string {
  if (seatsLeft <= 0) return t('wait.soldAll');
  const left = t('wait.seatsLeft', { n: seatsLeft });
  return likelyGone ? t('wait.likelyGone', { left }) : left;
}

/** Whether this buyer holds a confirmed booking for the showtime: the service's list, else this browser's memo. */
export async function hasBooking(showtimeId: string): Promise<boolean> {
  const listed = await api<{ bookings: { showtimeId: number | string; status: string }[] }>('GET', '/api/bookings');
  if (listed.ok && Array.isArray(listed.json?.bookings))
    return listed.json.bookings.some((b) => String(b.showtimeId) === showtimeId && b.status === 'CONFIRMED');
  return storedBookings().some((b) => b.showtimeId === showtimeId);
}
