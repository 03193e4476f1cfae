/**
 * The operator's refund policy per showtime (GET/PUT /admin/showtimes/:id/refund-policy): bounds
 * and rules refused with a clear 422 and nothing written, tiers stored sorted, each change
 * audited with the policy before and after, and the buyer's quote following the new policy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { testDatabaseUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { createCoreHarness, TEST_ADMIN_TOKEN, type CoreHarness } from '../core-harness';

let sql: Sql;
let h: CoreHarness;

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 4, applicationName: 'test-refund-policy' });
  h = await createCoreHarness(sql);
});
afterAll(async () => {
  await sql.end();
});

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const put = (showtimeId: number, body: unknown, headers: Record<string, string> = admin) =>
  h.call('PUT', `/admin/showtimes/${showtimeId}/refund-policy`, { headers, body });

describe('operator: refund policy', () => {
  it('stores tiers sorted, audits the change with before and after, and repeats without a second audit entry', async () => {
    const { showtimeId } = await h.createShowtime();
    expect((await h.call('GET', `/admin/showtimes/${showtimeId}/refund-policy`, { headers: admin })).json).toEqual({
      tiers: [
        { beforeStartMinutes: 1440, percent: 100 },
        { beforeStartMinutes: 120, percent: 50 },
      ],
    });
    const tiers = [
      { beforeStartMinutes: 60, percent: 10 },
      { beforeStartMinutes: 2880, percent: 100 },
      { beforeStartMinutes: 0, percent: 0 },
    ];
    const saved = await put(showtimeId, { tiers }, { ...admin, 'x-operator': 'ops-rita' });
    expect(saved.status).toBe(200);
    const sorted = [
      { beforeStartMinutes: 2880, percent: 100 },
      { beforeStartMinutes: 60, percent: 10 },
      { beforeStartMinutes: 0, percent: 0 },
    ];
    expect(saved.json).toEqual({ tiers: sorted });
    expect((await h.call('GET', `/admin/showtimes/${showtimeId}/refund-policy`, { headers: admin })).json).toEqual({
      tiers: sorted,
    });
    expect((await put(showtimeId, { tiers })).status).toBe(200);
    const audit =
      await sql`SELECT actor, before, after FROM operator_audit WHERE showtime_id = ${showtimeId} AND action = 'refund-policy.update'`;
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor: 'ops-rita',
      before: {
        tiers: [
          { beforeStartMinutes: 1440, percent: 100 },
          { beforeStartMinutes: 120, percent: 50 },
        ],
      },
      after: { tiers: sorted },
    });
  });

  it('refuses a time twice, more back later than earlier, out-of-bounds numbers, unknown fields and no token; nothing changes', async () => {
    const { showtimeId } = await h.createShowtime();
    const refusals: [unknown, string][] = [
      [
        {
          tiers: [
            { beforeStartMinutes: 60, percent: 50 },
            { beforeStartMinutes: 60, percent: 40 },
          ],
        },
        'only once',
      ],
      [
        {
          tiers: [
            { beforeStartMinutes: 1440, percent: 50 },
            { beforeStartMinutes: 120, percent: 100 },
          ],
        },
        'cannot give back more',
      ],
      [{ tiers: [{ beforeStartMinutes: -1, percent: 50 }] }, 'tiers.0.beforeStartMinutes'],
      [{ tiers: [{ beforeStartMinutes: 10, percent: 101 }] }, 'tiers.0.percent'],
      [{ tiers: [{ beforeStartMinutes: 10, percent: 5.5 }] }, 'tiers.0.percent'],
      [{ tiers: Array.from({ length: 11 }, (_, i) => ({ beforeStartMinutes: i, percent: 0 })) }, 'tiers'],
      [{ tiers: [{ beforeStartMinutes: 10, percent: 5, extra: true }] }, 'tiers.0'],
      [{ tiers: [], policy: 'x' }, '(root)'],
    ];
    for (const [body, words] of refusals) {
      const refused = await put(showtimeId, body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(refused.json.error.code).toBe('VALIDATION_FAILED');
      expect(refused.json.error.message).toContain(words);
    }
    expect((await put(showtimeId, { tiers: [] }, {})).status).toBe(401);
    expect((await put(999_999_999, { tiers: [] })).status).toBe(404);
    const [row] = await sql`SELECT refund_policy FROM showtime WHERE id = ${showtimeId}`;
    expect(row!.refund_policy).toEqual([
      { beforeStartMinutes: 1440, percent: 100 },
      { beforeStartMinutes: 120, percent: 50 },
    ]);
    expect(
      await sql`SELECT 1 FROM operator_audit WHERE showtime_id = ${showtimeId} AND action = 'refund-policy.update'`,
    ).toHaveLength(0);
  });
});
