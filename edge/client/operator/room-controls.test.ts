import { describe, expect, it } from 'vitest';
import { describeChange, validateSettings } from './room-controls';
import { sparkGeometry } from './spark-chart';

const current = {
  capacity: 50,
  admitPerMinute: 600,
  admitBurst: 50,
  sessionTtlSeconds: 600,
  state: 'open',
  opensAt: null,
};

describe('console controls', () => {
  it('sends only what changed, and refuses out-of-bounds values in plain words', () => {
    expect(
      validateSettings({ capacity: '80', admitPerMinute: '600', admitBurst: '50', sessionTtlSeconds: '600' }, current),
    ).toEqual({ ok: true, change: { capacity: 80 } });
    expect(
      validateSettings({ capacity: '0', admitPerMinute: '600', admitBurst: '50', sessionTtlSeconds: '600' }, current),
    ).toEqual({
      ok: false,
      message: 'Capacity must be a whole number from 1 to 1,000,000.',
    });
    const long = validateSettings(
      { capacity: '5', admitPerMinute: '600', admitBurst: '50', sessionTtlSeconds: '90000' },
      current,
    );
    expect(long.ok === false && long.message).toBe('Session length must be a whole number from 1 to 86,400 seconds.');
    expect(
      validateSettings({ capacity: '50', admitPerMinute: '600', admitBurst: '0', sessionTtlSeconds: '600' }, current),
    ).toEqual({
      ok: false,
      message: 'Admissions at once must be a whole number from 1 to 10,000,000.',
    });
    expect(
      validateSettings({ capacity: '50', admitPerMinute: '120', admitBurst: '10', sessionTtlSeconds: '600' }, current),
    ).toEqual({ ok: true, change: { admitPerMinute: 120, admitBurst: 10 } });
    expect(
      validateSettings({ capacity: '2.5', admitPerMinute: '', admitBurst: '50', sessionTtlSeconds: '1' }, current).ok,
    ).toBe(false);
  });

  it('describes a change with its before, and without', () => {
    expect(describeChange({ capacity: 80, state: 'paused' }, current)).toBe(
      'capacity from 50 to 80; state from open to paused',
    );
    expect(describeChange({ capacity: 80 }, null)).toBe('capacity → 80');
  });
});

describe('spark chart geometry', () => {
  it('draws seats on the fixed scale of the hall: one seat is a sliver, not the whole height', () => {
    const fixed = sparkGeometry([1, 1, 0], 300)!;
    expect(fixed.max).toBe(300);
    const ys = fixed.points.split(' ').map((p) => Number(p.split(',')[1]));
    expect(Math.max(...ys) - Math.min(...ys)).toBeLessThan(0.2);
    const own = sparkGeometry([1, 1, 0])!;
    const ownYs = own.points.split(' ').map((p) => Number(p.split(',')[1]));
    expect(Math.max(...ownYs) - Math.min(...ownYs)).toBeGreaterThan(20);
  });

  it('spans one minute until there is more history, then up to five', () => {
    expect(sparkGeometry([3])!.spanSeconds).toBe(60);
    expect(sparkGeometry(Array.from({ length: 200 }, () => 1))!.spanSeconds).toBe(200);
    expect(sparkGeometry(Array.from({ length: 400 }, () => 1))).toMatchObject({ spanSeconds: 300 });
    expect(sparkGeometry([])).toBeNull();
  });
});

describe('sale settings', () => {
  it('checks hold time and seats per customer against the core bounds, and sends only changes', async () => {
    const { validateSale, describeSaleChange } = await import('./room-controls');
    const current = { holdTtlSeconds: 600, maxSeatsPerCustomer: 4 };
    expect(validateSale({ holdTtlSeconds: '600', maxSeatsPerCustomer: '2' }, current)).toEqual({
      ok: true,
      change: { maxSeatsPerCustomer: 2 },
    });
    expect(validateSale({ holdTtlSeconds: '5', maxSeatsPerCustomer: '2' }, current)).toEqual({
      ok: false,
      message: 'Time to pay must be a whole number from 10 to 3600 seconds.',
    });
    expect(describeSaleChange({ maxSeatsPerCustomer: 2 }, current)).toBe('seats per customer from 4 to 2');
  });
});
