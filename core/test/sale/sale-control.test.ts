/**
 * Sale control on real PostgreSQL: one sale state per showtime, the room's settings and the
 * audit log beside it, changed through one service with a version; bad input writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Sql } from 'postgres';
import { testDatabaseUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { createCoreHarness, releasedTogether, TEST_ADMIN_TOKEN, type CoreHarness } from '../core-harness';

let sql: Sql;
let h: CoreHarness;
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 8, applicationName: 'test-sale-control' });
  h = await createCoreHarness(sql);
});
afterAll(async () => {
  await sql.end();
});

const room = (showtimeId: number) => h.call('GET', `/admin/showtimes/${showtimeId}/room`, { headers: admin });
const change = (showtimeId: number, body: unknown, headers: Record<string, string> = {}) =>
  h.call('PUT', `/admin/showtimes/${showtimeId}/room`, { headers: { ...admin, ...headers }, body });
const auditOf = async (showtimeId: number) =>
  (await h.call('GET', `/admin/showtimes/${showtimeId}/room/audit`, { headers: admin })).json.entries;
const saleTransitions = (showtimeId: number) =>
  sql<{ from_state: string | null; to_state: string; cause: string }[]>`
    SELECT from_state, to_state, cause FROM state_transition
     WHERE entity_type = 'sale' AND entity_id = ${String(showtimeId)} ORDER BY id`;

describe('one sale state per showtime, in PostgreSQL', () => {
  it('a room exists with its showtime: complete settings, the derived state and version 1', async () => {
    const { showtimeId } = await h.createShowtime();
    const read = await room(showtimeId);
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({
      showtimeId,
      version: 1,
      saleState: 'on_sale',
      saleSetting: 'OPEN',
      settings: {},
    });
    expect(read.json.room).toMatchObject({
      state: 'open',
      capacity: 200,
      admitPerMinute: 600,
      sessionTtlMs: 600_000,
      version: 1,
    });
    expect(await saleTransitions(showtimeId)).toEqual([{ from_state: null, to_state: 'OPEN', cause: 'created' }]);

    const later = await h.createShowtime({ opensAt: new Date(Date.now() + 3_600_000) });
    expect((await room(later.showtimeId)).json).toMatchObject({
      saleState: 'opening_soon',
      room: { state: 'scheduled' },
    });
    expect((await room(999_999_999)).status).toBe(404);
  });

  it('an operator change moves the switch along the state machine, bumps the version and is audited with who and from where', async () => {
    const { showtimeId } = await h.createShowtime();
    const changed = await change(
      showtimeId,
      { capacity: 5, admitPerMinute: 60, sessionTtlSeconds: 120 },
      { 'x-operator': 'alice@ops', 'x-operator-source': '203.0.113.7' },
    );
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({
      version: 2,
      settings: { capacity: 5, admitPerMinute: 60, sessionTtlMs: 120_000 },
      room: { capacity: 5, state: 'open' },
    });

    const paused = await change(showtimeId, { state: 'paused' });
    expect(paused.json).toMatchObject({
      version: 3,
      saleState: 'paused',
      saleSetting: 'PAUSED',
      room: { state: 'paused', capacity: 5 },
    });
    const closed = await change(showtimeId, { state: 'closed' });
    expect(closed.json).toMatchObject({ saleState: 'closed', room: { state: 'closed' } });
    expect(closed.json.version).toBeGreaterThan(3);

    const entries = await auditOf(showtimeId);
    expect(entries).toHaveLength(3);
    expect(entries[2]).toMatchObject({
      actor: 'alice@ops',
      source: '203.0.113.7',
      action: 'room.update',
      before: { capacity: 200 },
      after: { capacity: 5, sessionTtlSeconds: 120 },
      version: 2,
    });
    expect(entries[1]).toMatchObject({
      actor: 'admin-token',
      source: null,
      before: { state: 'open' },
      after: { state: 'paused', saleState: 'paused' },
    });
    expect(entries[0]).toMatchObject({ before: { state: 'paused' }, after: { state: 'closed' } });
    expect(await saleTransitions(showtimeId)).toMatchObject([
      { to_state: 'OPEN' },
      { from_state: 'OPEN', to_state: 'PAUSED', cause: 'room.update by admin-token' },
      { from_state: 'PAUSED', to_state: 'CLOSED' },
    ]);
    // A closed sale is not offered to buyers.
    expect((await h.call('GET', '/showtimes')).json.some((s: { id: number }) => s.id === showtimeId)).toBe(false);
  });

  it('the catalog switch is the same state: PATCH saleState goes through sale control too', async () => {
    const { showtimeId } = await h.createShowtime();
    const patched = await h.call('PATCH', `/admin/showtimes/${showtimeId}`, {
      headers: admin,
      body: { saleState: 'PAUSED' },
    });
    expect(patched.json.saleState).toBe('paused');
    expect((await room(showtimeId)).json).toMatchObject({ version: 2, room: { state: 'paused' } });
    expect(await auditOf(showtimeId)).toMatchObject([{ action: 'showtime.update', after: { state: 'paused' } }]);
    // Moving the opening time changes the room's copy too.
    const opensAt = new Date(Date.now() - 60_000).toISOString();
    await h.call('PATCH', `/admin/showtimes/${showtimeId}`, { headers: admin, body: { opensAt } });
    expect((await room(showtimeId)).json.version).toBe(3);
  });

  it('scheduling a sale that has opened is refused and writes nothing; so is an opening after the start', async () => {
    const { showtimeId } = await h.createShowtime();
    const refused = await change(showtimeId, {
      state: 'scheduled',
      opensAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(refused).toMatchObject({ status: 409, json: { error: { code: 'ALREADY_OPENED' } } });
    const late = await change(showtimeId, { opensAt: new Date(Date.now() + 3 * 86_400_000).toISOString() });
    expect(late.status).toBeGreaterThanOrEqual(409);
    expect(late.status).toBeLessThan(500);
    expect((await room(showtimeId)).json.version).toBe(1);
    expect(await auditOf(showtimeId)).toHaveLength(0);

    // Before opening, "open" opens it now.
    const later = await h.createShowtime({ opensAt: new Date(Date.now() + 3_600_000) });
    expect((await change(later.showtimeId, { state: 'open' })).json).toMatchObject({
      saleState: 'on_sale',
      room: { state: 'open' },
    });
  });

  it('a paused sale stops admissions, not buyers already admitted: their holds still pass; a closed one refuses', async () => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 1, columns: 4 } });
    await change(showtimeId, { state: 'paused' });
    expect((await h.hold(showtimeId, 'admitted-before-pause', ['A1'])).status).toBe(201);
    await change(showtimeId, { state: 'closed' });
    expect(await h.hold(showtimeId, 'admitted-before-close', ['A2'])).toMatchObject({
      status: 409,
      json: { error: { code: 'SALE_NOT_OPEN' } },
    });
  });

  it('concurrent operator changes are serialised: every one audited, versions distinct and in order', async () => {
    const { showtimeId } = await h.createShowtime();
    const results = await releasedTogether(20, (i) => change(showtimeId, { capacity: 10 + i }));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const versions = results.map((r) => r.json.version as number).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    const entries = await auditOf(showtimeId);
    expect(entries).toHaveLength(20);
    const final = await room(showtimeId);
    expect(final.json.version).toBe(21);
    // The last change to commit is what the room holds.
    expect(final.json.room.capacity).toBe(entries[0].after.capacity);
  });

  it('the turn ledger: admissions recorded, leaves and close end them, a restore reads only live turns', async () => {
    const { showtimeId } = await h.createShowtime();
    const expiresAtMs = Date.now() + 60_000;
    const record = (customerId: string, ticket: number, expires = expiresAtMs) =>
      h.call('POST', `/admin/showtimes/${showtimeId}/turns`, {
        headers: admin,
        body: { customerId, ticket, expiresAtMs: expires },
      });
    expect((await record('ana', 1)).status).toBe(204);
    expect((await record('ana', 1)).status).toBe(204); // idempotent
    expect((await record('ben', 2)).status).toBe(204);
    expect((await record('cy', 3)).status).toBe(204);
    expect((await record('old', 4, Date.now() - 1_000)).status).toBe(204);
    // A leave told late (the edge retrying) ends only the turns granted before it.
    const end = (body: Record<string, unknown>) =>
      h.call('POST', `/admin/showtimes/${showtimeId}/turns/end`, { headers: admin, body });
    expect(
      (await end({ customerId: 'ben', grantedBefore: new Date(Date.now() - 3_600_000).toISOString() })).json,
    ).toEqual({ ended: 0 });
    expect((await end({ customerId: 'ben', grantedBefore: 'yesterday' })).status).toBe(422);
    expect((await end({ customerId: 'ben', grantedBefore: new Date(Date.now() + 60_000).toISOString() })).json).toEqual(
      { ended: 1 },
    );
    // cy has bought since: the booking completes the turn.
    await sql`INSERT INTO seat_hold (id, showtime_id, customer_id, seat_codes, expires_at) VALUES (gen_random_uuid(), ${showtimeId}, 'cy', '{A1}', now() + interval '1 minute')`;
    await sql`
      WITH h AS (SELECT id FROM seat_hold WHERE showtime_id = ${showtimeId} AND customer_id = 'cy'),
           p AS (INSERT INTO payment (id, hold_id, showtime_id, customer_id, amount_cents, currency, checkout_url, expires_at)
                 SELECT ${`pay_${showtimeId}`}, id, ${showtimeId}, 'cy', 1000, 'EUR', 'http://pay.test', now() + interval '1 minute' FROM h RETURNING id, hold_id)
      INSERT INTO booking (id, hold_id, payment_id, showtime_id, customer_id, seat_codes, amount_cents, currency, status, status_cause)
      SELECT gen_random_uuid(), hold_id, id, ${showtimeId}, 'cy', '{A1}', 1000, 'EUR', 'CONFIRMED', 'test' FROM p`;
    const read = await room(showtimeId);
    expect(read.json.turns).toEqual([{ customerId: 'ana', ticket: 1, expiresAtMs: expect.any(Number) }]);
    expect(Math.abs(read.json.turns[0].expiresAtMs - expiresAtMs)).toBeLessThan(2);

    await change(showtimeId, { state: 'closed' });
    expect((await room(showtimeId)).json.turns).toEqual([]);
    const [ledger] = await sql<
      { live: number }[]
    >`SELECT count(*)::int AS live FROM admission_turn WHERE showtime_id = ${showtimeId} AND ended_at IS NULL`;
    expect(ledger?.live).toBe(0);

    for (const body of [
      {},
      { customerId: '__proto__', ticket: 1, expiresAtMs },
      { customerId: 'x', ticket: -1, expiresAtMs },
      { customerId: 'x', ticket: 1 },
      { customerId: 'x y', ticket: 1, expiresAtMs },
    ]) {
      expect((await h.call('POST', `/admin/showtimes/${showtimeId}/turns`, { headers: admin, body })).status).toBe(422);
    }
    expect(
      (
        await h.call('POST', '/admin/showtimes/999999999/turns', {
          headers: admin,
          body: { customerId: 'x', ticket: 1, expiresAtMs },
        })
      ).status,
    ).toBe(404);
  });

  it('bad input on every sale-control route: 4xx, nothing written, audit unchanged', async () => {
    const { showtimeId } = await h.createShowtime();
    const bodies: unknown[] = [
      {},
      { capacity: 0 },
      { capacity: -1 },
      { capacity: 'many' },
      { state: 'exploded' },
      { unknown: 1 },
      { opensAt: 'tomorrow' },
      { sessionTtlSeconds: 1e9 },
      { powDifficulty: 99 },
      [],
      '"text"',
      null,
      { capacity: 1.5 },
    ];
    for (const body of bodies) {
      const result = await change(showtimeId, body);
      expect(result.status, JSON.stringify(body)).toBe(422);
    }
    expect(
      (await h.call('PUT', `/admin/showtimes/${showtimeId}/room`, { headers: admin, rawBody: '{"capacity":' })).status,
    ).toBe(400);
    expect((await h.call('PUT', `/admin/showtimes/${showtimeId}/room`, { body: { capacity: 3 } })).status).toBe(401);
    expect((await change(999_999_999, { capacity: 3 })).status).toBe(404);
    expect((await h.call('PUT', '/admin/showtimes/abc/room', { headers: admin, body: { capacity: 3 } })).status).toBe(
      404,
    );
    // A limit that is not one is refused, not replaced by the default.
    for (const query of ['limit=-4', 'limit=abc', 'limit=1&limit=2'])
      expect(
        (await h.call('GET', `/admin/showtimes/${showtimeId}/room/audit?${query}`, { headers: admin })).status,
      ).toBe(422);

    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (body) => {
        const result = await change(showtimeId, body);
        expect(result.status).toBeLessThan(500);
        if (result.status !== 200) expect(result.status).toBeGreaterThanOrEqual(400);
      }),
      { numRuns: 60 },
    );
    const after = await room(showtimeId);
    const entries = await auditOf(showtimeId);
    // Only valid bodies (if the generator found any) changed anything, each with its audit entry.
    expect(after.json.version).toBe(1 + entries.length);
  });
});
