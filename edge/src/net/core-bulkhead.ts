/**
 * The edge's bulkhead in front of the core: at most `maxInFlight` calls at once, and a call
 * beyond that waits its turn (first come, first served) instead of being refused on the spot.
 * Who may compete for a seat is then decided by the database, not by how many requests this
 * process happened to have in flight at that instant.
 *
 * A wait is bounded: a call is refused (503 BUSY) at once when the wait it faces, worked out
 * from the core's measured latency and the calls ahead of it, would pass `maxWaitMs`, and is
 * refused when it has waited `maxWaitMs` without a slot (the core slowed down meanwhile). So
 * a healthy core absorbs a stampede in a few rounds of its own latency, and a stalled core
 * sheds quickly rather than stacking up buyers who will have given up.
 *
 * One caller (a customer) may have at most `perCallerInFlight` calls running or waiting: the
 * next is answered 429 at once, so one token firing many requests cannot fill the slots
 * everyone else needs.
 */
import { AppError, unavailable } from '../../../lib/errors';

export type BulkheadShedReason = 'core_bulkhead' | 'core_queue_timeout' | 'caller_in_flight';

export interface CoreBulkheadOptions {
  /** Calls in flight at most (0: no limit, nothing waits). */
  maxInFlight: number;
  /** How long a call may wait for a slot (0: refused at once when every slot is taken). */
  maxWaitMs: number;
  /** Calls one caller may have running or waiting (0: no limit). */
  perCallerInFlight: number;
  /** Until calls have been measured: how long one is expected to take. */
  initialLatencyMs?: number;
  /** Seconds a refused caller is told to wait. */
  retryAfterSeconds: number;
  onShed?: (reason: BulkheadShedReason) => void;
  now?: () => number;
}

export interface BulkheadSlot {
  /** Frees the slot for the next waiter; `measured` false: the call says nothing about latency (it was abandoned). */
  release(measured?: boolean): void;
}

interface Waiter {
  caller: string | null;
  grant: (slot: BulkheadSlot) => void;
  settled: boolean;
}

/** Weight of the newest call in the latency average: a few dozen calls make the estimate. */
const LATENCY_WEIGHT = 0.1;

export function createCoreBulkhead(options: CoreBulkheadOptions) {
  const now = options.now ?? (() => performance.now());
  const { maxInFlight, maxWaitMs, perCallerInFlight } = options;
  let inFlight = 0;
  // Sum of the running calls' start times: their mean age in O(1).
  let startedAtSum = 0;
  let latencyMs = options.initialLatencyMs ?? 50;
  // FIFO as an array and a head index: shift() would copy the array on every hand-on.
  let waiters: Waiter[] = [];
  let head = 0;
  let waiting = 0;
  const perCaller = new Map<string, number>();

  const busy = (reason: BulkheadShedReason, message: string) => {
    options.onShed?.(reason);
    return unavailable('BUSY', message, options.retryAfterSeconds);
  };

  function countCaller(caller: string | null, delta: number) {
    if (caller === null || perCallerInFlight <= 0) return;
    const next = (perCaller.get(caller) ?? 0) + delta;
    if (next <= 0) perCaller.delete(caller);
    else perCaller.set(caller, next);
  }

  function slotFor(caller: string | null): BulkheadSlot {
    const startedAt = now();
    startedAtSum += startedAt;
    let released = false;
    return {
      release(measured = true) {
        if (released) return;
        released = true;
        if (measured) latencyMs += (Math.max(0, now() - startedAt) - latencyMs) * LATENCY_WEIGHT;
        startedAtSum -= startedAt;
        countCaller(caller, -1);
        inFlight--;
        handOn();
      },
    };
  }

  /** A freed slot goes to the longest-waiting call still waiting. */
  function handOn() {
    while (head < waiters.length && (maxInFlight <= 0 || inFlight < maxInFlight)) {
      const next = waiters[head++] as Waiter;
      if (next.settled) continue;
      next.settled = true;
      waiting--;
      inFlight++;
      next.grant(slotFor(next.caller));
    }
    if (head > 1024 && head * 2 > waiters.length) {
      waiters = waiters.slice(head);
      head = 0;
    }
  }

  /**
   * The wait a call joining the queue now can expect: its place over the rate slots free up.
   * Calls that have already run longer than the measured latency (a core that just stalled)
   * say more than the average of the calls that ended, so their mean age counts when larger.
   */
  const expectedWaitMs = () => {
    const meanAgeMs = inFlight > 0 ? now() - startedAtSum / inFlight : 0;
    return ((waiting + 1) * Math.max(latencyMs, meanAgeMs)) / maxInFlight;
  };

  return {
    /**
     * A slot for one call, now or after a bounded wait. Refused with 429 (the caller has too
     * many calls under way) or 503 BUSY (no slot in time); a client gone while waiting gets
     * `onGone()`'s error and its place is given up.
     */
    acquire(caller: string | null, signal: AbortSignal | undefined, onGone: () => AppError): Promise<BulkheadSlot> {
      if (caller !== null && perCallerInFlight > 0 && (perCaller.get(caller) ?? 0) >= perCallerInFlight) {
        options.onShed?.('caller_in_flight');
        return Promise.reject(
          new AppError(
            'RATE_LIMITED',
            `You already have ${perCallerInFlight} requests to the seat service under way; wait for their answers`,
            {
              retryAfterSeconds: 1,
            },
          ),
        );
      }
      if (maxInFlight <= 0 || (inFlight < maxInFlight && waiting === 0)) {
        inFlight++;
        countCaller(caller, 1);
        return Promise.resolve(slotFor(caller));
      }
      if (maxWaitMs <= 0 || expectedWaitMs() > maxWaitMs) {
        return Promise.reject(
          busy('core_bulkhead', 'Too many requests to the seat service are under way; try again shortly'),
        );
      }
      countCaller(caller, 1);
      return new Promise<BulkheadSlot>((resolve, reject) => {
        const giveUp = (error: AppError) => {
          if (waiter.settled) return;
          waiter.settled = true;
          waiting--;
          countCaller(caller, -1);
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        };
        const onAbort = () => giveUp(onGone());
        const waiter: Waiter = {
          caller,
          settled: false,
          grant: (slot) => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            resolve(slot);
          },
        };
        const timer = setTimeout(
          () => giveUp(busy('core_queue_timeout', 'The seat service is answering slowly right now; try again shortly')),
          maxWaitMs,
        );
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.push(waiter);
        waiting++;
      });
    },
    inFlight: () => inFlight,
    waiting: () => waiting,
    /** The core's latency as this process measures it (moving average), ms. */
    latencyMs: () => latencyMs,
  };
}

export type CoreBulkhead = ReturnType<typeof createCoreBulkhead>;
