/**
 * The k6 scripts' own code, run on the k6 shims (one VU in a worker thread) against the whole
 * stack on loopback: setup, the buyer multiplexing over the shared journey, tags and custom
 * metrics, teardown and handleSummary. k6 is not installed here; this proves the scripts'
 * logic, not k6's rates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl, testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { checkInvariants } from '../invariants';
import { createSale } from '../journey/setup';
import { startLocalStack, type LocalStack } from '../journey/stack';
import { runK6Script, type ShimRun } from '../k6shim/run-shim';

let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({ databaseUrl: testDatabaseUrl(), redisUrl: testRedisUrl(), keyPrefix: testRedisNamespace('k6shim') });
});
afterAll(() => stack?.close());

async function sale(rows: number, columns: number) {
  const { showtimeId } = await createSale({
    coreUrl: stack.coreUrl, edgeUrl: stack.edgeUrl, adminToken: stack.adminToken, rows, columns,
    holdTtlMs: 15_000, capacity: 20, admitPerMinute: 1200, sessionTtlSeconds: 30,
  });
  return showtimeId;
}

const envFor = (showtimeId: string): Record<string, string> => ({
  BASE_URL: stack.edgeUrl, PAYMENT_URL: stack.paymentsUrl, CORE_URL: stack.coreUrl, ADMIN_TOKEN: stack.adminToken,
  PAYMENT_API_KEY: stack.paymentApiKey, SHOWTIME_ID: showtimeId, PEAK_RPS: '200', DURATION: '30s', BUYERS_PER_VU: '20',
});

const count = (run: ShimRun, name: string) => run.metrics[name]?.count ?? 0;
const serverErrors = (run: ShimRun) =>
  Object.entries(run.http).flatMap(([endpoint, statuses]) => Object.entries(statuses).filter(([s]) => Number(s) >= 500 || s === '0').map(([s, n]) => `${endpoint} ${s} ×${n}`));

describe('k6 scripts on the k6 shims', () => {
  it('flash-sale.js: buyers go from the waiting room to bookings; options and summary are well formed', async () => {
    const showtimeId = await sale(4, 8);
    const run = await runK6Script('flash-sale.js', 'buyer', envFor(showtimeId), { iterations: 3000, maxMs: 10_000 });
    expect(run.failures).toEqual([]);
    expect(serverErrors(run)).toEqual([]);
    expect(count(run, 'buyers_admitted')).toBeGreaterThan(0);
    expect(count(run, 'holds_won')).toBeGreaterThan(0);
    expect(count(run, 'bookings')).toBeGreaterThan(0);
    expect(run.http.booking?.['200']).toBeGreaterThan(0);
    expect(run.options.scenarios.buyers).toMatchObject({ executor: 'ramping-arrival-rate', exec: 'buyer' });
    expect(run.exports).toEqual(expect.arrayContaining(['buyer', 'page', 'setup', 'teardown', 'handleSummary', 'options']));
    expect(Object.keys(run.options.thresholds)).toEqual(expect.arrayContaining(['http_req_failed', 'dropped_iterations', 'http_req_duration{endpoint:poll}', 'http_req_duration{endpoint:hold}']));
    expect(run.summaryKeys).toContain('stdout');
    const invariants = await checkInvariants(stack.sql, { showtimeIds: [Number(showtimeId)] });
    expect(invariants.breaches).toEqual([]);
  }, 60_000);

  it('poll-storm.js: the crowd polls at the server pace and leaves once admitted', async () => {
    const showtimeId = await sale(2, 5);
    const run = await runK6Script('poll-storm.js', 'crowd', envFor(showtimeId), { iterations: 150, maxMs: 6_000 });
    expect(run.failures).toEqual([]);
    expect(serverErrors(run)).toEqual([]);
    expect(run.http.join?.['200']).toBeGreaterThan(0);
    expect(run.http.poll?.['200'] ?? 0).toBeGreaterThan(0);
    expect(run.http.seats).toBeUndefined(); // polls only
  }, 30_000);

  it('hold-race.js: admitted buyers win and give back holds on the best seats', async () => {
    const showtimeId = await sale(3, 6);
    const run = await runK6Script('hold-race.js', 'racer', envFor(showtimeId), { iterations: 400, maxMs: 10_000 });
    expect(run.failures).toEqual([]);
    expect(serverErrors(run)).toEqual([]);
    expect(count(run, 'holds_won')).toBeGreaterThan(0);
    // Every won hold is given back, except those won in the last iterations of the budget,
    // whose cancel the bounded run never reached.
    const cancelled = run.http.cancel?.['204'] ?? 0;
    expect(cancelled).toBeLessThanOrEqual(count(run, 'holds_won'));
    expect(cancelled).toBeGreaterThanOrEqual(count(run, 'holds_won') - 3);
    const invariants = await checkInvariants(stack.sql, { showtimeIds: [Number(showtimeId)] });
    expect(invariants.breaches).toEqual([]);
    expect(invariants.showtimes[0]!.booked).toBe(0);
  }, 30_000);
});
