/**
 * Copies each room's fairness journal from Redis into the admission log in PostgreSQL, in
 * batches, chaining every entry to the one before (lib/fairness-chain.ts). The admission step
 * only appends to a Redis list; this job (every ~200 ms, and before anything that needs the log
 * current) does the hashing and the writing.
 *
 * Race-safe and idempotent: the showtime's fairness row is locked for the copy, and every entry
 * carries its journal number (epoch, seq), so a copier that read entries another copier has
 * already chained skips them, and trimming goes by number (journal-1.lua), never by count.
 */
import type { Sql } from 'postgres';
import { buyerHash, entryHash, genesisHash, NO_BUYER, type LogEntry } from '../../../lib/fairness-chain';
import type { FairnessJournal, JournalEntry } from '../../../queue/src/fairness-journal';
import { findFairness, insertLogEntries, listCopyTargets, lockFairness, moveHead, type LogRow } from './fairness-repo';

export interface CopyOptions {
  /** Journal elements (one per script call) read from Redis per transaction. */
  batch?: number;
  /**
   * false only in the race test's naive variant: reads the head without locking it, so two
   * copiers chain the same entries onto the same head.
   */
  lock?: boolean;
}

const DEFAULT_BATCH = 100;

/** One batch: returns the entries chained (0 when the journal held nothing new). */
async function copyBatch(
  sql: Sql,
  showtimeId: number,
  entries: JournalEntry[],
  lock: boolean,
): Promise<{ copied: number; cursor: { epoch: string; seq: number } | null }> {
  return sql.begin(async (tx) => {
    const row = lock ? await lockFairness(tx, showtimeId) : await findFairness(tx, showtimeId);
    if (!row) return { copied: 0, cursor: null };
    const fresh = entries.filter((e) => !(e.epoch === row.journal_epoch && e.seq <= Number(row.journal_seq)));
    const last = entries.at(-1)!;
    if (fresh.length === 0) return { copied: 0, cursor: { epoch: last.epoch, seq: last.seq } };
    let previous = row.head_hash ?? (await genesisHash(String(showtimeId), row.commitment));
    let seq = Number(row.head_seq);
    let epoch = row.journal_epoch;
    const rows: LogRow[] = [];
    const chain = async (e: Omit<LogEntry, 'seq' | 'hash'>, from: { epoch: string; seq: number }) => {
      seq += 1;
      const entry = { seq, ...e };
      previous = await entryHash(previous, entry);
      rows.push({
        seq,
        kind: e.kind,
        buyer_hash: e.buyerHash,
        rank: e.rank,
        at_ms: e.atMs,
        draw_index: e.drawIndex,
        draw_size: e.drawSize,
        hash: previous,
        journal_epoch: from.epoch,
        journal_seq: from.seq,
      });
    };
    for (const e of fresh) {
      // A new epoch after entries of another: Redis lost the room and its line (buyers joined
      // again). Said in the log, so a verifier stops counting the lost line as present.
      if (epoch !== null && e.epoch !== epoch) {
        const mark = { kind: 'line_reset' as const, buyerHash: NO_BUYER, rank: 0, atMs: e.atMs };
        await chain({ ...mark, drawIndex: null, drawSize: null }, { epoch: e.epoch, seq: 0 });
      }
      epoch = e.epoch;
      await chain(
        {
          kind: e.kind,
          buyerHash: await buyerHash(row.salt, e.customerId),
          rank: e.rank,
          atMs: e.atMs,
          drawIndex: e.drawIndex,
          drawSize: e.drawSize,
        },
        e,
      );
    }
    await insertLogEntries(tx, showtimeId, rows);
    const tail = fresh.at(-1)!;
    await moveHead(tx, showtimeId, { seq, hash: previous, journalEpoch: tail.epoch, journalSeq: tail.seq });
    return { copied: rows.length, cursor: { epoch: tail.epoch, seq: tail.seq } };
  });
}

/** Copies everything the room's journal holds now; returns the entries chained. */
export async function copyJournal(
  deps: { sql: Sql; journal: FairnessJournal },
  showtimeId: number,
  options: CopyOptions = {},
): Promise<number> {
  const batch = options.batch ?? DEFAULT_BATCH;
  let total = 0;
  for (;;) {
    const { entries, elements } = await deps.journal.read(String(showtimeId), batch);
    if (entries.length === 0) return total;
    const { copied, cursor } = await copyBatch(deps.sql, showtimeId, entries, options.lock ?? true);
    total += copied;
    // Trimmed only once the transaction committed: a crash in between leaves entries the next
    // copier skips by number.
    if (cursor) await deps.journal.trim(String(showtimeId), cursor.epoch, cursor.seq);
    if (elements < batch || !cursor) return total;
  }
}

/** The background job's pass: every showtime that may still be selling. */
export async function copyAllJournals(deps: { sql: Sql; journal: FairnessJournal }): Promise<number> {
  let total = 0;
  for (const showtimeId of await listCopyTargets(deps.sql)) total += await copyJournal(deps, showtimeId);
  return total;
}
