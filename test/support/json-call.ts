/**
 * JSON over HTTP for tests, whatever answers: `app.request` in process or `fetch` on a port.
 * One place decides how a test request is built (bearer token, JSON or raw body) and read
 * (status, parsed JSON or null, text, headers).
 */
export interface JsonCallInit {
  token?: string;
  /** Serialised as JSON (a string is sent as it is). */
  body?: unknown;
  /** Sent byte for byte (signature tests, malformed bodies). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface JsonResult {
  status: number;
  json: any;
  text: string;
  headers: Headers;
}

export type FetchLike = (path: string, init: RequestInit) => Response | Promise<Response>;

export async function callJson(
  fetchLike: FetchLike,
  method: string,
  path: string,
  init: JsonCallInit = {},
): Promise<JsonResult> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.rawBody !== undefined) body = init.rawBody;
  else if (init.body !== undefined) body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  if (body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
    headers['content-type'] = 'application/json';
  }
  const response = await fetchLike(path, { method, headers, body });
  const text = await response.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: response.status, json, text, headers: response.headers };
}

/** Against a server on a port. */
export const fetchFrom =
  (baseUrl: string): FetchLike =>
  (path, init) =>
    fetch(`${baseUrl}${path}`, init);

/** Polls `probe` until `accept` says yes or the time is up; returns the last value either way. */
export async function eventually<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
