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

const HEADER = /^(\d+)\.(\d+)$/;
const LINE = /^([jdaprl])\|([^|]+)\|(-?\d+)\|(\d+)(?:\|(\d+)\|(\d+))?$/;

/**
 * One journal element (one script call's entries: `<epoch>.<first seq>` then a line each), or
 * null when it is not one (never written by the scripts).
 */
export function parseJournalElement(raw: string): JournalEntry[] | null {
  const [header, ...lines] = raw.split('\n');
  const h = HEADER.exec(header ?? '');
  if (!h || lines.length === 0) return null;
  const entries: JournalEntry[] = [];
  for (const [i, line] of lines.entries()) {
    const m = LINE.exec(line);
    if (!m) return null;
    entries.push({
      epoch: h[1]!,
      seq: Number(h[2]) + i,
      kind: KINDS[m[1]!]!,
      customerId: m[2]!,
      rank: Number(m[3]),
      atMs: Number(m[4]),
      drawIndex: m[5] === undefined ? null : Number(m[5]),
      drawSize: m[6] === undefined ? null : Number(m[6]),
    });
  }
  return entries;
}

export interface FairnessJournal {
  /**
   * The entries of the oldest elements still in Redis (at most `maxElements`, one per script
   * call), parsed, oldest first; `elements` says how many were read (unreadable ones are skipped).
   */
  read(showtimeId: string, maxElements: number): Promise<{ entries: JournalEntry[]; elements: number }>;
  /** Drops the entries of `epoch` up to `seq` (copied). Safe to run by many copiers at once. */
  trim(showtimeId: string, epoch: string, seq: number): Promise<number>;
}

export function createFairnessJournal(options: { store: ScriptStore; keyPrefix?: string }): FairnessJournal {
  const keys = createKeyBuilder(options.keyPrefix ?? '');
  const run = (showtimeId: string, args: (string | number)[]) =>
    runScript(options.store, scripts.journal, [keys.forShowtime(showtimeId).journal], args);
  return {
    async read(showtimeId, maxElements) {
      const reply = await run(showtimeId, ['read', Math.max(1, Math.floor(maxElements))]);
      const elements = readReply('journal', reply).rest;
      return {
        entries: elements.flatMap((raw) => parseJournalElement(String(raw)) ?? []),
        elements: elements.length,
      };
    },
    async trim(showtimeId, epoch, seq) {
      const reply = await run(showtimeId, ['trim', epoch, seq]);
      return Number(readReply('journal', reply).rest[0] ?? 0);
    },
  };
}
