/**
 * What the public may see of a showtime's fairness record, and when: the draw's commitment and
 * the chain's head at any time; the whole log, the salt and the seed once the sale has ended
 * (closed, sold out, started), when revealing them can no longer change anyone's place.
 */
import type { Sql } from 'postgres';
import { genesisHash, type LogEntry } from '../../../lib/fairness-chain';
import type { FairnessJournal } from '../../../queue/src/fairness-journal';
import { findShowtime } from '../catalog/showtime-repo';
import { roomStateFor } from '../sale/sale-control';
import { copyJournal } from './fairness-copier';
import { findFairness, listLog } from './fairness-repo';

export interface PublishedFairness {
  showtimeId: string;
  saleState: string;
  /** The sale is over: seed, salt and entries are published. */
  ended: boolean;
  /** SHA-256 of the draw's seed, published before the sale opened. */
  commitment: string;
  /** Where the chain starts (tied to the commitment). */
  genesis: string;
  head: { seq: number; hash: string };
  seed: string | null;
  salt: string | null;
  entries: LogEntry[] | null;
}

export function createFairnessService(deps: { sql: Sql; journal: FairnessJournal | null }) {
  return {
    /** null: no such showtime. Copies the room's journal first, so the answer is current. */
    async published(showtimeId: number): Promise<PublishedFairness | null> {
      const showtime = await findShowtime(deps.sql, showtimeId);
      if (!showtime) return null;
      // Best effort: with Redis away, the log as copied so far is still the truth up to its head.
      if (deps.journal) await copyJournal({ sql: deps.sql, journal: deps.journal }, showtimeId).catch(() => 0);
      const record = await findFairness(deps.sql, showtimeId);
      if (!record) return null;
      const roomState = roomStateFor(showtime);
      const ended = roomState === 'closed' || roomState === 'sold_out';
      const genesis = await genesisHash(String(showtimeId), record.commitment);
      const entries = ended
        ? (await listLog(deps.sql, showtimeId)).map(
            (r): LogEntry => ({
              seq: Number(r.seq),
              kind: r.kind,
              buyerHash: r.buyer_hash,
              rank: Number(r.rank),
              atMs: Number(r.at_ms),
              drawIndex: r.draw_index,
              drawSize: r.draw_size,
              hash: r.hash,
            }),
          )
        : null;
      // The head as of the entries read (a copy may have landed in between).
      const last = entries?.at(-1);
      return {
        showtimeId: String(showtimeId),
        saleState: showtime.sale_state,
        ended,
        commitment: record.commitment,
        genesis,
        head: last
          ? { seq: last.seq, hash: last.hash }
          : entries
            ? { seq: 0, hash: genesis }
            : { seq: Number(record.head_seq), hash: record.head_hash ?? genesis },
        seed: ended ? record.seed : null,
        salt: ended ? record.salt : null,
        entries,
      };
    },
  };
}

export type FairnessService = ReturnType<typeof createFairnessService>;
