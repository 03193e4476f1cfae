/**
 * The broken variant of unsafe-json.test.ts: the same core with the JSON guard taken out
 * (plain JSON.parse, as before). A lone surrogate is stored silently as U+FFFD and a NUL is
 * not refused by field, which is what the guarded test's assertions refuse.
 */
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isolatedDatabase } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { createCoreHarness, TEST_ADMIN_TOKEN, type CoreHarness } from '../core-harness';

vi.mock('../../../lib/json-guard', async (original) => ({
  ...(await original<typeof import('../../../lib/json-guard')>()),
  parseSafeJson: (text: string) => JSON.parse(text) as unknown,
}));

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let sql: Sql;
let h: CoreHarness;
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

beforeAll(async () => {
  database = await isolatedDatabase('unguarded_json');
  sql = connectDatabase(database.url, { max: 2, applicationName: 'test-unguarded-json' });
  h = await createCoreHarness(sql);
});
afterAll(async () => {
  await sql?.end();
  await database?.drop();
});

describe('without the JSON guard (broken variant)', () => {
  it('stores a lone surrogate as U+FFFD and does not name the field of a NUL', async () => {
    const lone = await h.call('POST', '/admin/venues', {
      headers: admin,
      body: { name: 'Rex \uD800 Cinema', city: 'Lyon' },
    });
    expect(lone.status).toBe(201);
    const [row] = await sql<{ name: string }[]>`SELECT name FROM venue WHERE id = ${lone.json.id}`;
    expect(row!.name).toContain('\uFFFD');
    const nul = await h.call('POST', '/admin/venues', { headers: admin, body: { name: 'Rex\u0000', city: 'Lyon' } });
    expect(nul.json.error?.code).not.toBe('VALIDATION_FAILED');
    expect(nul.status).not.toBe(201);
  });
});
