import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { isolatedDatabase } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { sweepExpiredHolds } from '../../src/jobs/sweeper';
import { createCoreHarness, releasedTogether, unique, type CoreHarness } from '../core-harness';

/**
 * Lock order: every statement that locks several show_seat rows takes them in seat-code order
 * (hold_seats, cancel, confirm, sweep, refund). Here a buyer cancels a hold of eight seats at
 * the instant eight other buyers try to hold pairs and triples of those same seats, for many
 * rounds. With the cancel locking in scan order this deadlocked within a few rounds ("deadlock
 * detected … show_seat", a 500 to the buyer who cancelled); in seat-code order nothing waits
 * in a circle. Its own database, so the server's deadlock counter counts only this file.
 */
const ROUNDS = 120;
const SEATS = ['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7', 'A8'];

let db: { url: string; drop(): Promise<void> };
let sql: Sql;
let h: CoreHarness;
beforeAll(async () => {
  db = await isolatedDatabase('lockorder');
  sql = connectDatabase(db.url, { max: 24, applicationName: 'test-lock-order' });
  h = await createCoreHarness(sql);
});
afterAll(async () => {
  await sql.end({ timeout: 1 });
  await db.drop();
});

async function deadlocksSoFar(): Promise<number> {
  const [row] = await sql<
    { deadlocks: number }[]
  >`SELECT deadlocks::int FROM pg_stat_database WHERE datname = current_database()`;
  return row!.deadlocks;
}

function randomSubset(): string[] {
  const size = 2 + Math.floor(Math.random() * 2);
  return [...SEATS].sort(() => Math.random() - 0.5).slice(0, size);
}

it(`cancels racing new holds on the same seats: ${ROUNDS} rounds, no deadlock, no 5xx`, async () => {
  const { showtimeId } = await h.createShowtime({ layout: { rows: 1, columns: 8 } });
  const before = await deadlocksSoFar();
  const statuses = new Map<string, number>();
  const count = (label: string) => statuses.set(label, (statuses.get(label) ?? 0) + 1);
  for (let round = 0; round < ROUNDS; round++) {
    const owner = unique('owner');
    const ownerToken = await h.tokenFor(owner, showtimeId);
    const first = await h.call('POST', `/showtimes/${showtimeId}/holds`, {
      token: ownerToken,
      body: { seats: [...SEATS].reverse() },
    });
    expect(first.status, JSON.stringify(first.json)).toBe(201);
    // Under real churn a hold's rows come back from an index scan in any order. Put them in
    // reverse seat-code order here, whichever index a plan scans: one update per seat, last
    // code first (each a new row version, stored after the previous one), moving an indexed
    // column (expiry, a few microseconds earlier for later codes). A statement that locks "in
    // scan order" then meets the buyers' seat-code order head on, as it did under load.
    for (const seat of [...SEATS].reverse()) {
      await sql`
        UPDATE show_seat SET hold_expires_at = hold_expires_at - make_interval(secs => right(seat_code, 1)::int / 1e6)
         WHERE showtime_id = ${showtimeId} AND seat_code = ${seat}`;
    }
    const buyers = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const customer = unique('racer');
        return { customer, token: await h.tokenFor(customer, showtimeId), seats: randomSubset() };
      }),
    );
    const results = await releasedTogether(buyers.length + 1, async (index) => {
      if (index === 0) {
        const cancel = await h.call('DELETE', `/holds/${first.json.holdId}`, { token: ownerToken });
        count(`cancel ${cancel.status}`);
        return cancel;
      }
      const buyer = buyers[index - 1]!;
      const hold = await h.call('POST', `/showtimes/${showtimeId}/holds`, {
        token: buyer.token,
        body: { seats: buyer.seats },
      });
      count(`hold ${hold.status}`);
      return { ...hold, buyer };
    });
    for (const result of results) expect(result.status, JSON.stringify(result.json)).toBeLessThan(500);
    // Give the seats back for the next round (the winners' holds).
    for (const result of results.slice(1)) {
      if (result.status === 201 && 'buyer' in result) {
        expect((await h.call('DELETE', `/holds/${result.json.holdId}`, { token: result.buyer.token })).status).toBe(
          204,
        );
      }
    }
  }
  expect(statuses.get('cancel 204')).toBe(ROUNDS);
  expect(statuses.get('hold 201') ?? 0).toBeGreaterThan(0); // the race was real: seats did change hands
  expect(await deadlocksSoFar()).toBe(before);
});

it('the sweeper and buyers taking lapsed seats do not deadlock either', async () => {
  const { showtimeId } = await h.createShowtime({ layout: { rows: 1, columns: 8 } });
  // Lapse every live hold of the showtime now (the database clock decides), instead of sleeping.
  const lapseAll = () => sql`
    WITH lapsed AS (UPDATE seat_hold SET created_at = now() - interval '1 minute', expires_at = now() - interval '1 second'
                     WHERE showtime_id = ${showtimeId} AND status = 'ACTIVE' RETURNING id)
    UPDATE show_seat SET hold_expires_at = now() - interval '1 second'
     WHERE showtime_id = ${showtimeId} AND hold_id IN (SELECT id FROM lapsed)`;
  const before = await deadlocksSoFar();
  for (let round = 0; round < 60; round++) {
    const owners = await Promise.all(
      [SEATS.slice(0, 4), SEATS.slice(4)].map(async (seats) => {
        const owner = unique('lapsing');
        return h.call('POST', `/showtimes/${showtimeId}/holds`, {
          token: await h.tokenFor(owner, showtimeId),
          body: { seats: [...seats].reverse() },
        });
      }),
    );
    for (const owner of owners) expect(owner.status).toBe(201);
    await lapseAll();
    const buyers = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const customer = unique('late');
        return { token: await h.tokenFor(customer, showtimeId), seats: randomSubset() };
      }),
    );
    const results = await releasedTogether(buyers.length + 1, async (index) => {
      if (index === 0) return sweepExpiredHolds(sql).then(() => ({ status: 200, json: null }));
      const buyer = buyers[index - 1]!;
      return h.call('POST', `/showtimes/${showtimeId}/holds`, { token: buyer.token, body: { seats: buyer.seats } });
    });
    for (const result of results) expect(result.status, JSON.stringify(result.json)).toBeLessThan(500);
    await lapseAll(); // the winners' holds lapse too
  }
  expect(await deadlocksSoFar()).toBe(before);
});
