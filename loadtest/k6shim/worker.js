// @ts-check
/**
 * Runs one k6 script in this worker thread as a single VU: registers the k6 shims, sets
 * `__ENV`, runs setup(), the scenario's exec function for a number of iterations or until a
 * deadline, teardown() and handleSummary(), then reports metrics and answers.
 */
import { register } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

register(new URL('./hooks.js', import.meta.url).href);
const state = await import('./state.js');
state.bridge.port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);

const { script, exec, env, iterations, maxMs } = /** @type {{ script: string, exec: string, env: Record<string, string>, iterations: number, maxMs: number }} */ (workerData);
/** @type {any} */ (globalThis).__ENV = env;
/** @type {any} */ (globalThis).__VU = 1;

const module = await import(script);
const data = module.setup ? module.setup() : undefined;
const deadline = Date.now() + maxMs;
let ran = 0;
for (; ran < iterations && Date.now() < deadline; ran++) {
  /** @type {any} */ (globalThis).__ITER = ran;
  module[exec](data);
}
if (module.teardown) module.teardown(data);
const summary = module.handleSummary ? module.handleSummary({ metrics: {} }) : null;

parentPort?.postMessage({
  type: 'done',
  ran,
  setupData: data,
  options: JSON.parse(JSON.stringify(module.options ?? {})),
  exports: Object.keys(module),
  summaryKeys: summary ? Object.keys(summary) : [],
  metrics: Object.fromEntries([...state.metrics].map(([name, m]) => [name, { type: m.type, count: m.count, sum: m.sum }])),
  http: Object.fromEntries([...state.http].map(([endpoint, statuses]) => [endpoint, Object.fromEntries(statuses)])),
  failures: state.failures,
});
