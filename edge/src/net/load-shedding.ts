/**
 * Node only: load shedding at the front of the edge's listener chain (node.ts), so an edge
 * starved of CPU or facing a retry storm keeps answering /healthz, polls and quick refusals
 * instead of working through a backlog whose buyers have long given up.
 *
 * - Event-loop lag: a timer samples how late it runs (every 100 ms). The lag is the lesser of
 *   the last two samples, so one long pause (a garbage collection, a descheduled process) does
 *   not count, a loop that stays slow does. Requests read a number the timer keeps; they do no
 *   measuring themselves.
 * - Above SHED_LAG_MS the costly requests (joins, holds, checkout, hold and booking reads and
 *   cancels, demo logins) are answered 503 BUSY with Retry-After at once. Everything else is
 *   served as usual: /healthz (answered here, saying it is shedding), polls (most from the
 *   snapshot, no Redis call), leaves (they free slots), seat maps and the showtime list (cached,
 *   one core call a second at most), the payment callback, operator routes and pages. A costly
 *   request without credentials still reaches its route, which refuses it cheaply (401).
 * - Under pressure (lag above a quarter of SHED_LAG_MS) a costly request waits one turn of the
 *   event loop before it starts, and is dropped if its client has gone by then: a client that
 *   gave up closed its connection, and the close is read one loop turn after the request.
 * - A request whose connection is already closed is dropped before any work (no Redis call, no
 *   core call). The core client (core-client.ts) also drops or abandons a call whose client has
 *   gone, and keeps at most CORE_CALLS_IN_FLIGHT calls in flight.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, errorResponseBody } from '../../../lib/errors';
import { incomingRequestId } from '../../../lib/http';
import type { EdgeMetrics } from '../metrics';

type Listener = (request: IncomingMessage, response: ServerResponse) => unknown;

/** What the lag monitor keeps: read by every request, written by its timer. */
export interface LoadState {
  /** Sustained event-loop lag, ms. */
  readonly lagMs: number;
  /** Lag above SHED_LAG_MS: costly requests are answered 503. */
  readonly shedding: boolean;
  /** Lag above a quarter of SHED_LAG_MS: costly requests wait a loop turn and are dropped if their client left. */
  readonly pressed: boolean;
}

export interface LagMonitor extends LoadState {
  stop(): void;
}

export const LAG_SAMPLE_MS = 100;

/**
 * The load state from the timer's delays, one sample at a time: the lag is the lesser of the
 * last two delays. `thresholdMs` 0 turns shedding off (the lag is still kept).
 */
export function lagSampler(thresholdMs: number) {
  let previousDelay = 0;
  const state = {
    lagMs: 0,
    shedding: false,
    pressed: false,
    sample(delayMs: number) {
      state.lagMs = Math.min(delayMs, previousDelay);
      previousDelay = delayMs;
      state.shedding = thresholdMs > 0 && state.lagMs >= thresholdMs;
      state.pressed = thresholdMs > 0 && state.lagMs >= thresholdMs / 4;
    },
  };
  return state;
}

/** Samples event-loop lag with a timer (unref'd). `onSample` runs after each sample (metrics). */
export function startLagMonitor(options: {
  thresholdMs: number;
  sampleMs?: number;
  onSample?: (state: LoadState) => void;
}): LagMonitor {
  const sampleMs = options.sampleMs ?? LAG_SAMPLE_MS;
  const sampler = lagSampler(options.thresholdMs);
  let expected = performance.now() + sampleMs;
  const timer = setInterval(() => {
    const now = performance.now();
    sampler.sample(Math.max(0, now - expected));
    expected = now + sampleMs;
    options.onSample?.(sampler);
  }, sampleMs);
  timer.unref();
  return Object.assign(sampler, { stop: () => clearInterval(timer) });
}

/** Seconds a shed client should wait: a second more than the lag, 1 to 10. */
export function retryAfterSecondsFor(lagMs: number): number {
  return Math.min(10, Math.max(1, 1 + Math.ceil(lagMs / 1000)));
}

