/**
 * The verifier anyone can run on a published admission log (GET /api/showtimes/:id/fairness
 * once the sale has ended), with or without a buyer's join receipt. Used by
 * `npm run verify-fairness` and by the "Check my place" page (/fairness). Web Crypto only.
 *
 * What it checks: the draw's seed matches the commitment published before the sale; the chain
 * is unbroken from its genesis (tied to that commitment) to the head; every drawn place is where
 * the revealed seed puts it (the same draw code the room runs); every entry of a buyer carries
 * the rank the buyer joined or was drawn with; and nobody was admitted ahead of a better-ranked
 * buyer who was in line and not passed over (an inversion). With a receipt: its signature
 * against the published keys, and that its place is in the log.
 */
import type { z } from 'zod';
import type { JSONWebKeySet } from 'jose';
import { fairnessLog } from './api-schemas';
import { buyerHash, entryHash, genesisHash, type LogEntry } from './fairness-chain';
import { verifyReceipt, type ReceiptClaims } from './fairness-receipt';
import { drawOrder, seedCommitment } from './fair-draw';

/** The published answer, as lib/api-schemas.ts describes it for the API. */
export const publishedLogSchema = fairnessLog;

export type PublishedLog = z.infer<typeof publishedLogSchema>;

export type CheckId = 'published' | 'commitment' | 'chain' | 'draw' | 'ranks' | 'order' | 'receipt' | 'receipt_in_log';

export interface Check {
  id: CheckId;
  ok: boolean;
  /** One sentence, in English, for the command line and the record. */
  detail: string;
}

export interface ReceiptFinding {
  claims: ReceiptClaims;
  /** Where the buyer's entries are (seq numbers), and whether they were admitted. */
  entries: number[];
  admitted: boolean;
  /** Buyers admitted ahead of this buyer while this buyer was in line with the better rank. */
  overtakenBy: number;
}

export interface Verification {
  verdict: 'verified' | 'failed';
  showtimeId: string;
  entries: number;
  admitted: number;
  /** Admissions of a buyer while a better-ranked buyer was present and not passed over (pairs). */
  inversions: number;
  checks: Check[];
  receipt: ReceiptFinding | null;
  /** A sentence a journalist could quote. */
  summary: string;
}

/** Thrown for input that cannot be verified at all (malformed, sale not over): exit 2, not 1. */
export class CannotVerify extends Error {}

