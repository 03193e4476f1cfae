/**
 * The audit log on real PostgreSQL: every operator change, on every route, writes one row with
 * the real before and after of each field it moved, a new version, the source address and the
 * actor labelled with how they signed in. A PATCH of the showtime used to record before ==
 * after (the view left its fields out) and keep the version; so did burst and bucket changes.
 */
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { rectangularLayout } from '../../src/demo/seat-layout';
import { insertAudit, lockForAudit } from '../../src/audit/audit-log';
import { createCoreHarness, releasedTogether, TEST_ADMIN_TOKEN, type CoreHarness } from '../core-harness';

let sql: Sql;
let h: CoreHarness;
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const fromConsole = {
  ...admin,
  'x-operator': 'pat',
  'x-operator-via': 'console',
  'x-operator-source': '2001:db8:aa:bb::5',
};

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 4, applicationName: 'test-operator-audit' });
  h = await createCoreHarness(sql);
});
afterAll(async () => {
  await sql.end();
});

const versionOf = async (showtimeId: number) =>
  Number((await h.call('GET', `/admin/showtimes/${showtimeId}/room`, { headers: admin })).json.version);
const latestAudit = async (showtimeId: number) =>
  (await h.call('GET', `/admin/showtimes/${showtimeId}/room/audit`, { headers: admin })).json.entries[0];

