/**
 * Text the database cannot store and JSON nested past any sane depth, through the core's
 * operator routes on a database of this file's own: every such body is a 422 naming the field,
 * and nothing is written. The second line (SQLSTATE 22021 / 22P05 from the server itself)
 * is a 422 too; without its mapping it is the 500 it used to be.
 */
import { Hono } from 'hono';
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createErrorHandler } from '../../../lib/http';
import { isolatedDatabase } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { toHttpError } from '../../src/db/sql-errors';
import { createCoreHarness, TEST_ADMIN_TOKEN, type CoreHarness } from '../core-harness';

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let sql: Sql;
let h: CoreHarness;
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const NUL = 'Rex\u0000Cinema';
const LONE = 'Rex \uD800 Cinema';
const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

beforeAll(async () => {
  database = await isolatedDatabase('unsafe_json');
  sql = connectDatabase(database.url, { max: 2, applicationName: 'test-unsafe-json' });
  h = await createCoreHarness(sql);
});
afterAll(async () => {
  await sql?.end();
  await database?.drop();
});

const rowCounts = async () => {
  const [row] = await sql<{ venues: number; halls: number; showtimes: number; fares: number }[]>`
    SELECT (SELECT count(*) FROM venue)::int AS venues, (SELECT count(*) FROM hall)::int AS halls,
           (SELECT count(*) FROM showtime)::int AS showtimes, (SELECT count(*) FROM fare_class)::int AS fares`;
  return row!;
};

describe('the core refuses text PostgreSQL cannot store, naming the field', () => {
  it('venue, hall, showtime title and fare label: 422 VALIDATION_FAILED with the path, nothing written', async () => {
    const { showtimeId, hallId } = await h.createShowtime({ layout: { rows: 2, columns: 2 } });
    const [hallRow] = await sql<{ venue_id: number }[]>`SELECT venue_id FROM hall WHERE id = ${hallId}`;
    const venueId = hallRow!.venue_id;
    const before = await rowCounts();
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/admin/venues', { name: NUL, city: 'Lyon' }, 'name'],
      ['POST', '/admin/venues', { name: 'Rex', city: LONE }, 'city'],
      [
        'POST',
        `/admin/venues/${venueId}/halls`,
        { name: NUL, seats: [{ code: 'A1', rowLabel: 'A', row: 1, column: 1, type: 'standard' }] },
        'name',
      ],
      [
        'POST',
        `/admin/venues/${venueId}/halls`,
        { name: 'Hall', seats: [{ code: 'A1', rowLabel: LONE, row: 1, column: 1, type: 'standard' }] },
        'seats.0.rowLabel',
      ],
      [
        'POST',
        '/admin/showtimes',
        { hallId, title: NUL, startsAt: new Date(Date.now() + 86_400_000).toISOString(), priceCents: 1000 },
        'title',
      ],
      ['PATCH', `/admin/showtimes/${showtimeId}`, { title: LONE }, 'title'],
      ['PUT', `/admin/showtimes/${showtimeId}/fares/GA_FLOOR`, { label: NUL, priceCents: 3000, capacity: 50 }, 'label'],
      ['PUT', `/admin/showtimes/${showtimeId}/fares/STANDARD`, { label: LONE }, 'label'],
    ];
    for (const [method, path, body, field] of cases) {
      const answer = await h.call(method, path, { headers: admin, body });
      expect(answer.status, `${method} ${path} ${field}`).toBe(422);
      expect(answer.json.error).toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ path: field }] });
    }
    expect(await rowCounts()).toEqual(before);
    const [show] = await sql<{ title: string }[]>`SELECT title FROM showtime WHERE id = ${showtimeId}`;
    expect(show!.title).not.toContain('\uFFFD');
  });

  it('a 10 KB body nested 5,000 deep is a 422 on every JSON route, never a 500', async () => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 2, columns: 2 } });
    const routes: Array<[string, string]> = [
      ['POST', '/admin/venues'],
      ['POST', '/admin/showtimes'],
      ['PATCH', `/admin/showtimes/${showtimeId}`],
      ['PUT', `/admin/showtimes/${showtimeId}/fares/GA_FLOOR`],
      ['PUT', `/admin/showtimes/${showtimeId}/seat-classes`],
      ['PUT', `/admin/showtimes/${showtimeId}/refund-policy`],
      ['POST', `/showtimes/${showtimeId}/holds`],
    ];
    const token = await h.tokenFor('deep-buyer', showtimeId);
    for (const [method, path] of routes) {
      const answer = await h.call(method, path, {
        headers: admin,
        rawBody: deep(5_000),
        ...(path.includes('/holds') ? { token } : {}),
      });
      expect(answer.status, `${method} ${path}`).toBe(422);
      expect(answer.json.error.code).toBe('VALIDATION_FAILED');
      expect(answer.json.error.message).toContain('deeper than 32');
    }
  });
});

describe('SQLSTATE 22021 and 22P05 from the server are a 422 (the second line)', () => {
  const appWith = (translate: (error: unknown) => unknown) => {
    const app = new Hono();
    app.onError(createErrorHandler(() => {}, translate));
    // Text that reaches SQL without the JSON guard (a NUL as a parameter; a \u0000 escape in jsonb).
    app.get('/nul', async (c) => c.json(await sql`SELECT ${'a\u0000b'}::text AS t`));
    app.get('/jsonb', async (c) => c.json(await sql.unsafe(`SELECT ('"\\u0000"'::json) #>> '{}' AS t`)));
    return app;
  };

  it('maps both to 422 INVALID_VALUE', async () => {
    const app = appWith(toHttpError);
    for (const path of ['/nul', '/jsonb']) {
      const answer = await app.request(path);
      expect(answer.status, path).toBe(422);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('INVALID_VALUE');
    }
  });

  it('broken variant: without the mapping both are 500s', async () => {
    const unmapped = (error: unknown) =>
      ['22021', '22P05'].includes((error as { code?: string }).code ?? '') ? error : toHttpError(error);
    const app = appWith(unmapped);
    expect((await app.request('/nul')).status).toBe(500);
    expect((await app.request('/jsonb')).status).toBe(500);
  });
});
