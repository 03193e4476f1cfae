import type { Sql } from 'postgres';

export type RolledBackOutcome =
  | { refused: false }
  | { refused: true; code: string | undefined; constraint: string | undefined };

/**
 * Runs `write` (after `before`, when given: the broken variant's schema change) in a transaction
 * that is always rolled back, and says whether the database refused it and how. Nothing it does
 * outlives the call, so one database serves every case.
 */
export async function attemptRolledBack(
  sql: Sql,
  write: (tx: Sql) => Promise<unknown>,
  before?: (tx: Sql) => Promise<unknown>,
): Promise<RolledBackOutcome> {
  const rollback = new Error('rollback');
  try {
    await sql.begin(async (tx) => {
      if (before) await before(tx as unknown as Sql);
      await write(tx as unknown as Sql);
      throw rollback;
    });
  } catch (error) {
    if (error === rollback) return { refused: false };
    const e = error as { code?: string; constraint_name?: string };
    return { refused: true, code: e.code, constraint: e.constraint_name };
  }
  throw new Error('unreachable');
}
