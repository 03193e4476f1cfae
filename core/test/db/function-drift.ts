import type { Sql, TransactionSql } from 'postgres';
import { FUNCTIONS_DIR, readFunctionFiles } from '../../src/db/function-files';

const ROLLBACK = new Error('function drift check: roll back');

async function definitions(tx: TransactionSql): Promise<Map<string, string>> {
  const rows = await tx<{ signature: string; definition: string }[]>`
    SELECT p.oid::regprocedure::text AS signature, pg_get_functiondef(p.oid) AS definition
      FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace AND p.prokind = 'f'`;
  return new Map(rows.map((r) => [r.signature, r.definition]));
}

/**
 * The functions whose definition in this database differs from their file: runs every file in a
 * transaction that is rolled back, and names each function that running them changed or added
 * ([] when every body in the database is its file's). PostgreSQL's own pg_get_functiondef is
 * the comparison, so layout outside the body does not count.
 */
export async function functionDrift(sql: Sql, dir = FUNCTIONS_DIR): Promise<string[]> {
  const files = await readFunctionFiles(dir);
  let drift: string[] = [];
  await sql
    .begin(async (tx) => {
      const before = await definitions(tx);
      for (const file of files) await tx.unsafe(file.sql);
      const after = await definitions(tx);
      drift = [...after.keys()].filter((signature) => before.get(signature) !== after.get(signature)).sort();
      throw ROLLBACK;
    })
    .catch((error: unknown) => {
      if (error !== ROLLBACK) throw error;
    });
  return drift;
}
