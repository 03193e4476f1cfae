/**
 * The edge's JSON API with the browser's cookies. Never throws: a network failure is
 * status 0, so every caller handles one shape. Each answer's Date header keeps a server
 * clock offset, so countdowns run on the server's clock, not on a buyer's clock that is off.
 */
export interface ApiError {
  code: string;
  message?: string;
  seats?: string[];
  [key: string]: unknown;
}

export interface ApiResult<T = unknown> {
  status: number;
  ok: boolean;
  json: (T & { error?: ApiError }) | null;
  retryAfterSeconds: number | null;
}

let clockOffsetMs = 0;

/** Now on the server's clock (Date has 1 s resolution: close enough for countdowns). */
export const serverNow = () => Date.now() + clockOffsetMs;

export async function api<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResult<T>> {
  const init: RequestInit = { method, headers: { accept: 'application/json', ...headers }, credentials: 'same-origin' };
  if (body !== undefined) {
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch {
    return { status: 0, ok: false, json: null, retryAfterSeconds: null };
  }
  const retry = Number(response.headers.get('retry-after'));
  const date = Date.parse(response.headers.get('date') ?? '');
  if (!Number.isNaN(date)) clockOffsetMs = date + 500 - Date.now();
  let json: ApiResult<T>['json'] = null;
  try {
    const text = await response.text();
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: response.status, ok: response.ok, json, retryAfterSeconds: retry > 0 ? retry : null };
}

export const errorCode = (result: ApiResult<unknown> | null | undefined): string | null =>
  result?.json?.error?.code ?? null;

/** A failure worth retrying by itself: offline, rate limited, or the service busy. */
export const isTransient = (result: ApiResult<unknown>) =>
  result.status === 0 || result.status === 429 || result.status >= 500;
