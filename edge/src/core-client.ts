/**
 * Talks to the core: forwards purchase requests (hop-by-hop headers stripped, request id
 * passed on, body byte for byte) and reads the catalog. A core that cannot be reached or
 * does not answer in time becomes 503 with Retry-After, never a hung buyer or a 500.
 * A bulkhead bounds the calls in flight (CORE_CALLS_IN_FLIGHT): one more is answered 503 BUSY
 * at once rather than queued behind a slow core. A call whose client has gone (its request's
 * signal aborted) is not sent, or is abandoned, and answers 499 CLIENT_CLOSED_REQUEST, which
 * nobody reads and no core-failure count or 5xx ratio sees.
 */
import { AppError, unavailable } from '../../lib/errors';

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
const REQUEST_ONLY_HERE = new Set(['cookie', 'x-queue-token', 'x-customer-token', 'x-showtime-id', 'forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto']);
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
  /** Calls in flight at most (0 or absent: no limit); one more is refused with 503 BUSY. */
  maxInFlight?: number;
  /** A call not made: the bulkhead was full, or its client had gone. */
  onShed?: (reason: 'core_bulkhead' | 'client_gone') => void;
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
}

export function createCoreClient(options: CoreClientOptions) {
  const fetchImpl = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const base = options.baseUrl.replace(/\/+$/, '');

  const maxInFlight = options.maxInFlight ?? 0;
  let inFlight = 0;
  const clientGone = () => {
    options.onShed?.('client_gone');
    return new AppError('CLIENT_CLOSED_REQUEST', 'The client went away before the seat service was asked');
  };

  async function send(url: string, init: RequestInit, clientSignal?: AbortSignal): Promise<Response> {
    if (clientSignal?.aborted) throw clientGone();
    if (maxInFlight > 0 && inFlight >= maxInFlight) {
      options.onShed?.('core_bulkhead');
      throw unavailable('BUSY', 'Too many requests to the seat service are under way; try again shortly', CORE_RETRY_AFTER_SECONDS);
    }
    if (options.serviceToken) {
      const headers = new Headers(init.headers);
      headers.set('x-service-token', options.serviceToken);
      init = { ...init, headers };
    }
    const timeout = AbortSignal.timeout(options.timeoutMs);
    inFlight++;
    try {
      return await fetchImpl(url, { ...init, signal: clientSignal ? AbortSignal.any([timeout, clientSignal]) : timeout, redirect: 'manual' });
    } catch (error) {
      if (clientSignal?.aborted) throw clientGone();
      options.onFailure?.(error);
      throw unavailable('CORE_UNAVAILABLE', 'The seat service is not answering; try again shortly', CORE_RETRY_AFTER_SECONDS);
    } finally {
      inFlight--;
    }
  }

  return {
    /** Calls to the core this process has in flight now (the bulkhead's count). */
    inFlight: () => inFlight,

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
        { method: request.method, headers, ...(request.body && request.body.byteLength > 0 ? { body: request.body } : {}) },
        request.signal,
      );
      const answered = stripHopByHop(response.headers, RESPONSE_DROP);
      answered.set('x-request-id', request.requestId);
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers: answered });
    },

    /**
     * An operator call to the core's sale control (admin token added), answered as status and
     * parsed JSON body, errors included: the caller passes the core's refusal on as it is.
     */
    async adminJson<T>(method: string, path: string, options_: { body?: unknown; headers?: Record<string, string> } = {}): Promise<{ status: number; body: T }> {
      const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${options.adminToken ?? ''}`, ...options_.headers };
      if (options_.body !== undefined) headers['content-type'] = 'application/json';
      const response = await send(`${base}${path}`, { method, headers, ...(options_.body !== undefined ? { body: JSON.stringify(options_.body) } : {}) });
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
      const response = await send(`${base}${path}`, { method: 'GET', headers: { accept: 'application/json', ...headers } });
      if (!response.ok) {
        await response.body?.cancel();
        return { status: response.status, body: null };
      }
      return { status: response.status, body: (await response.json()) as T };
    },
  };
}

export type CoreClient = ReturnType<typeof createCoreClient>;
