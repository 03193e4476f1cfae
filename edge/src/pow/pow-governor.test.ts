import { describe, expect, it } from 'vitest';
import { createPowGovernor } from './pow-governor';

describe('adaptive proof-of-work difficulty', () => {
  it('stays at the base without a ceiling, and at zero when off', () => {
    const governor = createPowGovernor({ showtimeJoinsPerSecond: 10, addressJoinsPerMinute: 5, now: () => 0 });
    for (let i = 0; i < 1000; i++) governor.observe('1', '203.0.113.1');
    expect(governor.level('1', '203.0.113.1', 0, 0)).toMatchObject({ difficulty: 0, reason: 'off' });
    expect(governor.level('1', '203.0.113.1', 8, 0).difficulty).toBe(8);
  });

  it('raises with the join rate up to the ceiling, per showtime and per address, and falls back', () => {
    let now = 10_000;
    const governor = createPowGovernor({ showtimeJoinsPerSecond: 10, addressJoinsPerMinute: 5, now: () => now });
    for (let i = 0; i < 8; i++) governor.observe('1', `198.51.100.${i}`);
    expect(governor.level('1', '198.51.100.0', 4, 20).difficulty).toBe(4);
    for (let i = 0; i < 40; i++) governor.observe('1', `198.51.100.${i}`); // 48 joins in this second: ~5x
    const crowded = governor.level('1', '198.51.100.0', 4, 20);
    expect(crowded.difficulty).toBe(4 + Math.ceil(Math.log2(48 / 10)) + 1);
    expect(crowded.reason).toContain('joins/s on this showtime');
    expect(governor.level('1', '198.51.100.0', 4, 6).difficulty).toBe(6); // the ceiling holds
    now += 2_500; // the crowd is gone
    expect(governor.level('1', '198.51.100.0', 4, 20).difficulty).toBe(4);
    // One address alone, within the showtime threshold: only it is raised.
    for (let i = 0; i < 9; i++) governor.observe('2', '203.0.113.9');
    expect(governor.level('2', '203.0.113.9', 0, 20).reason).toContain('this address');
    expect(governor.level('2', '203.0.113.9', 0, 20).difficulty).toBeGreaterThan(0);
    expect(governor.level('2', '203.0.113.10', 0, 20).difficulty).toBe(0);
  });
});
