import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Sql } from 'postgres';
import { testDatabaseUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { createCoreHarness, TEST_ADMIN_TOKEN, unique, type CoreHarness } from '../core-harness';
import { rectangularLayout } from '../../src/demo/seat-layout';
import { seedDemo } from '../../src/demo/seed';

let sql: Sql;
let h: CoreHarness;
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 4, applicationName: 'test-admin' });
  h = await createCoreHarness(sql);
});
afterAll(async () => {
  await sql.end();
});

const layout = () =>
  rectangularLayout({ rows: 3, columns: 4, coupleRows: [3], accessible: [[1, 1]] }).map(
    ({ code, rowLabel, row, column, type }) => ({ code, rowLabel, row, column, type }),
  );

describe('operator sets a sale up', () => {
  it('venue → hall with a seat layout → showtime on sale → buyers see it and its seat map', async () => {
    const venue = await h.call('POST', '/admin/venues', {
      headers: admin,
      body: { name: unique('Odeon'), city: 'Lyon' },
    });
    expect(venue.status).toBe(201);
    const hall = await h.call('POST', `/admin/venues/${venue.json.id}/halls`, {
      headers: admin,
      body: { name: 'Salle 1', seats: layout() },
    });
    expect(hall.status).toBe(201);
    expect(hall.json.seatCount).toBe(12);
    // Within the hour: the public list shows the 100 soonest, and files running beside this one
    // in the same database put their showtimes a day ahead.
    const startsAt = new Date(Date.now() + 3_600_000).toISOString();
    const showtime = await h.call('POST', '/admin/showtimes', {
      headers: admin,
      body: {
        hallId: hall.json.id,
        title: 'Opening night',
        startsAt,
        priceCents: 1500,
        maxSeatsPerCustomer: 4,
        holdTtlMs: 5000,
      },
    });
    expect(showtime.status).toBe(201);
    expect(showtime.json).toMatchObject({
      title: 'Opening night',
      saleState: 'on_sale',
      maxSeatsPerCustomer: 4,
      holdTtlMs: 5000,
      counts: { total: 12, available: 12, held: 0, booked: 0 },
    });

    const list = await h.call('GET', '/showtimes');
    expect(list.json.find((s: { id: number }) => s.id === showtime.json.id)).toMatchObject({
      title: 'Opening night',
      saleState: 'on_sale',
      seatsAvailable: 12,
      venue: { name: venue.json.name, city: 'Lyon' },
      hall: { name: 'Salle 1' },
    });

    const token = await h.tokenFor(unique('buyer'), showtime.json.id);
    await h.hold(showtime.json.id, unique('holder'), ['A2']);
    const map = await h.call('GET', `/showtimes/${showtime.json.id}/seats`, { token });
    expect(map.status).toBe(200);
    expect(map.json.counts).toEqual({ total: 12, available: 11, held: 1, booked: 0 });
    expect(map.json.seats[0]).toEqual({
      code: 'A1',
      row: 1,
      rowLabel: 'A',
      column: 1,
      label: 'A1',
      type: 'accessible',
      fareClass: 'STANDARD',
      status: 'AVAILABLE',
    });
    expect(map.json.seats.find((s: { code: string }) => s.code === 'A2').status).toBe('HELD');
    expect(map.json.seats.filter((s: { type: string }) => s.type === 'couple')).toHaveLength(4);

    const closed = await h.call('PATCH', `/admin/showtimes/${showtime.json.id}`, {
      headers: admin,
      body: { saleState: 'CLOSED' },
    });
    expect(closed.json.saleState).toBe('closed');
    expect((await h.hold(showtime.json.id, unique('late'), ['A3'])).json.error.code).toBe('SALE_NOT_OPEN');
  });

  it('refuses bad layouts and showtimes with clear errors and writes nothing', async () => {
    const venue = await h.call('POST', '/admin/venues', { headers: admin, body: { name: unique('Rex') } });
    const halls = () => sql<{ n: number }[]>`SELECT count(*)::int AS n FROM hall WHERE venue_id = ${venue.json.id}`;
    const duplicate = [...layout(), { code: 'A1', rowLabel: 'Z', row: 9, column: 9 }];
    const samePlace = [...layout(), { code: 'Q1', rowLabel: 'Q', row: 1, column: 1 }];
    for (const seats of [duplicate, samePlace, [], [{ code: 'a1', rowLabel: 'A', row: 1, column: 1 }]]) {
      const refused = await h.call('POST', `/admin/venues/${venue.json.id}/halls`, {
        headers: admin,
        body: { name: 'X', seats },
      });
      expect(refused.status).toBe(422);
    }
    expect((await halls())[0]!.n).toBe(0);
    const unknownVenue = await h.call('POST', '/admin/venues/99999999/halls', {
      headers: admin,
      body: { name: 'X', seats: layout() },
    });
    expect(unknownVenue.status).toBe(422);

    const startsAt = new Date(Date.now() + 86_400_000).toISOString();
    const bad = [
      { title: 'x', startsAt, priceCents: 100 },
      { hallId: 99999999, title: 'x', startsAt, priceCents: 100 },
      { hallId: 1, title: 'x', startsAt: 'tomorrow', priceCents: 100 },
      {
        hallId: 1,
        title: 'x',
        startsAt,
        opensAt: new Date(Date.now() + 2 * 86_400_000).toISOString(),
        priceCents: 100,
      },
      { hallId: 1, title: 'x', startsAt, priceCents: -1 },
      { hallId: 1, title: 'x', startsAt, priceCents: 100, holdTtlMs: 10 },
    ];
    for (const body of bad) {
      const refused = await h.call('POST', '/admin/showtimes', { headers: admin, body });
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(refused.json.error.code).toBeTruthy();
    }
  });

  it('admin routes need the admin token', async () => {
    expect((await h.call('GET', '/admin/venues')).status).toBe(401);
    expect(
      (await h.call('GET', '/admin/venues', { headers: { authorization: 'Bearer wrong-token-wrong-token' } })).status,
    ).toBe(401);
    const buyerToken = await h.tokenFor('buyer', 1);
    expect((await h.call('GET', '/admin/venues', { token: buyerToken })).status).toBe(401);
  });

  it('generated showtime bodies never cause a 500', async () => {
    // Our own hall, or ids no hall has: other files create showtimes in this database too.
    const hall = await h.createHall({ rows: 1, columns: 3 });
    const ours = () => sql<{ n: number }[]>`SELECT count(*)::int AS n FROM showtime WHERE hall_id = ${hall.id}`;
    let created = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            hallId: fc.oneof(
              fc.constant(hall.id),
              fc.integer({ min: 2_000_000_000 }),
              fc.integer({ max: 0 }),
              fc.string(),
              fc.constant(null),
            ),
            title: fc.oneof(fc.string({ maxLength: 300 }), fc.integer()),
            startsAt: fc.oneof(
              fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
              fc.string(),
            ),
            priceCents: fc.oneof(fc.integer(), fc.double(), fc.string()),
            holdTtlMs: fc.oneof(fc.integer(), fc.constant(undefined)),
          },
          { requiredKeys: [] },
        ),
        async (body) => {
          const response = await h.call('POST', '/admin/showtimes', { headers: admin, body });
          expect([201, 400, 404, 409, 422]).toContain(response.status);
          if (response.status === 201) created++;
        },
      ),
      { numRuns: 150 },
    );
    expect((await ours())[0]!.n).toBe(created);
  });
});

