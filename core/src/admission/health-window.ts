/**
 * The core's recent health as the waiting room's closed loop reads it (GET
 * /admin/admission-health): hold latency p95, the share of 5xx answers and the requests
 * waiting for a database connection, over the last few seconds, in memory.
 *
 * Holds still running count with their age so far: a hold stuck behind a row lock (up to the
 * lock timeout, twice retried) is slow before it ends, and the loop must hear it then.
 */
const HOLD_PATH = /^\/showtimes\/[^/]+\/holds$/;
/** Latencies kept per second (a sample beyond it replaces a random earlier one). */
const SAMPLES_PER_SECOND = 500;
/** Fewer holds than this say nothing about a p95 (one slow hold on a quiet core is not a trend). */
const MIN_HOLD_SAMPLES = 3;

interface Second {
  at: number;
  requests: number;
  errors: number;
  holds: number[];
  seenHolds: number;
}

export interface HealthReading {
  windowMs: number;
  requests: number;
  errors: number;
  errorRate: number;
  holds: number;
  holdP95Ms: number | null;
  holdsInFlight: number;
  inFlight: number;
  poolSize: number;
  poolWaiting: number;
}

export function isHoldRequest(method: string, path: string): boolean {
  return method === 'POST' && HOLD_PATH.test(path);
}

function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

export function createHealthWindow(options: { windowMs?: number; now?: () => number; random?: () => number } = {}) {
  const windowMs = options.windowMs ?? 5_000;
  const now = options.now ?? (() => performance.now());
  const random = options.random ?? Math.random;
  const seconds: Second[] = [];
  const holdsRunning = new Set<{ startedAt: number }>();
  let inFlight = 0;
  let knownPoolSize = 10;

  function current(at: number): Second {
    const second = Math.floor(at / 1000);
    let last = seconds[seconds.length - 1];
    if (!last || last.at !== second) {
      last = { at: second, requests: 0, errors: 0, holds: [], seenHolds: 0 };
      seconds.push(last);
      while (seconds.length > 0 && seconds[0]!.at <= second - Math.ceil(windowMs / 1000)) seconds.shift();
    }
    return last;
  }

  return {
    /** A request starts; call the returned function with its status when it ends. */
    begin(method: string, path: string): (status: number) => void {
      inFlight++;
      const hold = isHoldRequest(method, path) ? { startedAt: now() } : null;
      if (hold) holdsRunning.add(hold);
      return (status) => {
        inFlight--;
        const at = now();
        const second = current(at);
        second.requests++;
        if (status >= 500) second.errors++;
        if (!hold) return;
        holdsRunning.delete(hold);
        second.seenHolds++;
        const ms = at - hold.startedAt;
        if (second.holds.length < SAMPLES_PER_SECOND) second.holds.push(ms);
        else second.holds[Math.floor(random() * SAMPLES_PER_SECOND)] = ms;
      };
    },

    /** The database pool's size, for the waiters (told by the route that knows the pool). */
    setPoolSize(size: number) {
      knownPoolSize = size;
    },

    /** `excluding`: requests in flight that are not load (the caller reading this). */
    read(poolSize = knownPoolSize, excluding = 0): HealthReading {
      const at = now();
      current(at);
      let requests = 0;
      let errors = 0;
      let holds = 0;
      const latencies: number[] = [];
      for (const second of seconds) {
        requests += second.requests;
        errors += second.errors;
        holds += second.seenHolds;
        latencies.push(...second.holds);
      }
      for (const hold of holdsRunning) latencies.push(at - hold.startedAt);
      return {
        windowMs,
        requests,
        errors,
        errorRate: requests > 0 ? errors / requests : 0,
        holds,
        holdP95Ms: latencies.length >= MIN_HOLD_SAMPLES ? percentile(latencies, 0.95) : null,
        holdsInFlight: holdsRunning.size,
        inFlight,
        poolSize,
        poolWaiting: Math.max(0, inFlight - excluding - poolSize),
      };
    },
  };
}

export type HealthWindow = ReturnType<typeof createHealthWindow>;
