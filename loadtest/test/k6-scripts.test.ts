/**
 * The k6 scripts' own code, run on the k6 shims (one VU per worker thread) against the whole
 * stack on loopback: setup, the buyer multiplexing over the shared journey, tags, checks and
 * custom metrics, the drain scenario, teardown (room settings put back) and handleSummary.
 * This proves the scripts' logic and the generator's own cost in bytes (parsed, kept per
 * buyer), not k6's rates: those are measured with a real k6 (loadtest/README.md).
 */
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl, testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { checkInvariants } from '../invariants';
import { createSale } from '../journey/setup';
import { startLocalStack, type LocalStack } from '../journey/stack';
import { runK6Script, type ShimRun } from '../k6shim/run-shim';

let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({
    databaseUrl: testDatabaseUrl(),
    redisUrl: testRedisUrl(),
    keyPrefix: testRedisNamespace('k6shim'),
  });
});
afterAll(() => stack?.close());

async function sale(rows: number, columns: number, roomState: 'open' | 'scheduled' = 'open') {
  const { showtimeId } = await createSale({
    coreUrl: stack.coreUrl,
    edgeUrl: stack.edgeUrl,
    adminToken: stack.adminToken,
    rows,
    columns,
    holdTtlMs: 15_000,
    capacity: 20,
    admitPerMinute: 1200,
    sessionTtlSeconds: 30,
    roomState,
  });
  return showtimeId;
}

async function room(showtimeId: string) {
  const response = await fetch(`${stack.edgeUrl}/api/admin/showtimes/${showtimeId}/room`, {
    headers: { authorization: `Bearer ${stack.adminToken}` },
  });
  return (await response.json()) as {
    settings: { capacity: number; admitPerMinute: number; state: string };
    stats: { waiting: number; active: number; offered: number; prequeue: number };
  };
}

const envFor = (showtimeId: string, extra: Record<string, string> = {}): Record<string, string> => ({
  BASE_URL: stack.edgeUrl,
  PAYMENT_URL: stack.paymentsUrl,
  CORE_URL: stack.coreUrl,
  ADMIN_TOKEN: stack.adminToken,
  PAYMENT_API_KEY: stack.paymentApiKey,
  SHOWTIME_ID: showtimeId,
  PEAK_RPS: '200',
  DURATION: '30s',
  BUYERS_PER_VU: '20',
  DRAIN_RPS: '100000',
  ...extra,
});

const count = (run: ShimRun, name: string) => run.metrics[name]?.count ?? 0;
const sum = (run: ShimRun, name: string) => run.metrics[name]?.sum ?? 0;
const serverErrors = (run: ShimRun) =>
  Object.entries(run.http).flatMap(([endpoint, statuses]) =>
    Object.entries(statuses)
      .filter(([s]) => Number(s) >= 500 || s === '0')
      .map(([s, n]) => `${endpoint} ${s} ×${n}`),
  );
const requests = (run: ShimRun) =>
  Object.values(run.http).reduce((n, statuses) => n + Object.values(statuses).reduce((a, b) => a + b, 0), 0);

