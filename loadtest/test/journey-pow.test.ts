/**
 * Proof of work at join, under the load generators: the journey harness and a k6 script (on
 * the shims) run against a room that asks every joiner for work. Every buyer solves its
 * challenge (lib/pow.js) and goes on; the invariants hold and nothing answers 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl, testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { createSale } from '../journey/setup';
import { runJourney } from '../journey/run-journey';
import { startLocalStack, type LocalStack } from '../journey/stack';
import { runK6Script } from '../k6shim/run-shim';

const DIFFICULTY = 8;

describe('load generators with proof of work on', () => {
  it('the journey harness: every buyer solves its challenge, buys, and the invariants hold', async () => {
    const result = await runJourney({
      buyers: 30,
      durationSeconds: 40,
      rampSeconds: 2,
      rows: 4,
      columns: 10,
      party: 2,
      holdTtlMs: 10_000,
      capacity: 10,
      admitPerMinute: 600,
      sessionTtlSeconds: 30,
      seatPreference: 'best',
      powDifficulty: DIFFICULTY,
      databaseUrl: testDatabaseUrl(),
      redisUrl: testRedisUrl(),
      keyPrefix: testRedisNamespace('loadtest-pow'),
      checkStream: false,
      reportDir: null,
      progress: 'off',
    });
    expect(result.invariants!.breaches, result.text).toEqual([]);
    const join = result.recorder.endpoints.get('join')!;
    expect(join.statuses.get(428), result.text).toBeGreaterThanOrEqual(30);
    expect(result.recorder.counters.get('pow_solved'), result.text).toBeGreaterThanOrEqual(30);
    expect(result.invariants!.figures.bookingsConfirmed, result.text).toBeGreaterThan(0);
    // Server errors never; an unanswered request (status 0: the client's timeout on this shared
    // two-core machine) is the generator's, and retried by the journey.
    for (const [endpoint, stats] of result.recorder.endpoints) {
      const serverErrors = [...stats.statuses]
        .filter(([status]) => status >= 500)
        .reduce((n, [, count]) => n + count, 0);
      expect(serverErrors, `${endpoint}: ${result.text}`).toBe(0);
    }
  }, 120_000);

  describe('k6 flash-sale.js on the shims', () => {
    let stack: LocalStack;
    beforeAll(async () => {
      stack = await startLocalStack({
        databaseUrl: testDatabaseUrl(),
        redisUrl: testRedisUrl(),
        keyPrefix: testRedisNamespace('k6shim-pow'),
      });
    });
    afterAll(() => stack?.close());

    it('buyers solve the challenge, are admitted and book; the room gets its difficulty back', async () => {
      const { showtimeId } = await createSale({
        coreUrl: stack.coreUrl,
        edgeUrl: stack.edgeUrl,
        adminToken: stack.adminToken,
        rows: 6,
        columns: 20,
        holdTtlMs: 15_000,
        capacity: 20,
        admitPerMinute: 1200,
        sessionTtlSeconds: 30,
      });
      const env = {
        BASE_URL: stack.edgeUrl,
        PAYMENT_URL: stack.paymentsUrl,
        CORE_URL: stack.coreUrl,
        ADMIN_TOKEN: stack.adminToken,
        PAYMENT_API_KEY: stack.paymentApiKey,
        SHOWTIME_ID: showtimeId,
        PEAK_RPS: '200',
        DURATION: '30s',
        BUYERS_PER_VU: '20',
        POW_DIFFICULTY: String(DIFFICULTY),
      };
      const run = await runK6Script('flash-sale.js', 'buyer', env, { iterations: 1500, maxMs: 12_000 });
      expect(run.failures).toEqual([]);
      expect(run.http.join?.['428'] ?? 0).toBeGreaterThan(0);
      expect(run.metrics.buyers_admitted?.count ?? 0).toBeGreaterThan(0);
      expect(run.metrics.bookings?.count ?? 0).toBeGreaterThan(0);
      const errors = Object.entries(run.http).flatMap(([endpoint, statuses]) =>
        Object.entries(statuses)
          .filter(([s]) => Number(s) >= 500 || s === '0')
          .map(([s, n]) => `${endpoint} ${s} ×${n}`),
      );
      expect(errors).toEqual([]);
      const room = (await (
        await fetch(`${stack.edgeUrl}/api/admin/showtimes/${showtimeId}/room`, {
          headers: { authorization: `Bearer ${stack.adminToken}` },
        })
      ).json()) as { settings: { powDifficulty: number } };
      expect(room.settings.powDifficulty).toBe(0);
    }, 90_000);
  });
});
