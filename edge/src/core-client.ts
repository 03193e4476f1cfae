/**
 * Talks to the core: forwards purchase requests (hop-by-hop headers stripped, request id
 * passed on, body byte for byte) and reads the catalog. A core that cannot be reached or
 * does not answer in time becomes 503 with Retry-After, never a hung buyer or a 500.
 * A bulkhead bounds the calls in flight (CORE_CALLS_IN_FLIGHT); one more waits its turn for a
 * bounded time (CORE_QUEUE_WAIT_MS) and is answered 503 BUSY only when the core cannot serve it
 * in time, and one customer may have only a few calls under way (net/core-bulkhead.ts). A call
 * whose client has gone (its request's signal aborted) is not sent, or is abandoned, and
 * answers 499 CLIENT_CLOSED_REQUEST, which nobody reads and no core-failure count or 5xx ratio sees.
 */
import { AppError, unavailable } from '../../lib/errors';
import { createCoreBulkhead, type BulkheadShedReason } from './net/core-bulkhead';

/** RFC 9110 §7.6.1, plus the headers a fetch re-computes or must not pass on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);
/** Never forwarded to the core: the edge's own cookies and client-supplied forwarding claims. */
const REQUEST_ONLY_HERE = new Set([
  'cookie',
  'x-queue-token',
  'x-customer-token',
  'x-showtime-id',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
]);
/** fetch has already decoded the body, so its encoding header no longer applies. */
const RESPONSE_DROP = new Set(['content-encoding']);

export const CORE_RETRY_AFTER_SECONDS = 2;

