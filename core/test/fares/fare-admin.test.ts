import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { testDatabaseUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { holdAmountCents } from '../../src/fares/fare-repo';
import { createCoreHarness, TEST_ADMIN_TOKEN, unique, type CoreHarness } from '../core-harness';
import { countMismatches } from './fare-harness';

let sql: Sql;
let h: CoreHarness;

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 4, applicationName: 'test-fare-admin' });
  h = await createCoreHarness(sql);
});
afterAll(async () => {
  await sql.end();
});

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const put = (showtimeId: number, fareClass: string, body: unknown, headers: Record<string, string> = admin) =>
  h.call('PUT', `/admin/showtimes/${showtimeId}/fares/${fareClass}`, { headers, body });

describe('operator: fare classes', () => {
  it('lists the seated class from the hall, creates a general-admission class with overbooking, changes prices and buckets, audits each change', async () => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 4, columns: 10 }, priceCents: 1200 });
    const listed = await h.call('GET', `/admin/showtimes/${showtimeId}/fares`, { headers: admin });
    expect(listed.status).toBe(200);
    expect(listed.json.fareClasses).toEqual([
      expect.objectContaining({
        fareClass: 'STANDARD',
        seated: true,
        capacity: 40,
        overbookLimit: 0,
        priceCents: 1200,
        ownPrice: false,
        sold: 0,
        held: 0,
        available: 40,
      }),
    ]);

    const created = await put(showtimeId, 'GA_FLOOR', {
      label: 'Standing floor',
      priceCents: 3000,
      capacity: 50,
      overbookLimit: 3,
      buckets: 10,
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      fareClass: 'GA_FLOOR',
      label: 'Standing floor',
      seated: false,
      capacity: 50,
      overbookLimit: 3,
      buckets: 10,
      available: 53,
    });

    const repriced = await put(
      showtimeId,
      'STANDARD',
      { priceCents: 1500, buckets: 4 },
      { ...admin, 'x-operator': 'ops-anna' },
    );
    expect(repriced.status).toBe(200);
    expect(repriced.json).toMatchObject({ priceCents: 1500, ownPrice: true, buckets: 4, capacity: 40 });
    expect(
      await sql`SELECT 1 FROM fare_inventory WHERE showtime_id = ${showtimeId} AND fare_class = 'STANDARD'`,
    ).toHaveLength(4);

    // A buyer sees both classes with their prices on the seat map, each seat with its class.
    const token = await h.tokenFor(unique('buyer'), showtimeId);
    const map = await h.call('GET', `/showtimes/${showtimeId}/seats`, { token });
    expect(map.json.fareClasses).toEqual([
      { fareClass: 'STANDARD', label: 'Standard', priceCents: 1500, seated: true, available: 40 },
      { fareClass: 'GA_FLOOR', label: 'Standing floor', priceCents: 3000, seated: false, available: 53 },
    ]);
    expect(map.json.seats[0]).toMatchObject({ fareClass: 'STANDARD' });

    // Live counts follow holds; capacity cannot drop below what is held.
    await h.call('POST', `/showtimes/${showtimeId}/holds`, { token, body: { fareClass: 'GA_FLOOR', quantity: 4 } });
    await h.call('POST', `/showtimes/${showtimeId}/holds`, { token, body: { seats: ['A1', 'A2'] } });
    const live = await h.call('GET', `/admin/showtimes/${showtimeId}/fares`, { headers: admin });
    expect(live.json.fareClasses.find((c: { fareClass: string }) => c.fareClass === 'GA_FLOOR')).toMatchObject({
      held: 4,
      available: 49,
    });
    expect(live.json.fareClasses.find((c: { fareClass: string }) => c.fareClass === 'STANDARD')).toMatchObject({
      held: 2,
      available: 38,
    });
    const tooSmall = await put(showtimeId, 'GA_FLOOR', { capacity: 2, overbookLimit: 0 });
    expect(tooSmall.status).toBe(409);
    expect(tooSmall.json.error).toMatchObject({ code: 'FARE_CLASS_IN_USE', used: 4 });
    expect((await put(showtimeId, 'GA_FLOOR', { capacity: 4, overbookLimit: 0 })).status).toBe(200);
    expect(await countMismatches(sql, showtimeId)).toEqual([]);

    const audit = await sql<{ actor: string; action: string }[]>`
      SELECT actor, action FROM operator_audit WHERE showtime_id = ${showtimeId} AND action LIKE 'fare.%' ORDER BY id`;
    expect(audit).toEqual([
      { actor: 'admin-token', action: 'fare.create' },
      { actor: 'ops-anna', action: 'fare.update' },
      { actor: 'admin-token', action: 'fare.update' },
    ]);
  });

  it('a hall whose seats are in two classes: each showtime gets both, counted by their seats, priced apart', async () => {
    const venue = await h.call('POST', '/admin/venues', { headers: admin, body: { name: unique('venue') } });
    const seats = [1, 2, 3, 4].map((column) => ({
      code: `A${column}`,
      row: 1,
      rowLabel: 'A',
      column,
      fareClass: column <= 2 ? 'PREMIUM' : 'STALLS',
    }));
    const hall = await h.call('POST', `/admin/venues/${venue.json.id}/halls`, {
      headers: admin,
      body: { name: 'Two classes', seats },
    });
    expect(hall.status).toBe(201);
    const { showtimeId } = await h.createShowtime({ hallId: hall.json.id, priceCents: 900 });
    expect((await put(showtimeId, 'PREMIUM', { priceCents: 2000 })).status).toBe(200);
    const token = await h.tokenFor(unique('buyer'), showtimeId);
    const held = await h.call('POST', `/showtimes/${showtimeId}/holds`, { token, body: { seats: ['A1', 'A3', 'A4'] } });
    expect(held.status).toBe(201);
    const classes = (await h.call('GET', `/admin/showtimes/${showtimeId}/fares`, { headers: admin })).json.fareClasses;
    expect(classes).toEqual([
      expect.objectContaining({ fareClass: 'PREMIUM', capacity: 2, held: 1, priceCents: 2000 }),
      expect.objectContaining({ fareClass: 'STALLS', capacity: 2, held: 2, priceCents: 900 }),
    ]);
    // Checkout charges each seat at its class's price: one PREMIUM and two STALLS.
    expect(await holdAmountCents(sql, held.json.holdId, showtimeId)).toBe(2000 + 900 + 900);
    expect(await countMismatches(sql, showtimeId)).toEqual([]);
  });

  it('bad input is a clear 4xx and changes nothing', async () => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 1, columns: 4 } });
    const cases: [string, unknown, number, string][] = [
      ['STANDARD', { capacity: 10 }, 422, 'SEATED_CLASS_CAPACITY'],
      ['STANDARD', { overbookLimit: 1 }, 422, 'SEATED_CLASS_CAPACITY'],
      ['GA', { label: 'no capacity' }, 422, 'CAPACITY_REQUIRED'],
      ['GA', { capacity: -1 }, 422, 'VALIDATION_FAILED'],
      ['GA', { capacity: 10, buckets: 65 }, 422, 'VALIDATION_FAILED'],
      ['GA', { capacity: 10, extra: true }, 422, 'VALIDATION_FAILED'],
      ['GA', {}, 422, 'VALIDATION_FAILED'],
      ['ga-lower', { capacity: 10 }, 422, 'INVALID_FARE_CLASS'],
    ];
    for (const [fareClass, body, status, code] of cases) {
      const response = await put(showtimeId, fareClass, body);
      expect([fareClass, response.status, response.json.error.code]).toEqual([fareClass, status, code]);
    }
    expect((await put(showtimeId, 'GA', { capacity: 1 }, {})).status).toBe(401);
    expect((await put(987654321, 'GA', { capacity: 1 })).status).toBe(404);
    expect((await h.call('GET', '/admin/showtimes/987654321/fares', { headers: admin })).status).toBe(404);
    expect(await sql`SELECT fare_class FROM fare_class WHERE showtime_id = ${showtimeId}`).toEqual([
      { fare_class: 'STANDARD' },
    ]);
    expect(
      await sql`SELECT 1 FROM operator_audit WHERE showtime_id = ${showtimeId} AND action LIKE 'fare.%'`,
    ).toHaveLength(0);

    // Buyers: a seated class by quantity, an unknown class, a bad quantity.
    const token = await h.tokenFor(unique('bad'), showtimeId);
    const holds = `/showtimes/${showtimeId}/holds`;
    expect(
      (await h.call('POST', holds, { token, body: { fareClass: 'STANDARD', quantity: 1 } })).json.error,
    ).toMatchObject({ code: 'UNKNOWN_FARE_CLASS', seated: true });
    expect((await h.call('POST', holds, { token, body: { fareClass: 'NOPE', quantity: 1 } })).status).toBe(422);
    expect((await h.call('POST', holds, { token, body: { fareClass: 'GA', quantity: 0 } })).status).toBe(422);
    expect((await h.call('POST', holds, { token, body: { fareClass: 'GA', quantity: 1.5 } })).status).toBe(422);
    expect(await sql`SELECT 1 FROM seat_hold WHERE showtime_id = ${showtimeId}`).toHaveLength(0);
  });
});
