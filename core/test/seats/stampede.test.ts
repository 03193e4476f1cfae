import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { Redis } from 'ioredis';
import { testDatabaseUrl, testRedisNamespace, testRedisUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { createIoredisStore } from '../../../queue/src/index';
import { createCoreHarness, releasedTogether, type CoreHarness } from '../core-harness';

let sql: Sql;
let redis: Redis;
const harnesses: Record<'alone' | 'gated', CoreHarness> = {} as never;

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 32, applicationName: 'test-stampede' });
  redis = new Redis(testRedisUrl());
  harnesses.alone = await createCoreHarness(sql);
  // The same crowd with the Redis seat gate in front of the database (core/src/gate/).
  harnesses.gated = await createCoreHarness(sql, {
    gate: { store: createIoredisStore(redis), keyPrefix: testRedisNamespace('stampede-gate') },
  });
});
afterAll(async () => {
  await sql.end();
  redis?.disconnect();
});

function pick<T>(items: T[], count: number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, count);
}

describe.each(['alone', 'gated'] as const)('database %s', (mode) => {
  it('300 seats, 3,000 buyers, half of them on the same 10 seats: no seat held twice, counts always add up', async () => {
    const harness = harnesses[mode];
    const attemptsBefore = (await harness.metrics.holdDatabaseAttempts.get()).values[0]?.value ?? 0;
    const { showtimeId } = await harness.createShowtime({ layout: { rows: 15, columns: 20 } });
    const allSeats = (
      await sql<{ seat_code: string }[]>`
      SELECT seat_code FROM show_seat WHERE showtime_id = ${showtimeId} ORDER BY seat_code`
    ).map((r) => r.seat_code);
    expect(allSeats).toHaveLength(300);
    const hotSeats = pick(allSeats, 10);
    const coldSeats = allSeats.filter((seat) => !hotSeats.includes(seat));

    const buyers = Array.from({ length: 3000 }, (_, i) => ({
      customerId: `stampede-${i}`,
      seats: i % 2 === 0 ? pick(hotSeats, 1 + (i % 3)) : pick(coldSeats, 1 + (i % 4)),
      cancels: i % 10 === 1,
    }));
    const tokens = await Promise.all(buyers.map((b) => harness.tokenFor(b.customerId, showtimeId)));

    // Sample the seat table while the crowd runs: every sample must account for all 300 seats.
    let running = true;
    // Its own connection, so samples are not queued behind the crowd in the pool.
    const samplerSql = connectDatabase(testDatabaseUrl(), { max: 1, applicationName: 'test-stampede-sampler' });
    const samples: { available: number; held: number; booked: number; total: number }[] = [];
    const sampler = (async () => {
      while (running) {
        samples.push(await harness.seatStatusCounts(showtimeId, samplerSql));
      }
    })();

    const outcomes = await releasedTogether(buyers.length, async (i) => {
      const buyer = buyers[i]!;
      const response = await harness.call('POST', `/showtimes/${showtimeId}/holds`, {
        token: tokens[i],
        body: { seats: buyer.seats },
      });
      if (response.status === 201 && buyer.cancels) {
        const cancelled = await harness.call('DELETE', `/holds/${response.json.holdId}`, { token: tokens[i] });
        return {
          buyer,
          status: response.status,
          holdId: response.json.holdId as string,
          cancelled: cancelled.status === 204,
        };
      }
      return { buyer, status: response.status, holdId: response.json?.holdId as string | undefined, cancelled: false };
    });
    running = false;
    await sampler;
    await samplerSql.end();

    expect(outcomes.filter((o) => ![201, 409].includes(o.status))).toEqual([]);
    expect(samples.length).toBeGreaterThan(3);
    for (const sample of samples) {
      expect(sample.total).toBe(300);
      expect(sample.available + sample.held + sample.booked).toBe(300);
    }

    // Every live hold's seats belong to it alone, and the table agrees with the answers given.
    const live = outcomes.filter((o) => o.status === 201 && !o.cancelled);
    const heldSeats = live.flatMap((o) => o.buyer.seats);
    expect(new Set(heldSeats).size).toBe(heldSeats.length);
    const rows = await sql<{ seat_code: string; hold_id: string }[]>`
      SELECT seat_code, hold_id FROM show_seat WHERE showtime_id = ${showtimeId} AND status = 'HELD'`;
    const expected = new Map(live.flatMap((o) => o.buyer.seats.map((seat) => [seat, o.holdId] as const)));
    expect(new Map(rows.map((r) => [r.seat_code, r.hold_id]))).toEqual(expected);
    // The hot seats were fought over: most hot buyers lost, and some hot seats were won.
    expect(outcomes.filter((o, i) => i % 2 === 0 && o.status === 409).length).toBeGreaterThan(1000);
    // Behind the gate most of the lost races never reached the database.
    const attempts = ((await harness.metrics.holdDatabaseAttempts.get()).values[0]?.value ?? 0) - attemptsBefore;
    if (mode === 'gated') expect(attempts).toBeLessThan(buyers.length / 2);
    else expect(attempts).toBeGreaterThanOrEqual(buyers.length);
  });
});