describe('operations', () => {
  it('health, readiness and Prometheus metrics', async () => {
    expect((await h.call('GET', '/healthz')).json).toEqual({ status: 'ok' });
    expect((await h.call('GET', '/readyz')).json).toMatchObject({ status: 'ready' });
    const { showtimeId } = await h.createShowtime();
    await h.hold(showtimeId, unique('m1'), ['A1']);
    await h.hold(showtimeId, unique('m2'), ['A1']);
    const metrics = await h.call('GET', '/metrics');
    expect(metrics.text).toMatch(/core_holds_created_total \d+/);
    expect(metrics.text).toMatch(/core_hold_conflicts_total [1-9]/);
    expect(metrics.text).toContain('core_http_request_duration_seconds_bucket');
  });

  it('the demo seed is idempotent', async () => {
    const first = await seedDemo(sql);
    const second = await seedDemo(sql);
    expect(second).toEqual(first);
    const [seats] = await sql<{ n: number; couple: number; accessible: number }[]>`
      SELECT count(*)::int AS n, count(*) FILTER (WHERE seat_type = 'couple')::int AS couple,
             count(*) FILTER (WHERE seat_type = 'accessible')::int AS accessible
        FROM hall_seat WHERE hall_id = ${first.hallId}`;
    expect(seats).toEqual({ n: 150, couple: 15, accessible: 4 });
  });
});
