// @ts-check
/** Shim of `k6`: sleep, check, fail, group. */
import { addSample, block, failures } from './state.js';

/** @param {number} seconds */
export function sleep(seconds) {
  block(seconds * 1000);
}

/** @param {any} value @param {Record<string, (value: any) => boolean>} checks @param {Record<string, string>} [tags] */
export function check(value, checks, tags) {
  let all = true;
  for (const [name, test] of Object.entries(checks)) {
    const ok = Boolean(test(value));
    addSample('checks', 'rate', ok ? 1 : 0);
    addSample(`checks{check:${name}}`, 'rate', ok ? 1 : 0);
    if (tags?.endpoint) addSample(`checks{endpoint:${tags.endpoint}}`, 'rate', ok ? 1 : 0);
    all &&= ok;
  }
  return all;
}

/** @param {string} [message] @returns {never} */
export function fail(message) {
  failures.push(message ?? 'fail()');
  throw new Error(message ?? 'fail()');
}

/** @template T @param {string} _name @param {() => T} fn */
export function group(_name, fn) {
  return fn();
}

export default { sleep, check, fail, group };