describe('k6 scripts on the k6 shims', () => {
  it('flash-sale.js: buyers go from the waiting room to bookings, every booking counted; seat maps read as the compact view, not kept', async () => {
    // 24 × 60 = 1,440 seats: a seat map of about 150 KB, the size that made the generator the bottleneck.
    const showtimeId = await sale(24, 60);
    const run = await runK6Script('flash-sale.js', 'buyer', envFor(showtimeId), { iterations: 2500, maxMs: 12_000 });
    expect(run.failures).toEqual([]);
    expect(serverErrors(run)).toEqual([]);
    expect(count(run, 'buyers_admitted')).toBeGreaterThan(0);
    expect(count(run, 'holds_won')).toBeGreaterThan(0);
    expect(count(run, 'bookings')).toBeGreaterThan(0);
    expect(run.options.scenarios.buyers).toMatchObject({ executor: 'ramping-arrival-rate', exec: 'buyer' });
    expect(run.options.scenarios.buyers.preAllocatedVUs).toBe(run.options.scenarios.buyers.maxVUs);
    expect(run.options.scenarios.drain).toMatchObject({ executor: 'per-vu-iterations', exec: 'drain', iterations: 1 });
    expect(run.exports).toEqual(
      expect.arrayContaining(['buyer', 'page', 'drain', 'setup', 'teardown', 'handleSummary', 'options']),
    );
    const thresholds = Object.keys(run.options.thresholds);
    // Latency limits describe the run (phase:run), not the drain's leaves and cancels (phase:drain).
    expect(thresholds).toEqual(
      expect.arrayContaining([
        'http_req_failed',
        'checks',
        'checks{endpoint:hold}',
        'journey_failed',
        'run_failures',
        'dropped_iterations',
        'http_req_duration{endpoint:poll,phase:run}',
        'http_req_duration{endpoint:booking,phase:run}',
        'http_req_duration{endpoint:leave,phase:run}',
        'http_req_duration{endpoint:page}',
      ]),
    );
    expect(thresholds.filter((t) => t.startsWith('http_req_duration{endpoint:') && !t.includes('phase:run'))).toEqual([
      'http_req_duration{endpoint:page}',
    ]);
    expect(thresholds).not.toContain('http_req_duration{endpoint:cancel,phase:run}'); // never called by this journey
    expect(run.options.thresholds['http_req_duration{endpoint:hold,phase:run}']).toEqual(['p(95)<500', 'p(99)<1000']);
    // 1 % of the planned requests of both scenarios (30 s at 180 + 20 req/s, rounded stages): not lost to the page scenario's limits.
    expect(run.options.thresholds.dropped_iterations).toEqual(['count<50']);
    // No SUMMARY_DIR (a folder k6 could not create): the summary goes to stdout only.
    expect(run.summaryKeys).toEqual(['stdout']);
    // The plan and the journey settings are built once in this VU, not once per iteration.
    expect(run.ran).toBeGreaterThan(100);
    expect(count(run, 'generator_vu_builds')).toBe(2);

    // Every answer went through check(), and the classes passed.
    expect(count(run, 'checks')).toBe(
      requests(run) - (run.http.admin ? Object.values(run.http.admin).reduce((a, b) => a + b, 0) : 0),
    );
    expect(sum(run, 'checks')).toBe(count(run, 'checks'));
    // Every journey ended with a counted outcome; none in error; the drain left nothing behind.
    expect(count(run, 'journey_failed')).toBeGreaterThan(0);
    expect(sum(run, 'journey_failed')).toBe(0);
    const invariants = await checkInvariants(stack.sql, { showtimeIds: [Number(showtimeId)] });
    expect(invariants.breaches).toEqual([]);
    expect(invariants.showtimes[0]!.held).toBe(0);
    expect(count(run, 'bookings')).toBe(invariants.figures.bookingsConfirmed);
    const after = await room(showtimeId);
    expect(after.stats.active + after.stats.offered).toBe(0);

    // Generator cost: a seat map of 1,440 seats comes as the compact view (strings per row, a few
    // KB instead of ~150 KB of seat objects), parsed once; a buyer keeps a few hundred bytes of it.
    const seatReads = run.http.seats?.['200'] ?? 0;
    expect(seatReads).toBeGreaterThan(0);
    expect(
      sum(run, 'shim_body_bytes_to_script{endpoint:seats}') / count(run, 'shim_body_bytes_to_script{endpoint:seats}'),
    ).toBeLessThan(10_000);
    expect(sum(run, 'generator_parsed_bytes{endpoint:seats}')).toBe(
      sum(run, 'shim_body_bytes_to_script{endpoint:seats}'),
    );
    expect(run.metrics.generator_buyer_bytes!.max).toBeLessThan(2_000);
    // Other answers are parsed once each: no more bytes than the script received.
    expect(sum(run, 'generator_parsed_bytes{endpoint:poll}')).toBe(
      sum(run, 'shim_body_bytes_to_script{endpoint:poll}'),
    );
    // Bodies no step reads never reach the script.
    expect(count(run, 'generator_parsed_bytes{endpoint:leave}')).toBe(0);
  }, 90_000);

  it('flash-sale.js: page views are discarded at the socket', async () => {
    const showtimeId = await sale(2, 5);
    const run = await runK6Script('flash-sale.js', 'page', envFor(showtimeId), { iterations: 20, maxMs: 5_000 });
    expect(run.http.page?.['200']).toBe(20);
    expect(sum(run, 'checks{endpoint:page}')).toBe(20);
    expect(count(run, 'shim_body_bytes_to_script{endpoint:page}')).toBe(0);
    expect(count(run, 'shim_body_bytes_to_script{endpoint:admin}')).toBeGreaterThan(0); // the shim does count bodies
  }, 30_000);

  it('poll-storm.js: the warm-up builds the line, the plateau is polls; the drain empties the line and the room settings come back', async () => {
    const showtimeId = await sale(2, 5);
    // The server paces far-back buyers at ~22.5 s: the plateau spans one round of polls. One
    // admission a minute keeps the line waiting; the one VU holds its share of a 200 req/s line
    // planned over 13 VUs (364 buyers), whom the warm-up has ample time to bring in (10 s: with
    // 6 s a loaded CI machine once left the line still joining into the plateau, share 0.38).
    // The drain paced at 500 leaves/s over the 13 VUs this plans: one leave every 26 ms in this VU.
    const env = envFor(showtimeId, {
      WARMUP: '10s',
      DURATION: '25s',
      ADMIT_PER_MINUTE: '1',
      RESPONSE_SECONDS: '0.01',
      DRAIN_RPS: '500',
    });
    const run = await runK6Script('poll-storm.js', 'crowd', env, { iterations: 100_000, maxMs: 39_000 });
    expect(run.failures).toEqual([]);
    expect(serverErrors(run)).toEqual([]);
    expect(run.http.join?.['200']).toBeGreaterThan(0);
    expect(run.http.seats).toBeUndefined(); // polls only
    expect(count(run, 'poll_share{phase:plateau}')).toBeGreaterThan(40);
    expect(sum(run, 'poll_share{phase:plateau}') / count(run, 'poll_share{phase:plateau}')).toBeGreaterThanOrEqual(0.9);
    expect(run.options.thresholds).toMatchObject({
      'poll_share{phase:plateau}': ['rate>=0.9'],
      'http_req_duration{endpoint:poll,phase:plateau}': ['p(95)<100', 'p(99)<250'],
      'http_req_duration{endpoint:leave,phase:plateau}': ['p(95)<250', 'p(99)<500'],
    });
    expect(Object.keys(run.options.thresholds)).not.toContain('http_req_duration{endpoint:leave}'); // the drain's leaves are not the plateau's
    expect(count(run, 'generator_vu_builds')).toBe(2);
    // The drain is paced: its leaves (tagged phase:drain) go one after another at this VU's share of DRAIN_RPS.
    const drainVus = run.options.scenarios.drain.vus as number;
    expect(drainVus).toBe(13);
    const drainLeaves = count(run, 'http_reqs{phase:drain}');
    expect(drainLeaves).toBeGreaterThan(20);
    expect(run.drainMs).toBeGreaterThanOrEqual((drainLeaves - 1) * ((1000 * drainVus) / 500) * 0.9);
    expect(Object.keys(run.options.thresholds)).not.toContain('http_req_duration{endpoint:hold}');
    expect(count(run, 'journey_stopped')).toBeGreaterThan(0); // the drain took them out of the line
    const after = await room(showtimeId);
    expect(after.stats.waiting).toBe(0);
    expect(after.settings).toMatchObject({ capacity: 20, admitPerMinute: 1200, state: 'open' });
  }, 75_000);

  it('hold-race.js: admitted buyers win and give back every hold on the best seats; the room is put back', async () => {
    const showtimeId = await sale(3, 6);
    const run = await runK6Script('hold-race.js', 'racer', envFor(showtimeId), { iterations: 400, maxMs: 10_000 });
    expect(run.failures).toEqual([]);
    expect(serverErrors(run)).toEqual([]);
    expect(count(run, 'holds_won')).toBeGreaterThan(0);
    expect(count(run, 'holds_released')).toBe(count(run, 'holds_won')); // the drain cancels what the budget cut short
    expect(Object.keys(run.options.thresholds)).toContain('http_req_duration{endpoint:cancel,phase:run}');
    expect(Object.keys(run.options.thresholds)).not.toContain('http_req_duration{endpoint:checkout,phase:run}');
    const invariants = await checkInvariants(stack.sql, { showtimeIds: [Number(showtimeId)] });
    expect(invariants.breaches).toEqual([]);
    expect(invariants.showtimes[0]).toMatchObject({ booked: 0, held: 0 });
    expect((await room(showtimeId)).settings).toMatchObject({ capacity: 20, admitPerMinute: 1200 });
  }, 40_000);

  it('opening.js: the pre-queue fills, the draw runs at the opening, the first admission follows; the room is put back', async () => {
    const showtimeId = await sale(2, 5, 'scheduled'); // a room that has never opened
    // Twelve seconds after the opening: on a loaded machine the first admission step can come more
    // than the line's freshness window after the draw, and the heads are then passed over until
    // their next poll brings them back to the front.
    const env = envFor(showtimeId, { BUYERS: '30', BUYERS_PER_VU: '30', PREQUEUE: '4s', AFTER_OPENING: '12s' });
    const setup = await runK6Script('opening.js', null, env, {
      iterations: 0,
      maxMs: 0,
      drain: false,
      teardown: false,
    });
    expect((await room(showtimeId)).settings.state).toBe('scheduled');
    const phases = { iterations: 1, maxMs: 30_000, setup: false, data: setup.setupData, drain: false, teardown: false };
    const [buyers, operator] = await Promise.all([
      runK6Script('opening.js', 'buyer', env, phases),
      runK6Script('opening.js', 'operator', env, phases),
    ]);
    expect([...buyers.failures, ...operator.failures]).toEqual([]);
    expect(serverErrors(buyers)).toEqual([]);
    expect(buyers.http.join?.['200']).toBe(30);
    expect(count(buyers, 'http_req_duration{endpoint:join,phase:peak}')).toBeGreaterThan(0);
    expect(count(buyers, 'buyers_admitted')).toBeGreaterThan(0);
    expect(count(operator, 'opening_draw_ms')).toBe(1);
    expect(count(operator, 'opening_first_admission_ms')).toBe(1);
    expect(sum(operator, 'opening_draw_ms')).toBeLessThan(5_000);
    const during = await room(showtimeId);
    expect(during.stats.waiting + during.stats.prequeue).toBe(0); // admitted buyers left, the rest left at the end
    const end = await runK6Script('opening.js', null, env, {
      iterations: 0,
      maxMs: 0,
      setup: false,
      data: setup.setupData,
      drain: false,
    });
    // The summary says what ran, not a peak rate and a duration this script does not have.
    expect(end.summaryStdout).toContain(
      `opening: ${stack.edgeUrl}, 30 buyers over a 4s pre-queue, 12s after the opening, 1 VUs`,
    );
    // Numbers put back; the state stays open (an opened room cannot be scheduled again).
    expect((await room(showtimeId)).settings).toMatchObject({ state: 'open', capacity: 20, admitPerMinute: 1200 });
  }, 60_000);

  it("VUs: all pre-allocated, by Little's law, overridable per scenario", async () => {
    const options = (env: Record<string, string>) =>
      runK6Script(
        'flash-sale.js',
        null,
        { PEAK_RPS: '200', DURATION: '30s', BUYERS_PER_VU: '20', ...env },
        { iterations: 0, maxMs: 0, setup: false, drain: false, teardown: false },
      ).then((run) => run.options.scenarios);
    // buyers: 180 req/s × (10 s pace / 20 buyers per VU + 0.25 s answer) × 1.1 + 10 = 159; pages: 20 × 0.25 × 1.1 + 10 = 16.
    const planned = await options({});
    expect(planned.buyers).toMatchObject({ preAllocatedVUs: 159, maxVUs: 159 });
    expect(planned.pages).toMatchObject({ preAllocatedVUs: 16, maxVUs: 16 });
    expect(planned.drain).toMatchObject({ vus: 175, startTime: '41s' }); // after the stages (3 + 5 + 20 + 3 s, rounded from 30 s) and the 10 s graceful stop
    const overridden = await options({ PRE_VUS_BUYERS: '7', MAX_VUS: '300', PRE_VUS_PAGES: '3' });
    expect(overridden.buyers).toMatchObject({ preAllocatedVUs: 7, maxVUs: 300 });
    expect(overridden.pages).toMatchObject({ preAllocatedVUs: 3, maxVUs: 3 });
  }, 30_000);

  it('teardown fails the run when the core does not answer its seat check (401 without the service token), and passes with it', async () => {
    // A core with CORE_SERVICE_TOKEN set, as docker-compose and production run it: 401 to anyone but the edge.
    const serviceToken = 'service-token-of-the-core';
    const core = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.headers['x-service-token'] !== serviceToken) {
        res.statusCode = 401;
        return void res.end(
          JSON.stringify({ error: { code: 'SERVICE_TOKEN_REQUIRED', message: 'This service answers only the edge' } }),
        );
      }
      res.end(JSON.stringify({ counts: { held: 0, booked: 1, available: 4, total: 5 } }));
    });
    await new Promise<void>((resolve) => core.listen(0, '127.0.0.1', resolve));
    try {
      const showtimeId = await sale(1, 5);
      const env = envFor(showtimeId, { CORE_URL: `http://127.0.0.1:${(core.address() as { port: number }).port}` });
      const without = await runK6Script('flash-sale.js', null, env, { iterations: 0, maxMs: 0 });
      expect(without.failures).toEqual([
        'seat accounting not checked: the core answered 401 (the core wants its service token: set CORE_SERVICE_TOKEN)',
      ]);
      expect(count(without, 'run_failures')).toBe(1);
      const withToken = await runK6Script(
        'flash-sale.js',
        null,
        { ...env, CORE_SERVICE_TOKEN: serviceToken },
        { iterations: 0, maxMs: 0 },
      );
      expect(withToken.failures).toEqual([]);
      expect(count(withToken, 'run_failures')).toBe(0);
    } finally {
      core.close();
    }
  }, 30_000);

  it('handleSummary writes the JSON where there is a folder for it (SUMMARY_DIR, set by npm run loadtest:k6), else stdout only', async () => {
    const showtimeId = await sale(1, 5);
    const run = await runK6Script('flash-sale.js', null, envFor(showtimeId, { SUMMARY_DIR: 'loadtest/reports' }), {
      iterations: 0,
      maxMs: 0,
    });
    expect(run.summaryKeys).toEqual(['stdout', expect.stringMatching(/^loadtest\/reports\/k6-flash-sale-.*\.json$/)]);
  }, 30_000);

  it('teardown fails the run on broken seat accounting, with exec.test.fail and, on k6 before v0.59, through the run_failures threshold', async () => {
    const core = createServer((_, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ counts: { held: 1, booked: 0, available: 3, total: 5 } }));
    });
    await new Promise<void>((resolve) => core.listen(0, '127.0.0.1', resolve));
    const address = core.address() as { port: number };
    try {
      const showtimeId = await sale(1, 5);
      const env = envFor(showtimeId, { CORE_URL: `http://127.0.0.1:${address.port}` });
      const current = await runK6Script('flash-sale.js', null, env, { iterations: 0, maxMs: 0 });
      expect(current.failures).toEqual(['seat accounting broken: 4 != 5']);
      expect(count(current, 'run_failures')).toBe(1);
      const old = await runK6Script('flash-sale.js', null, { ...env, K6SHIM_K6: '0.47' }, { iterations: 0, maxMs: 0 });
      expect(old.failures).toEqual([]); // no exec.test.fail there …
      expect(count(old, 'run_failures')).toBe(1); // … the threshold fails the run instead
      expect(old.options.thresholds.run_failures).toEqual(['count<1']);
    } finally {
      core.close();
    }
  }, 30_000);
});