// Costly: what starts Redis or core work for one buyer. Shapes a route would refuse (a
// malformed id) are not matched, so they still get their 404.
const COSTLY_POST =
  /^\/api\/(?:showtimes\/\d{1,15}\/(?:queue|holds)|holds\/[A-Za-z0-9_-]{1,100}\/checkout|auth\/demo)(?:\?|$)/;
const COSTLY_READ_OR_CANCEL =
  /^\/api\/(?:holds|bookings)\/[A-Za-z0-9_-]{1,100}(?:\/cancellation)?(?:\?|$)|^\/api\/bookings(?:\?|$)/;
const DEMO_LOGIN = /^\/api\/auth\/demo(?:\?|$)/;

export function isCostly(method: string | undefined, url: string): boolean {
  if (method === 'POST') return COSTLY_POST.test(url);
  if (method === 'GET' || method === 'DELETE') return COSTLY_READ_OR_CANCEL.test(url);
  return false;
}

/** A request without any credentials is refused by its route at once (401): not worth shedding. */
const carriesCredentials = (request: IncomingMessage, url: string) =>
  request.headers.authorization !== undefined || request.headers.cookie !== undefined || DEMO_LOGIN.test(url);

/** Its client has gone: the connection was closed or its reading side ended. */
export const clientGone = (request: IncomingMessage) => request.socket.destroyed || request.socket.readableEnded;

export interface LoadSheddingDeps {
  load: LoadState;
  metrics: EdgeMetrics;
  /** Calls to the core in flight (the core client's bulkhead), for /healthz. */
  coreCallsInFlight: () => number;
}

export function loadSheddingListener(deps: LoadSheddingDeps, next: Listener): Listener {
  const { load, metrics } = deps;
  const gone = metrics.shedRequests.child({ reason: 'client_gone' });
  const lagged = metrics.shedRequests.child({ reason: 'event_loop_lag' });
  const healthAnswered = metrics.httpRequests.child({ route: '/healthz', method: 'GET', status: '200' });

  function drop(response: ServerResponse) {
    gone.inc();
    response.destroy();
  }

  function send(request: IncomingMessage, response: ServerResponse, status: number, body: unknown, headers: string[]) {
    const text = JSON.stringify(body);
    const requestId = incomingRequestId(request.headers['x-request-id']) ?? randomUUID();
    response.writeHead(status, [
      'content-type',
      'application/json',
      'content-length',
      String(Buffer.byteLength(text)),
      'cache-control',
      'no-store',
      'x-request-id',
      requestId,
      ...headers,
    ]);
    response.end(text);
  }

  /** Liveness: 200 while the process answers at all, saying whether it sheds. */
  function health(request: IncomingMessage, response: ServerResponse) {
    send(
      request,
      response,
      200,
      {
        status: 'ok',
        shedding: load.shedding,
        eventLoopLagMs: Math.round(load.lagMs),
        coreCallsInFlight: deps.coreCallsInFlight(),
      },
      [],
    );
    healthAnswered.inc();
  }

  function busy(request: IncomingMessage, response: ServerResponse) {
    const retryAfterSeconds = retryAfterSecondsFor(load.lagMs);
    const error = new AppError('BUSY', 'The waiting room is very busy right now; try again in a few seconds', {
      retryAfterSeconds,
    });
    send(request, response, error.status, errorResponseBody(error), ['retry-after', String(retryAfterSeconds)]);
    lagged.inc();
  }

  function start(request: IncomingMessage, response: ServerResponse, url: string) {
    if (clientGone(request)) return drop(response);
    if (load.shedding && carriesCredentials(request, url)) return busy(request, response);
    return next(request, response);
  }

  return function loadShedding(request, response) {
    if (clientGone(request)) return drop(response);
    const url = request.url ?? '';
    if (url === '/healthz' && request.method === 'GET') return health(request, response);
    if (!load.pressed || !isCostly(request.method, url)) return next(request, response);
    if (load.shedding && carriesCredentials(request, url)) return busy(request, response);
    // One loop turn: the close of a client that already gave up is read in the next poll phase.
    setImmediate(() => setImmediate(() => start(request, response, url)));
  };
}
