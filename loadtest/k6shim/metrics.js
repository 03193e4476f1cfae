// @ts-check
/**
 * Shim of `k6/metrics`: samples are recorded in the worker and reported at the end, under the
 * metric's name and, for an `endpoint` or `phase` tag, under `name{endpoint:x}` / `name{phase:x}`
 * as a k6 threshold would select them.
 */
import { addSample } from './state.js';

class Metric {
  /** @param {string} name @param {string} type */
  constructor(name, type) {
    this.name = name;
    this.type = type;
  }

  /** @param {number | boolean} value @param {Record<string, string>} [tags] */
  add(value, tags) {
    addSample(this.name, this.type, Number(value));
    if (tags?.endpoint) addSample(`${this.name}{endpoint:${tags.endpoint}}`, this.type, Number(value));
    if (tags?.phase) addSample(`${this.name}{phase:${tags.phase}}`, this.type, Number(value));
  }
}

export class Counter extends Metric {
  /** @param {string} name */
  constructor(name) {
    super(name, 'counter');
  }
}
export class Trend extends Metric {
  /** @param {string} name @param {boolean} [_isTime] */
  constructor(name, _isTime) {
    super(name, 'trend');
  }
}
export class Rate extends Metric {
  /** @param {string} name */
  constructor(name) {
    super(name, 'rate');
  }
}
export class Gauge extends Metric {
  /** @param {string} name */
  constructor(name) {
    super(name, 'gauge');
  }
}