describe('operator audit', () => {
  it('a venue and a hall, which belong to no showtime, are audited by what they are', async () => {
    const name = `Audited ${Date.now()}`;
    const venue = await h.call('POST', '/admin/venues', { headers: fromConsole, body: { name, city: 'Lyon' } });
    expect(venue.status).toBe(201);
    const seats = rectangularLayout({ rows: 2, columns: 3 }).map(({ code, rowLabel, row, column, type }) => ({
      code,
      rowLabel,
      row,
      column,
      type,
    }));
    const hall = await h.call('POST', `/admin/venues/${venue.json.id}/halls`, {
      headers: admin,
      body: { name: 'Salle A', seats, idealRow: 2 },
    });
    expect(hall.status).toBe(201);
    const rows = await sql<
      {
        subject: string;
        showtime_id: number | null;
        actor: string;
        actor_via: string;
        source: string | null;
        action: string;
        before: unknown;
        after: Record<string, unknown>;
        version: number;
      }[]
    >`
      SELECT subject, showtime_id, actor, actor_via, source, action, before, after, version::int
        FROM operator_audit WHERE subject IN (${`venue:${venue.json.id}`}, ${`hall:${hall.json.id}`}) ORDER BY id`;
    expect(rows).toEqual([
      {
        subject: `venue:${venue.json.id}`,
        showtime_id: null,
        actor: 'pat',
        actor_via: 'console',
        source: '2001:db8:aa:bb::5',
        action: 'venue.create',
        before: null,
        after: { id: venue.json.id, name, city: 'Lyon' },
        version: 0,
      },
      expect.objectContaining({
        subject: `hall:${hall.json.id}`,
        showtime_id: null,
        actor_via: 'token',
        action: 'hall.create',
        before: null,
        after: expect.objectContaining({ id: hall.json.id, name: 'Salle A', seatCount: 6, idealRow: 2 }),
      }),
    ]);
    // A refused hall (unknown venue) writes neither the hall nor its audit row.
    const before = (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM operator_audit`)[0]!.n;
    const refused = await h.call('POST', '/admin/venues/999999999/halls', {
      headers: admin,
      body: { name: 'X', seats },
    });
    expect(refused.status).toBe(422);
    expect((await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM operator_audit`)[0]!.n).toBe(before);
  });

  it('PATCH of a showtime: price, seat limit, hold time and title, before and after, a new version', async () => {
    const { showtimeId } = await h.createShowtime();
    const before = (await h.call('GET', `/admin/showtimes/${showtimeId}`, { headers: admin })).json;
    const version = await versionOf(showtimeId);
    const patched = await h.call('PATCH', `/admin/showtimes/${showtimeId}`, {
      headers: fromConsole,
      body: { priceCents: before.priceCents + 250, maxSeatsPerCustomer: 3, holdTtlMs: 240_000, title: 'Late show' },
    });
    expect(patched.status).toBe(200);
    expect(await versionOf(showtimeId)).toBe(version + 1);
    expect(await latestAudit(showtimeId)).toMatchObject({
      action: 'showtime.update',
      actor: 'pat',
      actorVia: 'console',
      source: '2001:db8:aa:bb::5',
      version: version + 1,
      before: {
        priceCents: before.priceCents,
        maxSeatsPerCustomer: before.maxSeatsPerCustomer,
        holdTtlSeconds: Math.round(before.holdTtlMs / 1000),
        title: before.title,
      },
      after: { priceCents: before.priceCents + 250, maxSeatsPerCustomer: 3, holdTtlSeconds: 240, title: 'Late show' },
    });
  });

  it('creating a showtime is audited at its first version, with what was created', async () => {
    const venue = await h.call('POST', '/admin/venues', { headers: admin, body: { name: 'Audit hall', city: 'Lyon' } });
    const hall = await h.call('POST', `/admin/venues/${venue.json.id}/halls`, {
      headers: admin,
      body: {
        name: 'Salle A',
        seats: rectangularLayout({ rows: 1, columns: 2 }).map(({ code, rowLabel, row, column, type }) => ({
          code,
          rowLabel,
          row,
          column,
          type,
        })),
      },
    });
    expect(hall.status, JSON.stringify(hall.json)).toBe(201);
    const created = await h.call('POST', '/admin/showtimes', {
      headers: fromConsole,
      body: {
        hallId: hall.json.id,
        title: 'Premiere',
        startsAt: new Date(Date.now() + 86_400_000).toISOString(),
        priceCents: 1200,
      },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(await versionOf(created.json.id)).toBe(1);
    expect(await latestAudit(created.json.id)).toMatchObject({
      action: 'showtime.create',
      actor: 'pat',
      actorVia: 'console',
      version: 1,
      before: null,
      after: { title: 'Premiere' },
    });
  });

  it('room changes of burst and buckets show their values; a caller naming nobody is the admin token', async () => {
    const { showtimeId } = await h.createShowtime();
    const version = await versionOf(showtimeId);
    const changed = await h.call('PUT', `/admin/showtimes/${showtimeId}/room`, {
      headers: admin,
      body: { admitBurst: 7, customerBucketCapacity: 4, showtimeRefillPerSecond: 90 },
    });
    expect(changed.status).toBe(200);
    const entry = await latestAudit(showtimeId);
    expect(entry).toMatchObject({
      action: 'room.update',
      actor: 'admin-token',
      actorVia: 'token',
      version: version + 1,
      after: { admitBurst: 7, customerBucketCapacity: 4, showtimeRefillPerSecond: 90 },
    });
    expect(entry.before.admitBurst).not.toBe(7);
    expect(entry.before.customerBucketCapacity).not.toBe(4);
    expect(Object.keys(entry.after).sort()).toEqual(Object.keys(entry.before).sort());
  });

  it('fare, seat-class and refund-policy changes each move the version and name the actor', async () => {
    const { showtimeId } = await h.createShowtime();
    let version = await versionOf(showtimeId);
    const fare = await h.call('PUT', `/admin/showtimes/${showtimeId}/fares/STANDING`, {
      headers: fromConsole,
      body: { capacity: 40, priceCents: 900 },
    });
    expect(fare.status).toBe(201);
    expect(await latestAudit(showtimeId)).toMatchObject({
      action: 'fare.create',
      actorVia: 'console',
      source: '2001:db8:aa:bb::5',
      version: version + 1,
      before: null,
    });
    version += 1;
    await h.call('PUT', `/admin/showtimes/${showtimeId}/fares/STANDING`, { headers: admin, body: { priceCents: 950 } });
    expect(await latestAudit(showtimeId)).toMatchObject({
      action: 'fare.update',
      actorVia: 'token',
      version: version + 1,
      before: { priceCents: 900 },
      after: { priceCents: 950 },
    });
    version += 1;
    const tiers = [{ beforeStartMinutes: 60, percent: 50 }];
    expect(
      (await h.call('PUT', `/admin/showtimes/${showtimeId}/refund-policy`, { headers: admin, body: { tiers } })).status,
    ).toBe(200);
    expect(await latestAudit(showtimeId)).toMatchObject({
      action: 'refund-policy.update',
      version: version + 1,
      after: { tiers },
    });
  });

  it('concurrent changes of one showtime each get a version of their own', async () => {
    const { showtimeId } = await h.createShowtime();
    const operator = { actor: 'race', actorVia: 'token' as const, source: null };
    const CHANGES = 8;
    const round = (lock: boolean) =>
      releasedTogether(CHANGES, (i) =>
        sql.begin(async (tx) => {
          // The naive variant reads the version without the lock, as the fare change once did.
          const before = lock
            ? (await lockForAudit(tx, showtimeId))!
            : (
                await tx<{ version: number }[]>`SELECT version FROM room_settings WHERE showtime_id = ${showtimeId}`
              )[0]!;
          await new Promise((resolve) => setTimeout(resolve, 5)); // the change's own work
          const entry = { showtimeId, operator, action: 'race.test', before: { n: 0 }, after: { n: i + 1 } };
          return insertAudit(tx, entry, Number(before.version));
        }),
      );
    for (let r = 0; r < 3; r++) expect(new Set(await round(true)).size).toBe(CHANGES);
    let naiveDuplicates = 0;
    for (let r = 0; r < 3; r++) naiveDuplicates += CHANGES - new Set(await round(false)).size;
    expect(naiveDuplicates).toBeGreaterThan(0);
  });
});
