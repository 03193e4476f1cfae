import { describe, expect, it } from 'vitest';
import { createHealthWindow, isHoldRequest } from './health-window';

function clockAt(start = 100_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('the core health window', () => {
  it('knows a hold when it sees one', () => {
    expect(isHoldRequest('POST', '/showtimes/42/holds')).toBe(true);
    expect(isHoldRequest('GET', '/showtimes/42/holds')).toBe(false);
    expect(isHoldRequest('POST', '/holds/abc/checkout')).toBe(false);
  });

  it('reports hold p95, the 5xx share and requests beyond the pool over the last seconds', () => {
    const clock = clockAt();
    const window = createHealthWindow({ now: clock.now });
    for (let i = 0; i < 19; i++) {
      const done = window.begin('POST', '/showtimes/1/holds');
      clock.advance(10);
      done(201);
    }
    const slow = window.begin('POST', '/showtimes/1/holds');
    clock.advance(900);
    slow(503);
    const reading = window.read(10);
    expect(reading).toMatchObject({ requests: 20, errors: 1, errorRate: 0.05, holds: 20, inFlight: 0, poolWaiting: 0 });
    expect(reading.holdP95Ms).toBe(10);
    // Older than the window: forgotten.
    clock.advance(6_000);
    expect(window.read(10)).toMatchObject({ requests: 0, holds: 0, holdP95Ms: null, errorRate: 0 });
  });

  it('counts holds still running at their age, and requests waiting for a connection', () => {
    const clock = clockAt();
    const window = createHealthWindow({ now: clock.now });
    const stuck = Array.from({ length: 4 }, () => window.begin('POST', '/showtimes/1/holds'));
    const others = Array.from({ length: 3 }, () => window.begin('GET', '/showtimes/1/seats'));
    clock.advance(1_500);
    const reading = window.read(2);
    expect(reading.holdP95Ms).toBe(1_500);
    expect(reading).toMatchObject({ holdsInFlight: 4, inFlight: 7, poolWaiting: 5 });
    expect(window.read(2, 1).poolWaiting).toBe(4); // the caller reading is not load
    for (const done of [...stuck, ...others]) done(200);
    expect(window.read(2).inFlight).toBe(0);
  });

  it('needs a few holds before it reports a p95', () => {
    const clock = clockAt();
    const window = createHealthWindow({ now: clock.now });
    const one = window.begin('POST', '/showtimes/1/holds');
    clock.advance(2_000);
    one(201);
    expect(window.read(10).holdP95Ms).toBeNull();
  });
});
