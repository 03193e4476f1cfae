/** SQL of the admission log and each showtime's fairness record (migrations/0013_admission_fairness.sql). */
import type { Db } from '../db/connect';
import type { LogKind } from '../../../lib/fairness-chain';

export interface FairnessRow {
  showtime_id: number;
  seed: string;
  commitment: string;
  salt: string;
  head_seq: number;
  head_hash: string | null;
  journal_epoch: string | null;
  journal_seq: number;
}

export interface LogRow {
  seq: number;
  kind: LogKind;
  buyer_hash: string;
  rank: number;
  at_ms: number;
  draw_index: number | null;
  draw_size: number | null;
  hash: string;
  journal_epoch: string;
  journal_seq: number;
}

const FAIRNESS_COLUMNS = 'showtime_id, seed, commitment, salt, head_seq, head_hash, journal_epoch, journal_seq';

export async function findFairness(sql: Db, showtimeId: number): Promise<FairnessRow | null> {
  const [row] = await sql<FairnessRow[]>`
    SELECT ${sql.unsafe(FAIRNESS_COLUMNS)} FROM fairness_showtime WHERE showtime_id = ${showtimeId}`;
  return row ?? null;
}

/**
 * The record, locked for the rest of the transaction: copiers of one showtime run one at a
 * time, each starting from the head the previous one left.
 */
export async function lockFairness(tx: Db, showtimeId: number): Promise<FairnessRow | null> {
  const [row] = await tx<FairnessRow[]>`
    SELECT ${tx.unsafe(FAIRNESS_COLUMNS)} FROM fairness_showtime WHERE showtime_id = ${showtimeId} FOR UPDATE`;
  return row ?? null;
}

/** Commitments of several showtimes at once (the room sync hands the seeds to Redis). */
export async function listFairness(sql: Db, showtimeIds: number[]): Promise<FairnessRow[]> {
  if (showtimeIds.length === 0) return [];
  return sql<FairnessRow[]>`
    SELECT ${sql.unsafe(FAIRNESS_COLUMNS)} FROM fairness_showtime WHERE showtime_id = ANY(${showtimeIds}::bigint[])`;
}

export async function insertLogEntries(tx: Db, showtimeId: number, rows: LogRow[]): Promise<void> {
  if (rows.length === 0) return;
  await tx`
    INSERT INTO admission_log ${tx(
      rows.map((r) => ({ showtime_id: showtimeId, ...r })),
      'showtime_id',
      'seq',
      'kind',
      'buyer_hash',
      'rank',
      'at_ms',
      'draw_index',
      'draw_size',
      'hash',
      'journal_epoch',
      'journal_seq',
    )}`;
}

export async function moveHead(
  tx: Db,
  showtimeId: number,
  head: { seq: number; hash: string; journalEpoch: string; journalSeq: number },
): Promise<void> {
  await tx`
    UPDATE fairness_showtime
       SET head_seq = ${head.seq}, head_hash = ${head.hash}, journal_epoch = ${head.journalEpoch},
           journal_seq = ${head.journalSeq}, updated_at = now()
     WHERE showtime_id = ${showtimeId}`;
}

export async function listLog(sql: Db, showtimeId: number, afterSeq = 0, limit = 100_000): Promise<LogRow[]> {
  return sql<LogRow[]>`
    SELECT seq::float8 AS seq, kind, buyer_hash, rank::float8 AS rank, at_ms::float8 AS at_ms, draw_index,
           draw_size, hash, journal_epoch, journal_seq::float8 AS journal_seq
      FROM admission_log
     WHERE showtime_id = ${showtimeId} AND seq > ${afterSeq}
     ORDER BY seq
     LIMIT ${limit}`;
}

/**
 * Showtimes whose journal may hold entries now: opening within the hour or open, not started
 * long ago. A pre-queue joined days ahead waits in Redis until then (nothing is published before
 * the sale anyway, and a read of the log copies first); the copier need not poll every future sale.
 */
export async function listCopyTargets(sql: Db, limit = 500): Promise<number[]> {
  const rows = await sql<{ id: number }[]>`
    SELECT id::float8 AS id FROM showtime
     WHERE starts_at > now() - interval '1 day' AND sale_opens_at <= now() + interval '1 hour'
     ORDER BY starts_at
     LIMIT ${limit}`;
  return rows.map((r) => r.id);
}
