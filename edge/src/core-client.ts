/**
 * Talks to the core: forwards purchase requests (hop-by-hop headers stripped, request id
 * passed on, body byte for byte) and reads the catalog. A core that cannot be reached or
 * does not answer in time becomes 503 with Retry-After, never a hung buyer or a 500.
 */
import { unavailable } from '../../lib/errors';

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
}

export function createCoreClient(options: CoreClientOptions) {
  const fetchImpl = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const base = options.baseUrl.replace(/\/+$/, '');

  async function send(url: string, init: RequestInit): Promise<Response> {
    if (options.serviceToken) {
      const headers = new Headers(init.headers);
      headers.set('x-service-token', options.serviceToken);
      init = { ...init, headers };
    }
    try {
      return await fetchImpl(url, { ...init, signal: AbortSignal.timeout(options.timeoutMs), redirect: 'manual' });
    } catch (error) {
      options.onFailure?.(error);
      throw unavailable('CORE_UNAVAILABLE', 'The seat service is not answering; try again shortly', CORE_RETRY_AFTER_SECONDS);
    }
  }

  return {
    async forward(request: ForwardOptions): Promise<Response> {
      const headers = stripHopByHop(request.headers, REQUEST_ONLY_HERE);
      headers.set('x-request-id', request.requestId);
      if (request.traceparent) headers.set('traceparent', request.traceparent);
      if (request.clientAddress) headers.set('x-forwarded-for', request.clientAddress);
      if (request.authorization !== undefined) {
        if (request.authorization) headers.set('authorization', request.authorization);
        else headers.delete('authorization');
      }
      const response = await send(`${base}${request.path}`, {
        method: request.method,
        headers,
        ...(request.body && request.body.byteLength > 0 ? { body: request.body } : {}),
      });
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
