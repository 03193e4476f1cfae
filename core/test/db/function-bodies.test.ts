import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { FUNCTIONS_DIR } from '../../src/db/function-files';
import { migrate, MIGRATIONS_DIR, readMigrations } from '../../src/db/migrate';
import { functionDrift } from './function-drift';

/**
 * The last numbered migration that existed before function files did. Databases created before
 * then had every file run once after it; each migration since ran on them followed by the
 * function files of its day.
 */
const FUNCTION_FILES_SINCE = '0011';

/**
 * Every function's body in a migrated database is its file's. A fresh database is checked, and
 * so is one migrated release by release: a later migration that redefines a function without
 * the same change to its file leaves the function files unchanged (not run again) and the
 * migration's body in place there, while a fresh database would end with the file's body.
 */
describe('function bodies equal their files', () => {
  const scratch: string[] = [];
  const admin = postgres(inject('adminDatabaseUrl'), { max: 1, onnotice: () => {} });
  afterAll(async () => {
    for (const name of scratch) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  /** An empty database (the run's teardown drops any left behind: same name prefix). */
  async function emptyDatabase() {
    const name = `${inject('templateDatabase').replace(/_template$/, '')}_bodies_${randomBytes(3).toString('hex')}`;
    await admin.unsafe(`CREATE DATABASE ${name}`);
    scratch.push(name);
    const url = new URL(inject('adminDatabaseUrl'));
    url.pathname = `/${name}`;
    return postgres(url.toString(), { max: 1, onnotice: () => {} });
  }

  /** Migrates an empty database as released: up to FUNCTION_FILES_SINCE, then one migration at a time. */
  async function migrateReleaseByRelease(extra: { name: string; sql: string }[] = []) {
    const source = await mkdtemp(path.join(tmpdir(), 'wr-releases-'));
    const step = await mkdtemp(path.join(tmpdir(), 'wr-release-'));
    const sql = await emptyDatabase();
    try {
      const names = (await readMigrations()).map((m) => `${m.version}_${m.name}.sql`);
      for (const name of names) await copyFile(path.join(MIGRATIONS_DIR, name), path.join(source, name));
      for (const file of extra) await writeFile(path.join(source, file.name), file.sql);
      const releases = (await readMigrations(source)).map((m) => `${m.version}_${m.name}.sql`);
      for (const name of releases) {
        await copyFile(path.join(source, name), path.join(step, name));
        if (name.slice(0, 4) >= FUNCTION_FILES_SINCE) await migrate(sql, step, FUNCTIONS_DIR);
      }
      return await functionDrift(sql);
    } finally {
      await sql.end({ timeout: 2 });
      await rm(source, { recursive: true, force: true });
      await rm(step, { recursive: true, force: true });
    }
  }

  it('in a fresh database', async () => {
    const sql = await emptyDatabase();
    try {
      await migrate(sql);
      expect(await functionDrift(sql)).toEqual([]);
    } finally {
      await sql.end({ timeout: 2 });
    }
  });

  it('in a database migrated release by release', async () => {
    expect(await migrateReleaseByRelease()).toEqual([]);
  });

  it('broken variant: a later migration redefines a function and its file is left as it was', async () => {
    const redefinition = {
      name: '9999_more_buckets.sql',
      sql:
        'CREATE OR REPLACE FUNCTION fare_default_buckets(p_seats bigint) RETURNS smallint\n' +
        'LANGUAGE sql IMMUTABLE AS $$ SELECT greatest(1, least(32, p_seats / 18))::smallint $$;\n',
    };
    expect(await migrateReleaseByRelease([redefinition])).toEqual(['fare_default_buckets(bigint)']);
  });
});
