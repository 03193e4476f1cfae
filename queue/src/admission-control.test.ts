import { describe, expect, it } from 'vitest';
import { controlBounds, inventoryCap, seatsLikelyGone, stepRate, struggle, type CoreHealth } from './admission-control';

const healthy: CoreHealth = { reachable: true, holdP95Ms: 40, errorRate: 0, poolWaiting: 0 };
const slow: CoreHealth = { ...healthy, holdP95Ms: 2_500 };
const down: CoreHealth = { reachable: false, holdP95Ms: null, errorRate: 0, poolWaiting: 0 };
const bounds = controlBounds({ admitPerMinute: 600, admitFloorPerMinute: 0, admitCeilingPerMinute: 0 });

/** Runs the loop every `everyMs` for `forMs` on a fixed health, from `state`. */
function run(
  state: ReturnType<typeof stepRate>['state'] | null,
  health: CoreHealth,
  fromMs: number,
  forMs: number,
  everyMs = 200,
) {
  let step = stepRate(state, health, bounds, fromMs);
  for (let t = fromMs + everyMs; t <= fromMs + forMs; t += everyMs) step = stepRate(step.state, health, bounds, t);
  return step;
}

describe('controlBounds', () => {
  it('defaults the floor to a tenth of the target and the ceiling to the target', () => {
    expect(bounds).toEqual({ targetPerMinute: 600, floorPerMinute: 60, ceilingPerMinute: 600 });
    expect(controlBounds({ admitPerMinute: 5, admitFloorPerMinute: 0, admitCeilingPerMinute: 0 }).floorPerMinute).toBe(
      1,
    );
    expect(controlBounds({ admitPerMinute: 600, admitFloorPerMinute: 900, admitCeilingPerMinute: 800 })).toEqual({
      targetPerMinute: 600,
      floorPerMinute: 800,
      ceilingPerMinute: 800,
    });
  });
});

describe('stepRate (AIMD)', () => {
  it('starts at the target and stays at the ceiling while the core copes', () => {
    const step = run(null, healthy, 0, 10_000);
    expect(step.state.ratePerMinute).toBe(600);
    expect(step.reason).toBe('healthy');
  });

  it('halves at most once a second while the core struggles, down to the floor', () => {
    expect(stepRate(null, slow, bounds, 0).state.ratePerMinute).toBe(300);
    const afterHalfSecond = run(null, slow, 0, 800);
    expect(afterHalfSecond.state.ratePerMinute).toBe(300);
    expect(run(null, slow, 0, 1_000).state.ratePerMinute).toBe(150);
    const later = run(null, slow, 0, 10_000);
    expect(later.state.ratePerMinute).toBe(60);
    expect(later.reason).toBe('slow_holds');
    expect(later.detail).toMatch(/2500 ms/);
  });

  it('grows back slowly: a twentieth of the ceiling per second', () => {
    const low = run(null, slow, 0, 5_000).state;
    expect(low.ratePerMinute).toBe(60);
    const oneSecond = stepRate(low, healthy, bounds, low.atMs + 1_000);
    expect(oneSecond.reason).toBe('recovering');
    expect(oneSecond.state.ratePerMinute).toBeCloseTo(60 + 30, 5);
    const full = run(oneSecond.state, healthy, oneSecond.state.atMs, 20_000);
    expect(full.state.ratePerMinute).toBe(600);
    expect(full.reason).toBe('healthy');
  });

  it('is 0 while the core is down and restarts from the floor', () => {
    const out = stepRate(null, down, bounds, 0);
    expect(out.state.ratePerMinute).toBe(0);
    expect(out.reason).toBe('core_down');
    const back = stepRate(out.state, healthy, bounds, 200);
    expect(back.state.ratePerMinute).toBeGreaterThanOrEqual(60);
    expect(back.state.ratePerMinute).toBeLessThan(70);
  });

  it('does not jump after a long pause of the governor', () => {
    const low = run(null, slow, 0, 5_000).state;
    const late = stepRate(low, healthy, bounds, 3_600_000);
    expect(late.state.ratePerMinute).toBeCloseTo(60 + 30 * 5, 5);
  });

  it('never leaves [floor, ceiling] while the core answers', () => {
    let state = null as ReturnType<typeof stepRate>['state'] | null;
    for (let t = 0; t < 120_000; t += 137) {
      const health = Math.sin(t / 3_000) > 0 ? healthy : slow;
      state = stepRate(state, health, bounds, t).state;
      expect(state.ratePerMinute).toBeGreaterThanOrEqual(60);
      expect(state.ratePerMinute).toBeLessThanOrEqual(600);
    }
  });
});

describe('struggle', () => {
  it('names errors first, then pool waiters, then slow holds', () => {
    expect(struggle(healthy)).toBeNull();
    expect(struggle({ ...healthy, holdP95Ms: null })).toBeNull();
    expect(struggle({ ...slow, errorRate: 0.2, poolWaiting: 9 })?.reason).toBe('core_errors');
    expect(struggle({ ...slow, poolWaiting: 9 })?.reason).toBe('pool_waiters');
    expect(struggle(slow)?.reason).toBe('slow_holds');
  });
});

describe('inventoryCap', () => {
  it('is S / k x (1 + margin), rounded up', () => {
    expect(inventoryCap(10, 2, 20)).toBe(6);
    expect(inventoryCap(10, 1, 0)).toBe(10);
    expect(inventoryCap(10, 0.5, 0)).toBe(10);
    expect(inventoryCap(0, 2, 50)).toBe(0);
    expect(inventoryCap(3, 4, 0)).toBe(1);
  });

  it('tells a buyer when the seats left go to those ahead', () => {
    expect(seatsLikelyGone(1, 6, 5)).toBe(false);
    expect(seatsLikelyGone(2, 6, 5)).toBe(true);
    expect(seatsLikelyGone(1, 0, 0)).toBe(true);
  });
});
