import { readdir, readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Sql } from 'postgres';
import { applyFunctionFiles } from './function-files';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../migrations', import.meta.url));

export interface MigrationFile {
  version: string;
  name: string;
  sql: string;
  checksum: string;
}

const MIGRATION_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/**
 * Applied files whose comments were reworded later, no statement changed: a database that
 * applied the former text is not refused. Its row takes the current checksum. Only ever add
 * the checksum of a text whose statements are identical to today's.
 */
export const REWORDED_COMMENTS: Readonly<Record<string, readonly string[]>> = {
  '0001': ['b14267db2cf299a55a3ec757a8330108a85719966c2cba737aff5453b3832183'],
  '0002': ['40b2b0b78e8e85d08f1b8deba9a458bf9d0215fcb77212a4552cc6a9ef2592ce'],
};

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<MigrationFile[]> {
  const names = (await readdir(dir)).filter((name) => MIGRATION_NAME.test(name)).sort();
  return Promise.all(
    names.map(async (fileName) => {
      const [, version, name] = MIGRATION_NAME.exec(fileName)!;
      const sql = await readFile(path.join(dir, fileName), 'utf8');
      return { version: version!, name: name!, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/**
 * Applies pending migrations in order, each in its own transaction, recorded in
 * `schema_migrations`. An advisory lock serialises concurrent migrators (two core instances
 * starting together); an applied file whose text changed is refused rather than re-run.
 * Then the function files whose text changed (function-files.ts), so every SQL function ends
 * with the body its file holds. Returns what ran: `0008_fare_inventory`, `functions/hold_seats`.
 */
export async function migrate(
  sql: Sql,
  dir = MIGRATIONS_DIR,
  functionsDir = path.join(dir, 'functions'),
): Promise<string[]> {
  const migrations = await readMigrations(dir);
  await sql`
    CREATE TABLE IF NOT EXISTS schema_migrations (
      version    text PRIMARY KEY,
      name       text NOT NULL,
      checksum   text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`;
  const applied: string[] = [];
  for (const migration of migrations) {
    const didApply = await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(hashtextextended('schema_migrations', 0))`;
      const [existing] = await tx<{ checksum: string }[]>`
        SELECT checksum FROM schema_migrations WHERE version = ${migration.version}`;
      if (existing) {
        if (existing.checksum === migration.checksum) return false;
        if (REWORDED_COMMENTS[migration.version]?.includes(existing.checksum)) {
          await tx`UPDATE schema_migrations SET checksum = ${migration.checksum} WHERE version = ${migration.version}`;
          return false;
        }
        throw new Error(`Migration ${migration.version}_${migration.name} changed after it was applied`);
      }
      await tx.unsafe(migration.sql);
      await tx`
        INSERT INTO schema_migrations (version, name, checksum)
        VALUES (${migration.version}, ${migration.name}, ${migration.checksum})`;
      return true;
    });
    if (didApply) applied.push(`${migration.version}_${migration.name}`);
  }
  for (const name of await applyFunctionFiles(sql, functionsDir)) applied.push(`functions/${name}`);
  return applied;
}
