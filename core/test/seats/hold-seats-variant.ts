import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Sql } from 'postgres';
import { FUNCTIONS_DIR } from '../../src/db/function-files';

/**
 * Loads hold_seats.sql under another name with one piece replaced: the broken variant a test
 * shows its check catching. Throws when the piece is no longer in the file, so the variant can
 * never silently be the real function.
 */
export async function loadHoldSeatsVariant(
  sql: Sql,
  args: { name: string; piece: string | RegExp; replacement: string; missing: string },
): Promise<void> {
  const source = await readFile(path.join(FUNCTIONS_DIR, 'hold_seats.sql'), 'utf8');
  const found = typeof args.piece === 'string' ? source.includes(args.piece) : args.piece.test(source);
  if (!found) throw new Error(args.missing);
  await sql.unsafe(
    source
      .replace('CREATE OR REPLACE FUNCTION hold_seats(', `CREATE OR REPLACE FUNCTION ${args.name}(`)
      .replace(args.piece, args.replacement),
  );
}
