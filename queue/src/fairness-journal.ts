/**
 * The room's side of the admission log: the fairness journal the admission scripts append to
 * (lua/includes/room.lua `journal`), read and trimmed by the core's copier, which turns the
 * entries into the hash-chained log in PostgreSQL (core/src/fairness/).
 */
import { createKeyBuilder } from './keys';
import { readReply } from './reply-fields';
import { scripts } from './scripts.gen';
import { runScript, type ScriptStore } from './store';

/** Why an entry was written: what happened to the buyer's place at that moment. */
export type JournalKind = 'joined' | 'drawn' | 'admitted' | 'passed_over' | 'returned' | 'left';

const KINDS: Record<string, JournalKind> = {
  j: 'joined',
  d: 'drawn',
  a: 'admitted',
  p: 'passed_over',
  r: 'returned',
  l: 'left',
};

export interface JournalEntry {
  /** Which life of the room's Redis copy numbered it: a new epoch after Redis lost the counter. */
  epoch: string;
  /** Its number within the epoch, from 1, without gaps. */
  seq: number;
  kind: JournalKind;
  customerId: string;
  /** The ticket issued at the join or by the draw (0: joined the pre-queue, not drawn yet). */
  rank: number;
  /** Redis clock, ms. */
  atMs: number;
  /** Drawn entries: the member's index in the sorted pre-queue, and the pre-queue's size. */
  drawIndex: number | null;
  drawSize: number | null;
}

const ENTRY = /^(\d+)\.(\d+)\|([jdaprl])\|([^|]+)\|(-?\d+)\|(\d+)(?:\|(\d+)\|(\d+))?$/;

/** One raw entry, or null when it is not one (never written by the scripts). */
export function parseJournalEntry(raw: string): JournalEntry | null {
  const m = ENTRY.exec(raw);
  if (!m) return null;
  return {
    epoch: m[1]!,
    seq: Number(m[2]),
    kind: KINDS[m[3]!]!,
    customerId: m[4]!,
    rank: Number(m[5]),
    atMs: Number(m[6]),
    drawIndex: m[7] === undefined ? null : Number(m[7]),
    drawSize: m[8] === undefined ? null : Number(m[8]),
  };
}

export interface FairnessJournal {
  /** The oldest entries still in Redis (at most `max`), parsed; unreadable ones are dropped from the answer. */
  read(showtimeId: string, max: number): Promise<JournalEntry[]>;
  /** Drops the entries of `epoch` up to `seq` (copied). Safe to run by many copiers at once. */
  trim(showtimeId: string, epoch: string, seq: number): Promise<number>;
}

export function createFairnessJournal(options: { store: ScriptStore; keyPrefix?: string }): FairnessJournal {
  const keys = createKeyBuilder(options.keyPrefix ?? '');
  const run = (showtimeId: string, args: (string | number)[]) =>
    runScript(options.store, scripts.journal, [keys.forShowtime(showtimeId).journal], args);
  return {
    async read(showtimeId, max) {
      const reply = await run(showtimeId, ['read', Math.max(1, Math.floor(max))]);
      return readReply('journal', reply)
        .rest.map((raw) => parseJournalEntry(String(raw)))
        .filter((entry): entry is JournalEntry => entry !== null);
    },
    async trim(showtimeId, epoch, seq) {
      const reply = await run(showtimeId, ['trim', epoch, seq]);
      return Number(readReply('journal', reply).rest[0] ?? 0);
    },
  };
}
