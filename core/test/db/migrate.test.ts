import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedDatabase } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { migrate, MIGRATIONS_DIR, readMigrations, REWORDED_COMMENTS } from '../../src/db/migrate';

/**
 * Applied migrations are checksummed: a file whose text changed after a database applied it is
 * refused, except where only its comments were reworded and the former checksum is listed.
 */
describe('migration checksums', () => {
  let db: { url: string; drop(): Promise<void> };
  let sql: Sql;
  beforeAll(async () => {
    db = await isolatedDatabase('migrate');
    sql = connectDatabase(db.url, { max: 1 });
  });
  afterAll(async () => {
    await sql?.end({ timeout: 2 });
    await db?.drop();
  });

  it('accepts a database that applied the former wording of a reworded file, and records the current checksum', async () => {
    const current = await readMigrations();
    for (const [version, former] of Object.entries(REWORDED_COMMENTS)) {
      const file = current.find((m) => m.version === version)!;
      expect(former).not.toContain(file.checksum);
      await sql`UPDATE schema_migrations SET checksum = ${former[0]!} WHERE version = ${version}`;
    }
    expect(await migrate(sql)).toEqual([]);
    const rows = await sql<{ version: string; checksum: string }[]>`
      SELECT version, checksum FROM schema_migrations WHERE version = ANY(${Object.keys(REWORDED_COMMENTS)})`;
    for (const row of rows) expect(row.checksum).toBe(current.find((m) => m.version === row.version)!.checksum);
  });

  it('still refuses an applied file whose text changed otherwise', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'wr-migrations-'));
    try {
      for (const migration of await readMigrations()) {
        await writeFile(path.join(dir, `${migration.version}_${migration.name}.sql`), migration.sql);
      }
      const first = (await readMigrations(dir))[0]!;
      const file = path.join(dir, `${first.version}_${first.name}.sql`);
      await writeFile(file, `${await readFile(file, 'utf8')}\n-- an edit after the fact\n`);
      await expect(migrate(sql, dir)).rejects.toThrow(/changed after it was applied/);
      const [row] = await sql<
        { checksum: string }[]
      >`SELECT checksum FROM schema_migrations WHERE version = ${first.version}`;
      expect(row!.checksum).toBe(
        createHash('sha256')
          .update(await readFile(path.join(MIGRATIONS_DIR, `${first.version}_${first.name}.sql`), 'utf8'))
          .digest('hex'),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
