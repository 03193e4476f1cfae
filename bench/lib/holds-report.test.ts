import { describe, expect, it } from 'vitest';
import { betterOf, holdsReport, median, pairedRatios } from './holds-report';

describe('holds report', () => {
  it('pairs each ratio within its round: a machine that drifts does not move it', () => {
    // The machine runs at full speed in round 1, half in round 2, a quarter in round 3; the
    // service is always 0.4 of the bare pair measured beside it.
    const bare = [2000, 1000, 500];
    const service = [800, 400, 200];
    expect(pairedRatios(service, bare)).toEqual({ rounds: [0.4, 0.4, 0.4], median: 0.4 });
  });

  it('broken variant: a ratio of medians mixes rounds and reads another figure', () => {
    // Round 1 quick, round 2 slow, round 3 between; per round the service is 0.25, 0.45, 0.40.
    const bare = [2000, 1000, 1500];
    const service = [500, 450, 600];
    expect(pairedRatios(service, bare).median).toBeCloseTo(0.4);
    // The service's median run (500, round 1) over the bare pair's (1500, round 3): 0.33.
    expect(median(service) / median(bare)).toBeCloseTo(0.333, 2);
  });

  it('takes the better bare figure of the two client counts as the limit', () => {
    expect(betterOf([1500, 2000], [1800, 1900])).toEqual([1800, 2000]);
  });

  it('median of an even count is the mean of the middle two', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('reports the paired ratio against the better bare figure', () => {
    const lines = holdsReport(
      {
        bare: [1000, 1000, 1000],
        barePool: [2000, 2000, 2000],
        same: [1000, 1000, 1000],
        samePool: [900, 900, 900],
        service: [700, 700, 700],
        bestSame: [200, 200, 200],
        bestService: [180, 180, 180],
      },
      { rounds: 3, seconds: 8, clients: 32, pool: 10 },
    );
    expect(lines.find((line) => line.includes('ratio to the bare UPDATE'))).toContain('0.35');
    expect(lines.find((line) => line.includes('ratio to the same statements'))).toContain('0.70');
    expect(lines.find((line) => line.includes('at 32 clients only'))).toContain('0.70');
  });
});
