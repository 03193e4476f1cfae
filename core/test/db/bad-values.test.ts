/**
 * Every SQLSTATE a bad value can raise becomes a 4xx at the core, never a 500: each statement
 * below makes the real PostgreSQL refuse a value the way a caller's input could (too long, out
 * of range, malformed, NUL, a bad pattern, a missing value, a value too large), and the one
 * mapping (core/src/db/sql-errors.ts) must turn it into a 422. The broken variant is the
 * mapping as it was, a list of a few codes: it leaves most of them to the 500 path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../../../test/support/env';
import { isAppError } from '../../../lib/errors';
import { connectDatabase } from '../../src/db/connect';
import { mapDatabaseError } from '../../src/db/sql-errors';

let sql: ReturnType<typeof connectDatabase>;
beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 1, applicationName: 'test-bad-values' });
  await sql`CREATE TEMP TABLE bad_value_probe (label varchar(4) NOT NULL, amount int)`;
});
afterAll(async () => {
  await sql?.end();
});

/** A statement per refusal, with the SQLSTATE PostgreSQL answers it with. */
const REFUSALS: [string, string][] = [
  ['22001', `INSERT INTO bad_value_probe (label) VALUES ('too long')`],
  ['22003', `SELECT 2147483648::int`],
  ['22007', `SELECT 'not a date'::date`],
  ['22008', `SELECT '2030-13-45'::date`],
  ['22012', `SELECT 1 / 0`],
  ['22021', `SELECT convert_from('\\x00'::bytea, 'UTF8')`],
  ['22025', `SELECT 'x' LIKE 'x' ESCAPE 'ab'`],
  ['2201B', `SELECT 'a' ~ '('`],
  ['22P02', `SELECT 'abc'::int`],
  ['23502', `INSERT INTO bad_value_probe (label) VALUES (NULL)`],
  ['54000', `SELECT repeat('x', 2147483647)`],
];

async function refusal(statement: string): Promise<{ code: string; error: unknown }> {
  try {
    await sql.unsafe(statement);
  } catch (error) {
    return { code: (error as { code: string }).code, error };
  }
  throw new Error(`${statement} was accepted`);
}

/** The answer's status as the core's error handler would give it: a mapped AppError's, else 500. */
const statusOf = (mapped: unknown) => (isAppError(mapped) ? mapped.status : 500);

describe('bad values at the database', () => {
  it('every refusal of a value is a 422, whatever its SQLSTATE', async () => {
    for (const [expected, statement] of REFUSALS) {
      const { code, error } = await refusal(statement);
      expect(code, statement).toBe(expected);
      expect(statusOf(mapDatabaseError(error)), `${code} ${statement}`).toBe(422);
    }
  });

  it('the old mapping (a list of codes) leaves most of them to a 500: the broken variant', async () => {
    const oldList = new Set(['22P02', '22003', '22007', '22008', '22021', '22P05', '23505', '23503', '23514']);
    const oldMapping = (error: unknown) =>
      oldList.has((error as { code: string }).code) ? mapDatabaseError(error) : error;
    const fivehundreds: string[] = [];
    for (const [, statement] of REFUSALS) {
      const { code, error } = await refusal(statement);
      if (statusOf(oldMapping(error)) === 500) fivehundreds.push(code);
    }
    expect(fivehundreds).toEqual(['22001', '22012', '22025', '2201B', '23502', '54000']);
  });

  it('still leaves a bug a bug: an unknown column is not a caller error', async () => {
    const { error } = await refusal('SELECT no_such_column FROM bad_value_probe');
    expect(statusOf(mapDatabaseError(error))).toBe(500);
  });
});
