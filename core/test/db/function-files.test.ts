import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedDatabase } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import {
  applyChangedFunctionFiles,
  applyFunctionFiles,
  FUNCTIONS_DIR,
  readFunctionFiles,
} from '../../src/db/function-files';
import { migrate, MIGRATIONS_DIR } from '../../src/db/migrate';
import { functionDrift } from './function-drift';

/**
 * Function files (migrations/functions/<name>.sql) hold every SQL function's current body; the
 * migrator runs a file when its checksum changed, all changed files in one transaction under the
 * migrators' lock. Files of test-only functions (test_answer, test_other) in a copy of the
 * folder stand for an edit, so the real functions are never changed here.
 */
describe('function files', () => {
  let db: { url: string; drop(): Promise<void> };
  let sql: Sql;
  let dir: string;
  beforeAll(async () => {
    db = await isolatedDatabase('fnfiles');
    sql = connectDatabase(db.url, { max: 2 });
    dir = await mkdtemp(path.join(tmpdir(), 'wr-functions-'));
    await cp(FUNCTIONS_DIR, dir, { recursive: true });
  });
  afterAll(async () => {
    await sql?.end({ timeout: 2 });
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const answerFile = (name: string, value: number) =>
    writeFile(
      path.join(dir, `${name}.sql`),
      `-- test only\nCREATE OR REPLACE FUNCTION ${name}() RETURNS integer LANGUAGE sql AS $$ SELECT ${value} $$;\n`,
    );
  const answer = async (name: string) => (await sql<{ v: number }[]>`SELECT ${sql(name)}() AS v`)[0]!.v;
  const recorded = async () =>
    new Map(
      (await sql<{ name: string; checksum: string }[]>`SELECT name, checksum FROM schema_functions`).map((r) => [
        r.name,
        r.checksum,
      ]),
    );

  it('a migrated database has every function from its file, each file recorded with its checksum', async () => {
    const files = await readFunctionFiles();
    expect(files.length).toBeGreaterThan(20);
    const checksums = await recorded();
    for (const file of files) expect(checksums.get(file.name), file.name).toBe(file.checksum);
    expect(await functionDrift(sql)).toEqual([]);
  });

  it('runs an edited file again, once; an unchanged file is not run again', async () => {
    await answerFile('test_answer', 1);
    await answerFile('test_other', 1);
    expect(await migrate(sql, MIGRATIONS_DIR, dir)).toEqual(['functions/test_answer', 'functions/test_other']);
    // Changed by hand behind the migrator's back: only a run of its file would undo this.
    await sql`CREATE OR REPLACE FUNCTION test_other() RETURNS integer LANGUAGE sql AS $$ SELECT 99 $$`;

    await answerFile('test_answer', 2);
    expect(await migrate(sql, MIGRATIONS_DIR, dir)).toEqual(['functions/test_answer']);
    expect(await answer('test_answer')).toBe(2);
    expect(await answer('test_other')).toBe(99);
    expect(await migrate(sql, MIGRATIONS_DIR, dir)).toEqual([]);
  });

  it('a file that fails leaves every function and every checksum as it was', async () => {
    await answerFile('test_answer', 3);
    const before = await recorded();
    expect(await answer('test_answer')).toBe(2);
    // Runs after test_answer (name order), so test_answer's new body was already created in
    // the transaction when this one fails.
    await writeFile(
      path.join(dir, 'zz_broken.sql'),
      'CREATE OR REPLACE FUNCTION zz_broken() RETURNS integer LANGUAGE plpgsql AS $$ BEGIN RETURN 1 END; $$;\n',
    );
    try {
      await expect(migrate(sql, MIGRATIONS_DIR, dir)).rejects.toThrow(/functions\/zz_broken\.sql failed: syntax error/);
      expect(await answer('test_answer')).toBe(2);
      expect(await recorded()).toEqual(before);
      const [broken] = await sql`SELECT to_regproc('zz_broken') AS oid`;
      expect(broken!.oid).toBeNull();

      // Broken variant: a migrator committing file by file would have kept test_answer's new
      // body although the migration failed; the first check above sees that.
      const files = await readFunctionFiles(dir);
      for (const file of files) await sql.begin((tx) => applyChangedFunctionFiles(tx, [file])).catch(() => {});
      expect(await answer('test_answer')).toBe(3);
    } finally {
      await rm(path.join(dir, 'zz_broken.sql'), { force: true });
    }
  });

  it('migrators started together run an edited file once; without the lock they collide', async () => {
    const RACERS = 4;
    const ROUNDS = 8;
    const racers = Array.from({ length: RACERS }, () => connectDatabase(db.url, { max: 1 }));
    try {
      await Promise.all(racers.map((r) => r`SELECT 1`));
      /** Each racer's outcome in one round: ran the file, found it done, or failed. */
      async function round(value: number, run: (racer: Sql) => Promise<string[]>) {
        await answerFile('test_answer', 100 + value);
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        const outcomes = racers.map(async (racer) => {
          await gate;
          try {
            return (await run(racer)).includes('test_answer') ? 'ran' : 'skipped';
          } catch {
            return 'failed';
          }
        });
        release();
        return Promise.all(outcomes);
      }

      for (let r = 0; r < ROUNDS; r++) {
        const outcomes = await round(r, (racer) => applyFunctionFiles(racer, dir));
        expect(outcomes.filter((o) => o === 'ran')).toHaveLength(1);
        expect(outcomes.filter((o) => o === 'failed')).toHaveLength(0);
        expect(await answer('test_answer')).toBe(100 + r);
      }

      // Naive variant (same harness, no advisory lock): racers read the old checksum together
      // and more than one runs the file, or fails on the function's row another one changed.
      let collisions = 0;
      for (let r = 0; r < ROUNDS; r++) {
        const outcomes = await round(ROUNDS + r, async (racer) => {
          const files = await readFunctionFiles(dir);
          return racer.begin((tx) => applyChangedFunctionFiles(tx, files));
        });
        if (outcomes.filter((o) => o !== 'skipped').length > 1) collisions++;
      }
      expect(collisions).toBeGreaterThan(0);
    } finally {
      await Promise.all(racers.map((r) => r.end({ timeout: 2 })));
    }
  });
});
