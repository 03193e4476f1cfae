import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedDatabase } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';

/**
 * The generic partition helper (migrations/functions/partition_ensure.sql, partition_archive.sql)
 * on tables of its own, one keyed by integers and one by time: what state_transition, show_seat
 * and seat_hold rely on, shown without them.
 */
describe('the generic partition helper', () => {
  let db: { url: string; drop(): Promise<void> };
  let sql: Sql;
  beforeAll(async () => {
    db = await isolatedDatabase('partitions');
    sql = connectDatabase(db.url, { max: 1 });
    await sql`CREATE TABLE scratch_blocks (k bigint NOT NULL, note text, PRIMARY KEY (k)) PARTITION BY RANGE (k)`;
    await sql`CREATE TABLE scratch_blocks_default PARTITION OF scratch_blocks DEFAULT`;
    await sql`CREATE TABLE scratch_months (at timestamptz NOT NULL, n int NOT NULL) PARTITION BY RANGE (at)`;
    await sql`CREATE TABLE scratch_months_default PARTITION OF scratch_months DEFAULT`;
  });
  afterAll(async () => {
    await sql?.end({ timeout: 2 });
    await db?.drop();
  });

  const partitionsOf = async (parent: string) =>
    (
      await sql<{ name: string; bound: string }[]>`
      SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = ${parent}::regclass ORDER BY c.relname`
    ).map((r) => `${r.name} ${r.bound}`);
  const ensure = async (parent: string, name: string, column: string, from: string, to: string) =>
    (await sql<{ made: boolean }[]>`SELECT partition_ensure(${parent}, ${name}, ${column}, ${from}, ${to}) AS made`)[0]!
      .made;

  it('creates a range once; rows already in DEFAULT move into it, the others stay', async () => {
    await sql`INSERT INTO scratch_blocks SELECT k, 'early' FROM generate_series(1, 30) AS k`;
    expect(await ensure('scratch_blocks', 'scratch_blocks_b0', 'k', '0', '10')).toBe(true);
    expect(await ensure('scratch_blocks', 'scratch_blocks_b0', 'k', '0', '10')).toBe(false);
    expect(await ensure('scratch_blocks', 'scratch_blocks_b10', 'k', '10', '20')).toBe(true);
    expect(await partitionsOf('scratch_blocks')).toEqual([
      "scratch_blocks_b0 FOR VALUES FROM ('0') TO ('10')",
      "scratch_blocks_b10 FOR VALUES FROM ('10') TO ('20')",
      'scratch_blocks_default DEFAULT',
    ]);
    const counts = await sql<{ part: string; n: number }[]>`
      SELECT tableoid::regclass::text AS part, count(*)::int AS n FROM scratch_blocks GROUP BY 1 ORDER BY 1`;
    expect(counts).toEqual([
      { part: 'scratch_blocks_b0', n: 9 },
      { part: 'scratch_blocks_b10', n: 10 },
      { part: 'scratch_blocks_default', n: 11 },
    ]);
  });

  it('months work the same with timestamp bounds (a session in another time zone too)', async () => {
    await sql`SET TIME ZONE 'Asia/Tokyo'`;
    try {
      await sql`INSERT INTO scratch_months VALUES ('2030-03-31 23:30:00+00', 1), ('2030-04-01 00:00:00+00', 2)`;
      const from = '2030-03-01 00:00:00+00';
      const to = '2030-04-01 00:00:00+00';
      expect(await ensure('scratch_months', 'scratch_months_y2030m03', 'at', from, to)).toBe(true);
      const rows = await sql<
        { part: string; n: number }[]
      >`SELECT tableoid::regclass::text AS part, n FROM scratch_months ORDER BY n`;
      expect(rows).toEqual([
        { part: 'scratch_months_y2030m03', n: 1 },
        { part: 'scratch_months_default', n: 2 },
      ]);
    } finally {
      await sql`SET TIME ZONE 'UTC'`;
    }
  });

  it('archives a partition with its rows, and never recreates an archived range', async () => {
    expect((await sql`SELECT partition_archive('scratch_blocks', 'scratch_blocks_b0') AS name`)[0]!.name).toBe(
      'scratch_blocks_b0',
    );
    const [archived] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM archive.scratch_blocks_b0`;
    expect(archived!.n).toBe(9);
    expect(await ensure('scratch_blocks', 'scratch_blocks_b0', 'k', '0', '10')).toBe(false);
    expect(await partitionsOf('scratch_blocks')).not.toContain("scratch_blocks_b0 FOR VALUES FROM ('0') TO ('10')");
  });

  it("broken variant: creating the range without moving DEFAULT's rows first is refused", async () => {
    await expect(
      sql`CREATE TABLE scratch_blocks_b20 PARTITION OF scratch_blocks FOR VALUES FROM (20) TO (30)`,
    ).rejects.toThrow(/default partition .* would be violated/);
    expect(await ensure('scratch_blocks', 'scratch_blocks_b20', 'k', '20', '30')).toBe(true);
  });
});
