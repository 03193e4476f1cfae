import { readdir, readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Sql, TransactionSql } from 'postgres';

/**
 * Function files: the current body of every SQL function, one file per function
 * (`migrations/functions/<name>.sql`, a single `CREATE OR REPLACE FUNCTION <name>(…)`).
 * Numbered migrations keep the bodies they had when they ran (existing databases applied them);
 * the file is where a function is read and changed. docs/database.md says how.
 */
export const FUNCTIONS_DIR = fileURLToPath(new URL('../../../migrations/functions', import.meta.url));

export interface FunctionFile {
  /** The function's name, which is also the file's name. */
  name: string;
  sql: string;
  checksum: string;
}

const FUNCTION_FILE_NAME = /^([a-z][a-z0-9_]*)\.sql$/;
const CREATE_FUNCTION = /^\s*CREATE\s+(OR\s+REPLACE\s+)?FUNCTION\s+(?:public\.)?([a-z0-9_]+)\s*\(/gim;

/**
 * The files in name order. A file must define exactly the function it is named after, with
 * CREATE OR REPLACE (it runs again on databases that have the function): anything else is a
 * mistake caught here, before any statement runs. A missing folder means no function files.
 */
export async function readFunctionFiles(dir = FUNCTIONS_DIR): Promise<FunctionFile[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => FUNCTION_FILE_NAME.test(name)).sort();
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return [];
    throw error;
  }
  return Promise.all(
    names.map(async (fileName) => {
      const name = FUNCTION_FILE_NAME.exec(fileName)![1]!;
      const sql = await readFile(path.join(dir, fileName), 'utf8');
      const creates = [...sql.matchAll(CREATE_FUNCTION)];
      if (creates.length !== 1 || creates[0]![2]!.toLowerCase() !== name || !creates[0]![1]) {
        throw new Error(
          `functions/${fileName} must hold one CREATE OR REPLACE FUNCTION ${name}(…), and nothing else that creates a function`,
        );
      }
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/**
 * Runs every function file whose text is new or changed since this database last ran it, after
 * the numbered migrations. All of them in ONE transaction, under the migrators' advisory lock:
 * a file that fails (a syntax error, a missing type) leaves every function and every recorded
 * checksum as it was, and two migrators starting together run each changed file once (the
 * second finds the checksums already recorded). Returns the names it ran.
 */
export async function applyFunctionFiles(sql: Sql, dir = FUNCTIONS_DIR): Promise<string[]> {
  const files = await readFunctionFiles(dir);
  if (files.length === 0 || (await allRecorded(sql, files))) return [];
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtextextended('schema_migrations', 0))`;
    // Created under the lock, so two first migrators do not race on the catalog.
    await tx`
      CREATE TABLE IF NOT EXISTS schema_functions (
        name       text PRIMARY KEY,
        checksum   text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`;
    return applyChangedFunctionFiles(tx, files);
  });
}

/**
 * Whether every file's checksum is recorded already, read without the lock: the usual start of
 * an instance costs one query, no transaction. Anything else takes the locked path, which reads
 * the checksums again (a migrator running at this moment may be about to record them).
 */
async function allRecorded(sql: Sql, files: FunctionFile[]): Promise<boolean> {
  try {
    const rows = await sql<{ name: string; checksum: string }[]>`SELECT name, checksum FROM schema_functions`;
    const recorded = new Map(rows.map((r) => [r.name, r.checksum]));
    return files.every((file) => recorded.get(file.name) === file.checksum);
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return false; // no table yet: a first migration
    throw error;
  }
}

/**
 * The work without the lock: runs the files whose checksum differs from the recorded one and
 * records the new checksums, in the caller's transaction. Exported for the race test's naive
 * variant; everything else goes through applyFunctionFiles.
 */
export async function applyChangedFunctionFiles(tx: TransactionSql, files: FunctionFile[]): Promise<string[]> {
  const recorded = new Map(
    (await tx<{ name: string; checksum: string }[]>`SELECT name, checksum FROM schema_functions`).map((r) => [
      r.name,
      r.checksum,
    ]),
  );
  const changed = files.filter((file) => recorded.get(file.name) !== file.checksum);
  for (const file of changed) {
    try {
      await tx.unsafe(file.sql);
    } catch (error) {
      throw new Error(`Function file functions/${file.name}.sql failed: ${(error as Error).message}`, { cause: error });
    }
  }
  if (changed.length > 0) {
    await tx`
      INSERT INTO schema_functions (name, checksum)
      SELECT * FROM unnest(${changed.map((f) => f.name)}::text[], ${changed.map((f) => f.checksum)}::text[])
      ON CONFLICT (name) DO UPDATE SET checksum = excluded.checksum, applied_at = now()`;
  }
  return changed.map((file) => file.name);
}
