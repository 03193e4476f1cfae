// @ts-check
/**
 * Runs one k6 script in this worker thread as a single VU: registers the k6 shims, sets
 * `__ENV`, runs setup() (or takes the data it is given), the scenario's exec function for a
 * number of iterations or until a deadline, the script's `drain` scenario, teardown() and
 * handleSummary(), then reports metrics and answers. Each phase can be left out, so several
 * workers can play the VUs of one run (setup in one, two scenarios side by side, teardown).
 */
import { register } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

register(new URL('./hooks.js', import.meta.url).href);
const state = await import('./state.js');
state.bridge.port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);

/** @type {{ script: string, exec: string | null, env: Record<string, string>, iterations: number, maxMs: number, setup: boolean, data: any, drain: boolean, teardown: boolean }} */
const job = workerData;
/** @type {any} */ (globalThis).__ENV = job.env;
/** @type {any} */ (globalThis).__VU = 1;

const module = await import(job.script);
state.config.discardResponseBodies = Boolean(module.options?.discardResponseBodies);
const data = job.setup && module.setup ? module.setup() : job.data;
const deadline = Date.now() + job.maxMs;
let ran = 0;
const before = { ...state.timing };
const started = performance.now();
for (; job.exec && ran < job.iterations && Date.now() < deadline; ran++) {
  /** @type {any} */ (globalThis).__ITER = ran;
  const answersBefore = state.requestsMade();
  module[job.exec](data);
  // k6 paces iterations (an arrival-rate executor); this loop does not. An iteration that sent
  // nothing (no buyer due) waits a little, so it cannot spin through the iteration budget.
  if (state.requestsMade() === answersBefore) state.block(5);
}
const execMs = performance.now() - started;
// The script's own time in the iterations: neither waiting on an answer nor sleeping.
const scriptMs = execMs - (state.timing.blockedMs - before.blockedMs) - (state.timing.sleptMs - before.sleptMs);
const drainStarted = performance.now();
if (job.drain && module.drain) module.drain(data);
const drainMs = performance.now() - drainStarted;
if (job.teardown && module.teardown) module.teardown(data);
const summary = job.teardown && module.handleSummary ? module.handleSummary({ metrics: {} }) : null;

parentPort?.postMessage({
  type: 'done',
  ran,
  execMs,
  scriptMs,
  drainMs,
  setupData: data,
  options: JSON.parse(JSON.stringify(module.options ?? {})),
  exports: Object.keys(module),
  summaryKeys: summary ? Object.keys(summary) : [],
  summaryStdout: summary ? summary.stdout : null,
  metrics: Object.fromEntries(
    [...state.metrics].map(([name, m]) => [
      name,
      { type: m.type, count: m.count, sum: m.sum, max: m.values.length ? Math.max(...m.values) : null },
    ]),
  ),
  http: Object.fromEntries([...state.http].map(([endpoint, statuses]) => [endpoint, Object.fromEntries(statuses)])),
  failures: state.failures,
});
