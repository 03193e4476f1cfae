// @ts-check
/**
 * What the shims record in the worker: metric samples, HTTP answers by endpoint tag and status,
 * and the synchronous bridge to the main thread that performs the requests.
 */

/** @type {Map<string, { type: string, count: number, sum: number, values: number[] }>} */
export const metrics = new Map();
/** @type {Map<string, Map<number, number>>} */
export const http = new Map();
export const failures = /** @type {string[]} */ ([]);
/** The script's options that change what the shims do. */
export const config = { discardResponseBodies: false };
/** Where the worker's wall time went: waiting on answers, sleeping; the rest is the script's own. */
export const timing = { blockedMs: 0, sleptMs: 0 };

/** @param {string} name @param {string} type @param {number} value */
export function addSample(name, type, value) {
  let metric = metrics.get(name);
  if (!metric) metrics.set(name, (metric = { type, count: 0, sum: 0, values: [] }));
  metric.count++;
  metric.sum += value;
  if (type === 'trend' && metric.values.length < 100_000) metric.values.push(value);
}

let answers = 0;
/** Requests answered so far in this worker. */
export const requestsMade = () => answers;

/** @param {string} endpoint @param {number} status */
export function addAnswer(endpoint, status) {
  answers++;
  let statuses = http.get(endpoint);
  if (!statuses) http.set(endpoint, (statuses = new Map()));
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
}

/** Blocks the worker for `ms` (k6's sleep is synchronous too). @param {number} ms */
export function block(ms) {
  if (ms <= 0) return;
  const started = performance.now();
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  timing.sleptMs += performance.now() - started;
}

const BUFFER_BYTES = 8 << 20;
/** @type {{ port: import('node:worker_threads').MessagePort | null }} */
export const bridge = { port: null };
const shared = new SharedArrayBuffer(8 + BUFFER_BYTES);
const flag = new Int32Array(shared, 0, 2);
const bytes = new Uint8Array(shared, 8);

/**
 * One HTTP exchange, synchronously: the main thread fetches and writes the answer back.
 * @param {{ method: string, url: string, headers: Record<string, string>, body: string | null, timeoutMs: number }} request
 * @returns {{ status: number, headers: Record<string, string>, body: string }}
 */
export function exchange(request) {
  if (!bridge.port) throw new Error('k6 shim: no bridge to the main thread');
  Atomics.store(flag, 0, 0);
  const started = performance.now();
  bridge.port.postMessage({ type: 'http', request, shared });
  Atomics.wait(flag, 0, 0);
  const length = Atomics.load(flag, 1);
  const answer = JSON.parse(new TextDecoder().decode(bytes.slice(0, length)));
  // Unpacking the answer is the transport's work (k6 does it in Go), not the script's.
  timing.blockedMs += performance.now() - started;
  return answer;
}
