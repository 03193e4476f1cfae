/**
 * CI smoke: a short journey run (60 buyers for 60 seats of two, so holds conflict and the hall
 * sells out) on this run's PostgreSQL database and a Redis namespace of its own, through the
 * real edge, core and payment sandbox on loopback ports. It asserts the invariants and that
 * the journey really ran end to end, never speed.
 */
import { describe, expect, it } from 'vitest';
import { testDatabaseUrl, testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { runJourney } from '../journey/run-journey';

describe('journey harness smoke run', () => {
  it('60 buyers through waiting room, holds, checkout and payment leave every invariant intact', async () => {
    const capacity = 12;
    const result = await runJourney({
      buyers: 60,
      durationSeconds: 45,
      rampSeconds: 3,
      rows: 6,
      columns: 10,
      party: 2,
      holdTtlMs: 10_000,
      capacity,
      admitPerMinute: 600,
      sessionTtlSeconds: 30,
      seatPreference: 'best',
      databaseUrl: testDatabaseUrl(),
      redisUrl: testRedisUrl(),
      keyPrefix: testRedisNamespace('loadtest'),
      // Other test files run cores on the same database whose relays may publish our rows to their streams.
      checkStream: false,
      // No load shedding: on a machine busy with the other test files the edge's event loop lags,
      // and it answers costly reads 503 BUSY (by design, retried by the journey), which this run
      // would count as server errors. Shedding has its own tests (edge/src/net/load-shedding.test.ts).
      shedLagMs: 0,
      reportDir: 'test-artifacts/loadtest',
      progress: 'off',
    });

    expect(result.invariants, result.text).not.toBeNull();
    expect(result.invariants!.breaches, result.text).toEqual([]);
    const seats = result.invariants!.showtimes[0]!;
    expect(seats.held + seats.booked + seats.available).toBe(60);
    expect(result.invariants!.figures.bookingsConfirmed, result.text).toBeGreaterThan(0);
    expect(result.invariants!.figures.paymentsWithBooking).toBe(result.invariants!.figures.bookingsConfirmed);
    // Never more admitted at once than the room allows (sampled once a second), nor more per
    // minute than its rate and the bucket's burst (ceil(600 / 12) = 50).
    for (const second of result.recorder.seconds) expect(second.active ?? 0).toBeLessThanOrEqual(capacity);
    expect(result.recorder.maxAdmissionsPerMinute()).toBeLessThanOrEqual(600 + 50);
    // Every buyer finished or was cut at the limit; none hit a server error.
    for (const [endpoint, stats] of result.recorder.endpoints) {
      const serverErrors = [...stats.statuses]
        .filter(([status]) => status >= 500 || status === 0)
        .reduce((n, [, count]) => n + count, 0);
      expect(serverErrors, `${endpoint}: ${result.text}`).toBe(0);
    }
  }, 120_000);
});
