import { describe, expect, it } from 'vitest';
import { createDeadlineWarnings, minutesLeftWords } from './deadlines';

describe('deadline warnings', () => {
  it('warns once at 2 minutes and once at 1 minute as a countdown ticks', () => {
    const warnings = createDeadlineWarnings();
    const fired: number[] = [];
    for (let left = 300_000; left >= -2_000; left -= 1_000) {
      const due = warnings.check(left);
      if (due) fired.push(due);
    }
    expect(fired).toEqual([120_000, 60_000]);
    expect(fired.map(minutesLeftWords)).toEqual(['2 minutes', '1 minute']);
  });

  it('opening with 50 s left warns about the nearest threshold only; after the end, nothing', () => {
    const warnings = createDeadlineWarnings();
    expect(warnings.check(50_000)).toBe(60_000);
    expect(warnings.check(49_000)).toBeNull();
    const late = createDeadlineWarnings();
    expect(late.check(0)).toBeNull();
  });
});

describe('payment deadline', () => {
  it('is at 8/10 of the hold, as the core ends the payment session', async () => {
    const { paymentDeadlineMs } = await import('./deadlines');
    expect(paymentDeadlineMs(0, 600_000)).toBe(480_000);
    expect(paymentDeadlineMs(1_000, 11_000)).toBe(9_000);
  });
});