export function parsePublishedLog(input: unknown): PublishedLog {
  const parsed = publishedLogSchema.safeParse(input);
  if (!parsed.success) {
    throw new CannotVerify(
      `not an admission log: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(root)'} ${i.message}`)
        .join('; ')}`,
    );
  }
  const log = parsed.data;
  if (!log.ended || log.entries === null || log.seed === null || log.salt === null) {
    throw new CannotVerify(
      `the sale of showtime ${log.showtimeId} has not ended: only the chain head is published so far (entry ${log.head.seq}, ${log.head.hash})`,
    );
  }
  return log;
}

async function checkChain(log: PublishedLog & { entries: LogEntry[] }): Promise<Check> {
  const genesis = await genesisHash(log.showtimeId, log.commitment);
  if (genesis !== log.genesis) return { id: 'chain', ok: false, detail: 'the genesis does not match the commitment' };
  let previous = genesis;
  for (const [i, entry] of log.entries.entries()) {
    if (entry.seq !== i + 1) return { id: 'chain', ok: false, detail: `entry ${i + 1} is missing or out of order` };
    const { hash, ...rest } = entry;
    previous = await entryHash(previous, rest);
    if (previous !== hash) return { id: 'chain', ok: false, detail: `entry ${entry.seq} does not hash to its link` };
  }
  if (log.head.seq !== log.entries.length || log.head.hash !== previous) {
    return { id: 'chain', ok: false, detail: 'the published head is not the end of the chain' };
  }
  return { id: 'chain', ok: true, detail: `${log.entries.length} entries chain unbroken from the genesis to the head` };
}

/** The draw's permutation depends only on the seed and the pre-queue's size (fair-draw.ts sorts, then shuffles). */
async function checkDraw(seed: string, entries: LogEntry[]): Promise<Check> {
  const drawn = entries.filter((e) => e.kind === 'drawn');
  if (drawn.length === 0)
    return { id: 'draw', ok: true, detail: 'no opening draw took place (nobody in the pre-queue)' };
  const size = drawn[0]!.drawSize!;
  if (drawn.some((e) => e.drawSize !== size || e.drawIndex === null || e.drawIndex >= size)) {
    return { id: 'draw', ok: false, detail: 'the drawn entries disagree on the pre-queue' };
  }
  const width = String(size).length;
  const order = await drawOrder(
    seed,
    Array.from({ length: size }, (_, i) => String(i).padStart(width, '0')),
  );
  const position = new Map(order.map((index, k) => [Number(index), k + 1]));
  const base = drawn[0]!.rank - position.get(drawn[0]!.drawIndex!)!;
  const wrong = drawn.filter((e) => e.rank - position.get(e.drawIndex!)! !== base);
  if (wrong.length > 0) {
    return { id: 'draw', ok: false, detail: `${wrong.length} drawn places are not where the seed puts them` };
  }
  return { id: 'draw', ok: true, detail: `${drawn.length} drawn places are where the revealed seed puts them` };
}

/** Fenwick tree over ranks (tickets stay far below 2^30; bit operations are 32-bit): present buyers below a rank. */
const MAX_RANK = 2 ** 30;
function presenceCounter() {
  const tree = new Map<number, number>();
  const add = (rank: number, delta: number) => {
    for (let i = Math.min(rank, MAX_RANK); i <= MAX_RANK; i += i & -i) tree.set(i, (tree.get(i) ?? 0) + delta);
  };
  const below = (rank: number) => {
    let sum = 0;
    for (let i = Math.min(rank, MAX_RANK + 1) - 1; i > 0; i -= i & -i) sum += tree.get(i) ?? 0;
    return sum;
  };
  return { add, below };
}

interface OrderFindings {
  ranks: Check;
  inversions: number;
  admitted: number;
  overtaken: Map<string, number>;
}

function checkOrder(entries: LogEntry[]): OrderFindings {
  const rankOf = new Map<string, number>();
  const present = new Map<string, number>();
  const counter = presenceCounter();
  const overtaken = new Map<string, number>();
  let inversions = 0;
  let admitted = 0;
  const mismatched: number[] = [];
  const leave = (who: string) => {
    const rank = present.get(who);
    if (rank === undefined) return;
    present.delete(who);
    counter.add(rank, -1);
  };
  for (const e of entries) {
    const who = e.buyerHash;
    if (e.kind === 'line_reset') {
      // Redis lost the room: the line went with it, and its buyers had to join again. Ranks
      // stay known: a turn granted before the loss comes back with its ticket.
      for (const other of [...present.keys()]) leave(other);
      continue;
    }
    if (e.kind === 'joined' || e.kind === 'drawn') {
      leave(who);
      rankOf.set(who, e.rank);
      if (e.rank > 0) {
        present.set(who, e.rank);
        counter.add(e.rank, 1);
      }
      continue;
    }
    // A buyer whose join the log does not hold (lost with Redis before it was copied) has no
    // rank to compare with: only a known rank can be contradicted.
    if (rankOf.has(who) && rankOf.get(who) !== e.rank) mismatched.push(e.seq);
    if (e.kind === 'returned') {
      leave(who);
      present.set(who, e.rank);
      counter.add(e.rank, 1);
    } else if (e.kind === 'admitted') {
      admitted++;
      leave(who);
      // Counted from the rank the buyer joined with: a buyer moved ahead in the line is admitted
      // under the line's order, and every better-ranked buyer still waiting is overtaken.
      const rank = rankOf.get(who) ?? e.rank;
      const ahead = counter.below(rank);
      if (ahead > 0) {
        inversions += ahead;
        for (const [other, r] of present) if (r < rank) overtaken.set(other, (overtaken.get(other) ?? 0) + 1);
      }
    } else {
      leave(who);
    }
  }
  const ranks: Check =
    mismatched.length === 0
      ? { id: 'ranks', ok: true, detail: 'every entry carries the rank its buyer joined or was drawn with' }
      : {
          id: 'ranks',
          ok: false,
          detail: `${mismatched.length} entries carry a rank their buyer never joined with (first: entry ${mismatched[0]})`,
        };
  return { ranks, inversions, admitted, overtaken };
}

async function checkReceipt(
  receipt: string,
  jwks: JSONWebKeySet,
  log: PublishedLog & { entries: LogEntry[]; salt: string },
  overtaken: Map<string, number>,
): Promise<{ checks: Check[]; finding: ReceiptFinding | null }> {
  const signed = await verifyReceipt(receipt, jwks);
  if (!signed.ok) return { checks: [{ id: 'receipt', ok: false, detail: signed.reason }], finding: null };
  const claims = signed.claims;
  const checks: Check[] = [
    { id: 'receipt', ok: true, detail: `the receipt is signed by the sale's key ${claims.kid}` },
  ];
  if (claims.showtimeId !== log.showtimeId) {
    checks.push({ id: 'receipt_in_log', ok: false, detail: `the receipt is for showtime ${claims.showtimeId}` });
    return { checks, finding: null };
  }
  const hash = await buyerHash(log.salt, claims.customerId);
  const mine = log.entries.filter((e) => e.buyerHash === hash);
  // A pre-queue member who joins again after the draw is told the drawn place: that receipt
  // matches the drawn entry.
  const placed = mine.find((e) => (e.kind === 'joined' || e.kind === 'drawn') && e.rank === claims.rank);
  const joinedAsReceipt = placed !== undefined;
  checks.push(
    joinedAsReceipt
      ? {
          id: 'receipt_in_log',
          ok: true,
          detail:
            claims.stage === 'prequeue'
              ? `the buyer joined the pre-queue (entry ${mine[0]!.seq})`
              : `the buyer ${placed!.kind === 'drawn' ? 'was drawn' : 'joined'} with rank ${claims.rank} (entry ${placed!.seq})`,
        }
      : { id: 'receipt_in_log', ok: false, detail: "the log has no join at the receipt's rank for this buyer" },
  );
  return {
    checks,
    finding: {
      claims,
      entries: mine.map((e) => e.seq),
      admitted: mine.some((e) => e.kind === 'admitted'),
      overtakenBy: overtaken.get(hash) ?? 0,
    },
  };
}