export function stripHopByHop(headers: Headers, extra: Set<string> = new Set()): Headers {
  const listed = new Set(
    (headers.get('connection') ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
  const out = new Headers();
  headers.forEach((value, name) => {
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || listed.has(lower) || extra.has(lower)) return;
    out.append(name, value);
  });
  return out;
}

export interface CoreClientOptions {
  baseUrl: string;
  timeoutMs: number;
  fetch?: typeof fetch;
  onFailure?: (error: unknown) => void;
  /** The edge's credential at the core (X-Service-Token). */
  serviceToken?: string | null;
  /** The operator token, for the core's sale-control routes. */
  adminToken?: string;
  /** Calls in flight at most (0 or absent: no limit); one more waits up to `maxWaitMs`. */
  maxInFlight?: number;
  /** How long a call may wait for a slot (0: refused at once when the bulkhead is full). */
  maxWaitMs?: number;
  /** Calls one customer may have running or waiting (0 or absent: no limit); one more is 429. */
  perCallerInFlight?: number;
  /** A call not made: the bulkhead was full or too slow, the caller had too many under way, or its client had gone. */
  onShed?: (reason: BulkheadShedReason | 'client_gone') => void;
}

export interface ForwardOptions {
  method: string;
  path: string;
  headers: Headers;
  body: ArrayBuffer | null;
  requestId: string;
  /** Sent as the core's traceparent (lib/trace-context.ts): the edge's span is its parent. */
  traceparent?: string;
  clientAddress: string | null;
  /** Replaces any Authorization the client sent (the verified access token). */
  authorization?: string | null;
  /** The client's request: once it aborts (the client went away) the call is not made, or is abandoned. */
  signal?: AbortSignal;
  /** Who the call is for (the customer), for the per-customer bound; null: shared (a cached load). */
  caller?: string | null;
}

export function createCoreClient(options: CoreClientOptions) {
  const fetchImpl = options.fetch ?? ((input: string | URL | Request, init?: RequestInit) => fetch(input, init));
  const base = options.baseUrl.replace(/\/+$/, '');

  const bulkhead = createCoreBulkhead({
    maxInFlight: options.maxInFlight ?? 0,
    maxWaitMs: options.maxWaitMs ?? 0,
    perCallerInFlight: options.perCallerInFlight ?? 0,
    retryAfterSeconds: CORE_RETRY_AFTER_SECONDS,
    ...(options.onShed ? { onShed: options.onShed } : {}),
  });
  const clientGone = () => {
    options.onShed?.('client_gone');
    return new AppError('CLIENT_CLOSED_REQUEST', 'The client went away before the seat service was asked');
  };

  async function send(
    url: string,
    init: RequestInit,
    clientSignal?: AbortSignal,
    caller: string | null = null,
  ): Promise<Response> {
    if (clientSignal?.aborted) throw clientGone();
    const slot = await bulkhead.acquire(caller, clientSignal, clientGone);
    if (clientSignal?.aborted) {
      slot.release(false);
      throw clientGone();
    }
    if (options.serviceToken) {
      const headers = new Headers(init.headers);
      headers.set('x-service-token', options.serviceToken);
      init = { ...init, headers };
    }
    const timeout = AbortSignal.timeout(options.timeoutMs);
    let answered = false;
    try {
      const response = await fetchImpl(url, {
        ...init,
        signal: clientSignal ? AbortSignal.any([timeout, clientSignal]) : timeout,
        redirect: 'manual',
      });
      answered = true;
      return response;
    } catch (error) {
      if (clientSignal?.aborted) throw clientGone();
      options.onFailure?.(error);
      throw unavailable(
        'CORE_UNAVAILABLE',
        'The seat service is not answering; try again shortly',
        CORE_RETRY_AFTER_SECONDS,
      );
    } finally {
      // A failed call counts at its full time (a timeout is what the next caller would face);
      // one its client abandoned says nothing about the core.
      slot.release(answered || !clientSignal?.aborted);
    }
  }

  return {
    /** Calls to the core this process has in flight now (the bulkhead's count). */
    inFlight: () => bulkhead.inFlight(),
    /** Calls waiting for a slot now. */
    waiting: () => bulkhead.waiting(),
    /** The core's latency as this process measures it (moving average over recent calls), ms. */
    latencyMs: () => bulkhead.latencyMs(),

    async forward(request: ForwardOptions): Promise<Response> {
      const headers = stripHopByHop(request.headers, REQUEST_ONLY_HERE);
      headers.set('x-request-id', request.requestId);
      if (request.traceparent) headers.set('traceparent', request.traceparent);
      if (request.clientAddress) headers.set('x-forwarded-for', request.clientAddress);
      if (request.authorization !== undefined) {
        if (request.authorization) headers.set('authorization', request.authorization);
        else headers.delete('authorization');
      }
      const response = await send(
        `${base}${request.path}`,
        {
          method: request.method,
          headers,
          ...(request.body && request.body.byteLength > 0 ? { body: request.body } : {}),
        },
        request.signal,
        request.caller ?? null,
      );
      const answered = stripHopByHop(response.headers, RESPONSE_DROP);
      answered.set('x-request-id', request.requestId);
      return new Response(response.body, {
        status: response.status,
        statusText: response.statusText,
        headers: answered,
      });
    },

    /**
     * An operator call to the core's sale control (admin token added), answered as status and
     * parsed JSON body, errors included: the caller passes the core's refusal on as it is.
     */
    async adminJson<T>(
      method: string,
      path: string,
      options_: { body?: unknown; headers?: Record<string, string> } = {},
    ): Promise<{ status: number; body: T }> {
      const headers: Record<string, string> = {
        accept: 'application/json',
        authorization: `Bearer ${options.adminToken ?? ''}`,
        ...options_.headers,
      };
      if (options_.body !== undefined) headers['content-type'] = 'application/json';
      const response = await send(`${base}${path}`, {
        method,
        headers,
        ...(options_.body !== undefined ? { body: JSON.stringify(options_.body) } : {}),
      });
      const text = await response.text();
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = null;
      }
      return { status: response.status, body: body as T };
    },

    /** GET a JSON document; non-2xx answers come back as `{status, body: null}`. */
    async getJson<T>(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: T | null }> {
      const response = await send(`${base}${path}`, {
        method: 'GET',
        headers: { accept: 'application/json', ...headers },
      });
      if (!response.ok) {
        await response.body?.cancel();
        return { status: response.status, body: null };
      }
      return { status: response.status, body: (await response.json()) as T };
    },
  };
}

export type CoreClient = ReturnType<typeof createCoreClient>;
