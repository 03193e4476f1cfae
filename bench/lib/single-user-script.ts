/**
 * The `holds` bench's pgbench scripts as a script for a single-user PostgreSQL (one statement
 * per line, PREPAREd once, EXECUTEd per pair), so `hold-instructions` counts exactly the
 * statements `holds` times. pgbench's variables become parameters: $1 the showtime, $2 the
 * customer, $3 the seat (unused by best available, which picks its own), $4 the hold id (chosen
 * here, as the core chooses it).
 */
import { createHash } from 'node:crypto';
import { rectangularLayout } from '../../core/src/demo/seat-layout';
import { benchPlanning } from './bench-db';
import { BARE_UPDATE, BEST_STATEMENTS, COLUMNS, PICK_SEAT, ROWS, SAME_STATEMENTS, SEAT } from './hold-scripts';

export type HoldKind = 'bare' | 'same' | 'best';

/** The pgbench script of each kind (bench/lib/hold-scripts.ts). */
export const HOLD_SCRIPTS: Readonly<Record<HoldKind, string>> = {
  bare: BARE_UPDATE,
  same: SAME_STATEMENTS,
  best: BEST_STATEMENTS,
};

// The hold, whose id pgbench draws and keeps (\gset): here it is the parameter $4.
const HOLD_LINE = /^(SELECT hold_id FROM \w+\(.*), gen_random_uuid\(\)\) \\gset$/m;

/** pgbench variables to parameters, and each statement on one line. */
export function toStatements(script: string): string[] {
  const statements = script
    .replace(PICK_SEAT, '')
    .replaceAll(SEAT, () => '$3')
    .replaceAll("'pgbench-' || :client_id", () => '$2')
    .replaceAll(':hold_id', () => '$4')
    .replaceAll(':show', () => '$1')
    .replace(HOLD_LINE, (_, call: string) => `${call}, $4);`)
    .split(/;\s*\n/)
    .map((statement) => statement.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  const left = statements.find((statement) => /(^|[^:]):[a-z_]+/.test(statement.replaceAll('::', '')));
  if (left) throw new Error(`single-user script: a pgbench variable is left in: ${left}`);
  return statements;
}

export function singleUserScript(kind: HoldKind, showtimeId: number, pairs: number): string {
  const statements = toStatements(HOLD_SCRIPTS[kind]);
  if (statements.length !== 2) throw new Error(`single-user script: expected 2 statements, got ${statements.length}`);
  const { planCacheMode, sequentialScans } = benchPlanning();
  const seats = rectangularLayout({ rows: ROWS, columns: COLUMNS }).map((seat) => seat.code);
  const lines = [
    `SET plan_cache_mode = ${planCacheMode}`,
    `SET enable_seqscan = ${sequentialScans ? 'on' : 'off'}`,
    `PREPARE first_half(bigint, text, text, uuid) AS ${statements[0]}`,
    `PREPARE second_half(bigint, text, text, uuid) AS ${statements[1]}`,
  ];
  for (let i = 0; i < pairs; i++) {
    const holdId = holdIdFor(i);
    const args = `${showtimeId}, 'counted-${i}', '${seats[i % seats.length]}', '${holdId}'`;
    lines.push(`EXECUTE first_half(${args})`, `EXECUTE second_half(${args})`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * A random-looking version-4 UUID, the same for the same pair in every run: the core draws hold
 * ids at random, so these land in the indexes where the core's would, and every run counts the
 * same keys.
 */
function holdIdFor(pair: number): string {
  const hex = createHash('sha256').update(`hold-${pair}`).digest('hex');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
