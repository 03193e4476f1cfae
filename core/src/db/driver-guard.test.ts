import { describe, expect, it } from 'vitest';
import { isDriverCloseRace } from './driver-guard';

describe('the postgres.js close-race guard', () => {
  it("recognises exactly the driver's write after close", () => {
    const race = new TypeError("Cannot read properties of null (reading 'write')");
    race.stack = `TypeError: Cannot read properties of null (reading 'write')
    at Immediate.nextWrite (file:///app/node_modules/postgres/src/connection.js:255:22)
    at process.processImmediate (node:internal/timers:483:21)`;
    expect(isDriverCloseRace(race)).toBe(true);
  });
  it('lets every other error crash as usual', () => {
    const ours = new TypeError("Cannot read properties of null (reading 'write')");
    ours.stack = 'TypeError: …\n    at writeReport (file:///app/core/src/report.ts:1:1)';
    expect(isDriverCloseRace(ours)).toBe(false);
    expect(isDriverCloseRace(new Error('boom'))).toBe(false);
    expect(isDriverCloseRace(null)).toBe(false);
  });
});