/** Verifies a published log (already fetched), and a receipt when given (with the keys that sign them). */
export async function verifyFairness(
  input: unknown,
  options: { receipt?: string | null; jwks?: JSONWebKeySet | null } = {},
): Promise<Verification> {
  const log = parsePublishedLog(input) as PublishedLog & { entries: LogEntry[]; seed: string; salt: string };
  const checks: Check[] = [];
  const committed = (await seedCommitment(log.seed)) === log.commitment;
  checks.push(
    committed
      ? { id: 'commitment', ok: true, detail: 'the revealed seed matches the commitment published before the sale' }
      : { id: 'commitment', ok: false, detail: 'the revealed seed does not match the published commitment' },
  );
  checks.push(await checkChain(log));
  checks.push(await checkDraw(log.seed, log.entries));
  const order = checkOrder(log.entries);
  checks.push(order.ranks);
  checks.push(
    order.inversions === 0
      ? { id: 'order', ok: true, detail: `${order.admitted} admissions, none ahead of a better-ranked buyer in line` }
      : {
          id: 'order',
          ok: false,
          detail: `${order.inversions} times a buyer was admitted ahead of a better-ranked buyer who was in line and not passed over`,
        },
  );
  let receipt: ReceiptFinding | null = null;
  if (options.receipt) {
    if (!options.jwks) throw new CannotVerify('a receipt needs the sale keys (JWKS) to be checked');
    const found = await checkReceipt(options.receipt, options.jwks, log, order.overtaken);
    checks.push(...found.checks);
    receipt = found.finding;
  }
  const failed = checks.filter((c) => !c.ok);
  const verdict = failed.length === 0 ? 'verified' : 'failed';
  const summary =
    verdict === 'verified'
      ? `VERIFIED: showtime ${log.showtimeId}'s admission log (${log.entries.length} entries, ${order.admitted} admissions) ` +
        `is intact, matches the draw committed before the sale, and shows every buyer admitted in their turn (0 inversions)` +
        (receipt ? `; the receipt's place is in it${receipt.admitted ? ' and was admitted' : ''}.` : '.')
      : `FAILED: showtime ${log.showtimeId}'s admission log does not verify: ${failed.map((c) => c.detail).join('; ')}.`;
  return {
    verdict,
    showtimeId: log.showtimeId,
    entries: log.entries.length,
    admitted: order.admitted,
    inversions: order.inversions,
    checks,
    receipt,
    summary,
  };
}
