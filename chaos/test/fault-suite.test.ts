import { expect, it } from 'vitest';
import { formatChaosReport } from '../report';
import { SHORT_SETTINGS, runChaosSuite } from '../suite';

/**
 * The short version of `npm run chaos`, part of `npm test`: the same stack as separate
 * processes on a private PostgreSQL cluster and redis-server, every fault for a few seconds
 * with a small crowd. Every invariant must be 0, no buyer may see a 500, and buyers must be
 * served again within 5 s of the broken component coming back.
 */
it('every fault, a few seconds each: invariants hold, no 500, recovery within 5 s', async () => {
  const { results } = await runChaosSuite({ ...SHORT_SETTINGS, log: (line) => console.log(line) });
  const report = formatChaosReport(results);
  console.log(report);
  expect(results.length).toBeGreaterThanOrEqual(8);
  expect(results.filter((r) => r.breaches.length > 0).map((r) => `${r.fault}: ${r.breaches.join('; ')}`)).toEqual([]);
  // The faults were real: buyers booked seats around them, and saw the outages where there were any.
  expect(results.reduce((n, r) => n + r.booked, 0)).toBeGreaterThan(0);
});
