// @ts-check
/**
 * Shim of `k6/http`: synchronous requests through the main thread, k6's canonical header
 * names on responses, `expectedStatuses` feeding `http_req_failed`, answers counted per
 * `endpoint` tag. Cookie jars are accepted and ignored (the journey sends tokens in headers).
 * Bodies follow k6: `responseType: 'none'`, or no responseType under the script's
 * `discardResponseBodies`, gives a null body, so a script cannot read what it told k6 to drop.
 */
import { addAnswer, addSample, config, exchange, timing } from './state.js';

/** @typedef {number | { min: number, max: number }} StatusSpec */

/** @param {...StatusSpec} specs */
export function expectedStatuses(...specs) {
  return { specs };
}
let defaultCallback = expectedStatuses({ min: 200, max: 399 });
/** @param {{ specs: StatusSpec[] }} callback */
export function setResponseCallback(callback) {
  defaultCallback = callback;
}

export class CookieJar {}

/** 'retry-after' → 'Retry-After', as Go's net/http canonicalises them. @param {string} name */
const canonical = (name) =>
  name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1).toLowerCase())
    .join('-');

/**
 * @param {string} method @param {string} url @param {string | null | undefined} body
 * @param {{ headers?: Record<string, string>, tags?: Record<string, string>, responseCallback?: { specs: StatusSpec[] }, timeout?: string, responseType?: string }} [params]
 */
export function request(method, url, body, params = {}) {
  const started = Date.now();
  let answer;
  try {
    answer = exchange({ method, url, headers: params.headers ?? {}, body: body ?? null, timeoutMs: 10_000 });
  } catch (_) {
    answer = { status: 0, headers: {}, body: '' };
  }
  /** @type {Record<string, string>} */
  const headers = {};
  for (const [name, value] of Object.entries(answer.headers)) headers[canonical(name)] = value;
  const callback = params.responseCallback ?? defaultCallback;
  const expected = callback.specs.some((spec) =>
    typeof spec === 'number' ? spec === answer.status : answer.status >= spec.min && answer.status <= spec.max,
  );
  addSample('http_reqs', 'counter', 1);
  addSample('http_req_failed', 'rate', expected ? 0 : 1);
  addSample(`http_req_duration{endpoint:${params.tags?.endpoint ?? ''}}`, 'trend', Date.now() - started);
  if (params.tags?.phase)
    addSample(
      `http_req_duration{endpoint:${params.tags?.endpoint ?? ''},phase:${params.tags.phase}}`,
      'trend',
      Date.now() - started,
    );
  addSample(`http_reqs{phase:${params.tags?.phase ?? ''}}`, 'counter', 1);
  addAnswer(params.tags?.endpoint ?? url, answer.status);
  const discarded =
    params.responseType === 'none' || (params.responseType === undefined && config.discardResponseBodies);
  if (!discarded)
    addSample(`shim_body_bytes_to_script{endpoint:${params.tags?.endpoint ?? ''}}`, 'counter', answer.body.length);
  return {
    status: answer.status,
    body: discarded ? null : answer.body,
    headers,
    /** @param {string} [selector] */
    json: (selector) => {
      if (discarded) throw new Error('k6 shim: the response body was discarded (responseType none)');
      if (selector === undefined) return JSON.parse(answer.body);
      // k6 evaluates a selector in Go (gjson) without a JS parse: the transport's time here too.
      const started = performance.now();
      try {
        return select(JSON.parse(answer.body), selector);
      } finally {
        timing.blockedMs += performance.now() - started;
      }
    },
  };
}

/**
 * The part of gjson's path syntax the scripts use: `a.b.c`, and `a.#(field=="value")#` (every
 * element of array `a` whose `field` equals the string). Anything else throws, so a script
 * cannot come to rely on syntax this shim would get wrong.
 * @param {any} value @param {string} selector
 */
function select(value, selector) {
  const query = /^([\w.]+)\.#\((\w+)=="([^"]*)"\)#$/.exec(selector);
  const path = query ? String(query[1]) : selector;
  if (!/^\w+(\.\w+)*$/.test(path)) throw new Error(`k6 shim: gjson selector not supported: ${selector}`);
  let at = value;
  for (const key of path.split('.')) at = at === null || at === undefined ? undefined : at[key];
  if (!query) return at;
  const [, , field, wanted] = query;
  return Array.isArray(at)
    ? at.filter((item) => item !== null && typeof item === 'object' && item[/** @type {string} */ (field)] === wanted)
    : [];
}

/** @param {string} url @param {any} [params] */
export const get = (url, params) => request('GET', url, null, params);
/** @param {string} url @param {string | null} [body] @param {any} [params] */
export const post = (url, body, params) => request('POST', url, body, params);
/** @param {string} url @param {string | null} [body] @param {any} [params] */
export const del = (url, body, params) => request('DELETE', url, body, params);

export default { request, get, post, del, expectedStatuses, setResponseCallback, CookieJar };
