// @ts-check
/**
 * Shim of `k6/execution`: one VU (its id from K6SHIM_VU, default 1; its scenario iteration
 * from K6SHIM_ITERATION, default 0); abort throws, fail is
 * recorded. K6SHIM_K6=0.47 leaves out `test.fail` (k6 v0.59+), as on the oldest release the
 * scripts support, so the fallback is exercised.
 */
import { failures } from './state.js';

const env = /** @type {Record<string, string>} */ (/** @type {any} */ (globalThis).__ENV || {});

/** @type {any} */
const test = {
  options: { executionSegment: env.K6SHIM_SEGMENT || null },
  /** @param {string} [reason] */
  abort(reason) {
    throw new Error(`test aborted: ${reason ?? ''}`);
  },
};
if (env.K6SHIM_K6 !== '0.47') {
  /** @param {string} [reason] */
  test.fail = (reason) => {
    failures.push(reason ?? 'exec.test.fail()');
  };
}

export default {
  vu: { idInTest: Number(env.K6SHIM_VU || 1), iterationInScenario: 0 },
  scenario: { name: 'shim', iterationInTest: Number(env.K6SHIM_ITERATION || 0) },
  test,
};
