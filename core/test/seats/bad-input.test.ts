import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Sql } from 'postgres';
import { SignJWT } from 'jose';
import { testDatabaseUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { createCoreHarness, unique, type CoreHarness } from '../core-harness';

let sql: Sql;
let h: CoreHarness;

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 8, applicationName: 'test-bad-input' });
  h = await createCoreHarness(sql);
});
afterAll(async () => {
  await sql.end();
});

async function nothingWritten(showtimeId: number) {
  const [row] = await sql<{ holds: number; taken: number }[]>`
    SELECT (SELECT count(*) FROM seat_hold WHERE showtime_id = ${showtimeId})::int AS holds,
           (SELECT count(*) FROM show_seat WHERE showtime_id = ${showtimeId} AND status <> 'AVAILABLE')::int AS taken`;
  expect(row).toEqual({ holds: 0, taken: 0 });
}

describe('hold requests that must be refused before any write', () => {
  it.each([
    ['an empty list', { seats: [] }, 422, 'VALIDATION_FAILED'],
    [
      'more seats than the showtime allows',
      { seats: ['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7', 'A8', 'A9'] },
      422,
      'SEAT_LIMIT_EXCEEDED',
    ],
    [
      'more than any request may carry',
      { seats: Array.from({ length: 51 }, (_, i) => `A${i + 1}`) },
      422,
      'VALIDATION_FAILED',
    ],
    ['duplicates', { seats: ['A1', 'A2', 'A1'] }, 422, 'DUPLICATE_SEATS'],
    ['unknown seats', { seats: ['A1', 'Z99'] }, 422, 'UNKNOWN_SEATS'],
    ['a seat of another, wider hall', { seats: ['A1', 'A20'] }, 422, 'UNKNOWN_SEATS'],
    ['seats as a string', { seats: 'A1' }, 422, 'VALIDATION_FAILED'],
    ['seats as numbers', { seats: [1, 2] }, 422, 'VALIDATION_FAILED'],
    ['lower-case or odd codes', { seats: ['a1', 'A 1'] }, 422, 'VALIDATION_FAILED'],
    ['no seats field', { seat: ['A1'] }, 422, 'VALIDATION_FAILED'],
    ['a JSON array', ['A1'], 422, 'VALIDATION_FAILED'],
    ['JSON null', null, 422, 'VALIDATION_FAILED'],
  ])('%s', async (_label, body, status, code) => {
    await h.createHall({ rows: 2, columns: 20 }); // the wider hall whose A20 does not exist here
    const { showtimeId } = await h.createShowtime();
    const response = await h.call('POST', `/showtimes/${showtimeId}/holds`, {
      token: await h.tokenFor(unique('bad'), showtimeId),
      rawBody: JSON.stringify(body),
    });
    expect(response.status).toBe(status);
    expect(response.json.error.code).toBe(code);
    expect(typeof response.json.error.message).toBe('string');
    await nothingWritten(showtimeId);
  });

  it.each([
    ['malformed JSON', '{"seats": ["A1"', 'application/json', 400, 'MALFORMED_JSON'],
    ['another media type', '{"seats":["A1"]}', 'text/plain', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [
      'an oversized body',
      JSON.stringify({ seats: ['A1'], pad: 'x'.repeat(300_000) }),
      'application/json',
      413,
      'PAYLOAD_TOO_LARGE',
    ],
  ])('%s', async (_label, rawBody, contentType, status, code) => {
    const { showtimeId } = await h.createShowtime();
    const response = await h.call('POST', `/showtimes/${showtimeId}/holds`, {
      token: await h.tokenFor(unique('bad'), showtimeId),
      rawBody,
      headers: { 'content-type': contentType },
    });
    expect(response.status).toBe(status);
    expect(response.json.error.code).toBe(code);
    await nothingWritten(showtimeId);
  });

  it.each([
    // A paused sale still lets buyers already admitted buy (pause stops admissions only):
    // see core/test/sale/sale-control.test.ts.
    ['closed', { saleState: 'CLOSED' as const }, 409, 'SALE_NOT_OPEN'],
    ['not open yet', { opensAt: new Date(Date.now() + 3_600_000) }, 409, 'SALE_NOT_OPEN'],
    [
      'already started',
      { opensAt: new Date(Date.now() - 7_200_000), startsAt: new Date(Date.now() - 60_000) },
      409,
      'SHOWTIME_STARTED',
    ],
  ])('a showtime %s', async (_label, options, status, code) => {
    const { showtimeId } = await h.createShowtime(options);
    const response = await h.hold(showtimeId, unique('early'), ['A1']);
    expect(response.status).toBe(status);
    expect(response.json.error.code).toBe(code);
    await nothingWritten(showtimeId);
  });

  it('tokens: none, garbage, expired, unsigned, or for another showtime', async () => {
    const { showtimeId } = await h.createShowtime();
    const { showtimeId: other } = await h.createShowtime();
    const path = `/showtimes/${showtimeId}/holds`;
    const body = { seats: ['A1'] };
    expect((await h.call('POST', path, { body })).json.error.code).toBe('MISSING_TOKEN');
    expect((await h.call('POST', path, { body, token: 'not.a.jwt' })).status).toBe(401);
    const expired = await h.tokenFor(unique('late'), showtimeId, -60_000);
    expect((await h.call('POST', path, { body, token: expired })).json.error.code).toBe('TOKEN_EXPIRED');
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'wr-access+jwt' })).toString('base64url')}.${Buffer.from(
      JSON.stringify({
        sub: 'x',
        aud: `showtime:${showtimeId}`,
        exp: Math.floor(Date.now() / 1000) + 60,
        iss: 'flash-sale-edge',
      }),
    ).toString('base64url')}.`;
    expect((await h.call('POST', path, { body, token: unsigned })).status).toBe(401);
    const wrongTyp = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'test-1', typ: 'wr-queue+jwt' })
      .setSubject('x')
      .setAudience(`showtime:${showtimeId}`)
      .setIssuer('flash-sale-edge')
      .setExpirationTime('1m')
      .sign(h.tokenKeys.signing!.privateKey);
    expect((await h.call('POST', path, { body, token: wrongTyp })).status).toBe(401);
    const elsewhere = await h.tokenFor(unique('elsewhere'), other);
    const refused = await h.call('POST', path, { body, token: elsewhere });
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('WRONG_SHOWTIME');
    await nothingWritten(showtimeId);
  });

  it('unknown ids answer 404', async () => {
    const token = await h.tokenFor('nobody', 987654321);
    expect((await h.call('POST', '/showtimes/987654321/holds', { token, body: { seats: ['A1'] } })).status).toBe(404);
    expect((await h.call('GET', '/showtimes/987654321/seats', { token })).status).toBe(404);
    expect((await h.call('GET', '/showtimes/abc/seats', { token })).status).toBe(404);
    expect((await h.call('GET', '/holds/not-a-uuid', { token })).status).toBe(404);
    expect((await h.call('DELETE', '/holds/00000000-0000-4000-8000-000000000000', { token })).status).toBe(404);
  });
});

describe('generated bodies (fast-check)', () => {
  it('any body, any media type: never a 500, and only accepted holds write', async () => {
    const { showtimeId } = await h.createShowtime({ layout: { rows: 3, columns: 5 } });
    const token = await h.tokenFor(unique('fuzz'), showtimeId);
    let accepted = 0;
    const seatLike = fc.oneof(fc.constantFrom('A1', 'A2', 'B3', 'C5', 'Z9', 'A1'), fc.string({ maxLength: 10 }));
    const body = fc.oneof(
      fc.json().map((text) => ({ raw: text })),
      fc.anything().map((value) => ({ raw: JSON.stringify(value) ?? 'undefined' })),
      fc
        .record({ seats: fc.array(seatLike, { maxLength: 12 }) }, { requiredKeys: [] })
        .map((v) => ({ raw: JSON.stringify(v) })),
      fc.string({ maxLength: 200 }).map((raw) => ({ raw })),
    );
    const contentType = fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      '',
    );
    await fc.assert(
      fc.asyncProperty(body, contentType, async ({ raw }, type) => {
        const response = await h.call('POST', `/showtimes/${showtimeId}/holds`, {
          token,
          rawBody: raw,
          headers: { 'content-type': type },
        });
        expect([201, 400, 409, 413, 415, 422]).toContain(response.status);
        expect(response.json?.error?.code ?? response.json?.holdId).toBeTruthy();
        if (response.status === 201) {
          accepted++;
          await h.call('DELETE', `/holds/${response.json.holdId}`, { token });
        }
      }),
      { numRuns: 300 },
    );
    const [row] = await sql<{ holds: number; held: number }[]>`
      SELECT (SELECT count(*) FROM seat_hold WHERE showtime_id = ${showtimeId})::int AS holds,
             (SELECT count(*) FROM show_seat WHERE showtime_id = ${showtimeId} AND status = 'HELD')::int AS held`;
    expect(row).toEqual({ holds: accepted, held: 0 });
  });
});
