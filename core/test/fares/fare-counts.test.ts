import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { isolatedDatabase } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { holdAmountCents } from '../../src/fares/fare-repo';
import { sweepExpiredHolds } from '../../src/jobs/sweeper';
import { createCoreHarness, releasedTogether, TEST_ADMIN_TOKEN, unique, type CoreHarness } from '../core-harness';
import { classTotals, countMismatches, createPlacesClass, payHold } from './fare-harness';

// A database of its own: the sweeper below acts on every lapsed hold.
let db: Awaited<ReturnType<typeof isolatedDatabase>>;
let sql: Sql;
let harness: CoreHarness;

beforeAll(async () => {
  db = await isolatedDatabase('fare_counts');
  sql = connectDatabase(db.url, { max: 12, applicationName: 'test-fare-counts' });
  harness = await createCoreHarness(sql);
});
afterAll(async () => {
  await sql.end();
  await db.drop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

const pay = (holdId: string, showtimeId: number, customerId: string) => payHold(sql, holdId, showtimeId, customerId);

describe('class counters always equal the seats and holds', () => {
  it('seated stampede with cancels: every snapshot taken during the crowd agrees, bucket by bucket', async () => {
    const { showtimeId } = await harness.createShowtime({ layout: { rows: 15, columns: 20 } });
    const [standard] = await sql<
      { buckets: number }[]
    >`SELECT buckets FROM fare_class WHERE showtime_id = ${showtimeId} AND fare_class = 'STANDARD'`;
    expect(standard!.buckets).toBeGreaterThan(1);
    const seats = (
      await sql<{ seat_code: string }[]>`SELECT seat_code FROM show_seat WHERE showtime_id = ${showtimeId}`
    ).map((r) => r.seat_code);
    const buyers = Array.from({ length: 1200 }, (_, i) => ({
      customerId: unique('st'),
      seats: Array.from({ length: 1 + (i % 3) }, (_, k) => seats[(i * 7 + k * 13) % 60]!),
      cancels: i % 5 === 0,
    }));
    const tokens = await Promise.all(buyers.map((b) => harness.tokenFor(b.customerId, showtimeId)));

    let running = true;
    // The sampler recounts whole tables: sequential scans on (connect.ts), or a recount is slow
    // enough for the crowd to finish before the third.
    const samplerSql = connectDatabase(db.url, { max: 1, applicationName: 'test-fare-sampler', sequentialScans: true });
    const mismatchesSeen: unknown[] = [];
    let samples = 0;
    const sampler = (async () => {
      while (running) {
        const found = await countMismatches(samplerSql, showtimeId);
        samples++;
        if (found.length > 0) mismatchesSeen.push(found);
      }
    })();
    const statuses = await releasedTogether(buyers.length, async (i) => {
      const buyer = buyers[i]!;
      const response = await harness.call('POST', `/showtimes/${showtimeId}/holds`, {
        token: tokens[i],
        body: { seats: [...new Set(buyer.seats)] },
      });
      if (response.status === 201 && buyer.cancels)
        await harness.call('DELETE', `/holds/${response.json.holdId}`, { token: tokens[i] });
      return response.status;
    });
    running = false;
    await sampler;
    await samplerSql.end();

    expect(statuses.filter((s) => s !== 201 && s !== 409)).toEqual([]);
    expect(samples).toBeGreaterThan(2);
    expect(mismatchesSeen).toEqual([]);
    expect(await countMismatches(sql, showtimeId)).toEqual([]);
    const totals = await classTotals(sql, showtimeId, 'STANDARD');
    expect(totals.held).toBe((await harness.seatStatusCounts(showtimeId)).held);
    expect(totals.capacity).toBe(300);
  });

  it('seats: a lapsed seat retaken keeps the count; the sweeper and a paid-then-refunded booking move it', async () => {
    const { showtimeId } = await harness.createShowtime({ holdTtlMs: 1000 });
    const first = await harness.hold(showtimeId, unique('a'), ['A1', 'A2']);
    expect(first.status).toBe(201);
    expect((await classTotals(sql, showtimeId, 'STANDARD')).held).toBe(2);
    await sleep(1200);
    const retake = await harness.hold(showtimeId, unique('b'), ['A2', 'A3']);
    expect(retake.status).toBe(201);
    // A1 still HELD (lapsed) under the first hold, A2 retaken, A3 new: three HELD seats.
    expect((await classTotals(sql, showtimeId, 'STANDARD')).held).toBe(3);
    expect(await countMismatches(sql, showtimeId)).toEqual([]);
    await sleep(1200);
    expect(await sweepExpiredHolds(sql)).toBeGreaterThanOrEqual(2);
    expect(await classTotals(sql, showtimeId, 'STANDARD')).toMatchObject({ held: 0, sold: 0 });

    const buyer = unique('c');
    const paid = await harness.hold(showtimeId, buyer, ['B1', 'B2']);
    await sql`UPDATE seat_hold SET expires_at = now() + interval '1 minute' WHERE id = ${paid.json.holdId}`;
    await sql`UPDATE show_seat SET hold_expires_at = now() + interval '1 minute' WHERE hold_id = ${paid.json.holdId}`;
    const settled = await pay(paid.json.holdId, showtimeId, buyer);
    expect(settled.kind).toBe('booked');
    expect(await classTotals(sql, showtimeId, 'STANDARD')).toMatchObject({ held: 0, sold: 2 });
    const bookingId = (settled as { bookingId: string }).bookingId;
    expect((await harness.call('POST', `/admin/bookings/${bookingId}/refund`, { headers: admin })).status).toBe(200);
    expect(await classTotals(sql, showtimeId, 'STANDARD')).toMatchObject({ held: 0, sold: 0 });
    expect(await countMismatches(sql, showtimeId)).toEqual([]);
  });

  it('general admission: a lapsed hold gives its places to the next buyer without a sweeper', async () => {
    const { showtimeId } = await harness.createShowtime({ holdTtlMs: 1000, layout: { rows: 1, columns: 2 } });
    await createPlacesClass(sql, { showtimeId, fareClass: 'GA', capacity: 5, buckets: 2 });
    const first = await harness.call('POST', `/showtimes/${showtimeId}/holds`, {
      token: await harness.tokenFor(unique('a'), showtimeId),
      body: { fareClass: 'GA', quantity: 5 },
    });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ seats: [], fareClass: 'GA', quantity: 5 });
    const late = unique('b');
    const refused = await harness.call('POST', `/showtimes/${showtimeId}/holds`, {
      token: await harness.tokenFor(late, showtimeId),
      body: { fareClass: 'GA', quantity: 1 },
    });
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({
      code: 'PLACES_UNAVAILABLE',
      fareClass: 'GA',
      available: 0,
      requested: 1,
    });
    await sleep(1200);
    const second = await harness.call('POST', `/showtimes/${showtimeId}/holds`, {
      token: await harness.tokenFor(late, showtimeId),
      body: { fareClass: 'GA', quantity: 5 },
    });
    expect(second.status).toBe(201);
    const [old] = await sql<{ status: string }[]>`SELECT status FROM seat_hold WHERE id = ${first.json.holdId}`;
    expect(old!.status).toBe('EXPIRED');
    const released =
      await sql`SELECT 1 FROM outbox WHERE type = 'HoldReleased' AND payload->>'holdId' = ${first.json.holdId}`;
    expect(released).toHaveLength(1);
    expect(await classTotals(sql, showtimeId, 'GA')).toMatchObject({ held: 5, sold: 0 });
    expect(await countMismatches(sql, showtimeId)).toEqual([]);
  });

  it('general admission: cancel, pay at the class price, refund; each moves the count once', async () => {
    const { showtimeId } = await harness.createShowtime({ layout: { rows: 1, columns: 2 }, priceCents: 1000 });
    await createPlacesClass(sql, {
      showtimeId,
      fareClass: 'GA',
      capacity: 10,
      overbookLimit: 2,
      buckets: 3,
      priceCents: 2500,
    });
    const buyer = unique('ga');
    const token = await harness.tokenFor(buyer, showtimeId);
    const cancelled = await harness.call('POST', `/showtimes/${showtimeId}/holds`, {
      token,
      body: { fareClass: 'GA', quantity: 2 },
    });
    expect((await classTotals(sql, showtimeId, 'GA')).held).toBe(2);
    expect((await harness.call('DELETE', `/holds/${cancelled.json.holdId}`, { token })).status).toBe(204);
    expect((await harness.call('DELETE', `/holds/${cancelled.json.holdId}`, { token })).status).toBe(204);
    expect((await classTotals(sql, showtimeId, 'GA')).held).toBe(0);

    const kept = await harness.call('POST', `/showtimes/${showtimeId}/holds`, {
      token,
      body: { fareClass: 'GA', quantity: 3 },
    });
    expect(await holdAmountCents(sql, kept.json.holdId, showtimeId)).toBe(7500);
    const settled = await pay(kept.json.holdId, showtimeId, buyer);
    expect(settled.kind).toBe('booked');
    expect(await classTotals(sql, showtimeId, 'GA')).toMatchObject({ held: 0, sold: 3 });
    const view = await harness.call('GET', `/holds/${kept.json.holdId}`, { token });
    expect(view.json).toMatchObject({
      status: 'CONFIRMED',
      fareClass: 'GA',
      quantity: 3,
      bookingId: (settled as { bookingId: string }).bookingId,
    });
    // Places already owned count against the per-customer limit (8 by default).
    const tooMany = await harness.call('POST', `/showtimes/${showtimeId}/holds`, {
      token,
      body: { fareClass: 'GA', quantity: 6 },
    });
    expect(tooMany.json.error).toMatchObject({ code: 'SEAT_LIMIT_EXCEEDED', owned: 3 });
    const seatsToo = await harness.call('POST', `/showtimes/${showtimeId}/holds`, {
      token,
      body: { seats: ['A1', 'A2'] },
    });
    expect(seatsToo.status).toBe(201);

    const refund = await harness.call(
      'POST',
      `/admin/bookings/${(settled as { bookingId: string }).bookingId}/refund`,
      { headers: admin },
    );
    expect(refund.status).toBe(200);
    expect(await classTotals(sql, showtimeId, 'GA')).toMatchObject({ held: 0, sold: 0 });
    expect(await countMismatches(sql, showtimeId)).toEqual([]);
  });

  it('a showtime is sold out only when its seats are booked and its general-admission places sold', async () => {
    const { showtimeId } = await harness.createShowtime({ layout: { rows: 1, columns: 2 } });
    await createPlacesClass(sql, { showtimeId, fareClass: 'GA', capacity: 1 });
    const soldOut = async () =>
      (await sql<{ at: Date | null }[]>`SELECT sold_out_at AS at FROM showtime WHERE id = ${showtimeId}`)[0]!.at !==
      null;
    const state = async () =>
      (await harness.call('GET', '/showtimes')).json.find((s: { id: number }) => s.id === showtimeId)?.saleState;
    const seatBuyer = unique('seats');
    const seats = await harness.hold(showtimeId, seatBuyer, ['A1', 'A2']);
    expect((await pay(seats.json.holdId, showtimeId, seatBuyer)).kind).toBe('booked');
    expect(await soldOut()).toBe(false);
    expect(await state()).toBe('on_sale');
    const placeBuyer = unique('place');
    const place = await harness.call('POST', `/showtimes/${showtimeId}/holds`, {
      token: await harness.tokenFor(placeBuyer, showtimeId),
      body: { fareClass: 'GA', quantity: 1 },
    });
    expect(await state()).toBe('sold_out');
    expect((await pay(place.json.holdId, showtimeId, placeBuyer)).kind).toBe('booked');
    expect(await soldOut()).toBe(true);
    expect(await sql`SELECT 1 FROM outbox WHERE type = 'ShowtimeSoldOut' AND showtime_id = ${showtimeId}`).toHaveLength(
      1,
    );
  });
});
