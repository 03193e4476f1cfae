// @ts-check
/** Shim of `k6/execution`: one VU; abort throws, fail is recorded. */
import { failures } from './state.js';

export default {
  vu: { idInTest: 1, iterationInScenario: 0 },
  scenario: { name: 'shim', iterationInTest: 0 },
  test: {
    /** @param {string} [reason] */
    abort(reason) {
      throw new Error(`test aborted: ${reason ?? ''}`);
    },
    /** @param {string} [reason] */
    fail(reason) {
      failures.push(reason ?? 'exec.test.fail()');
    },
  },
};
