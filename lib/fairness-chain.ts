/**
 * The admission log's hash chain, computed in one place: the core's copier builds the chain with
 * these functions and every verifier (lib/fairness-verify.ts) recomputes it with the same ones.
 * Web Crypto only, so it runs on Node, on Workers and in a browser.
 *
 * entry hash = SHA-256(previous hash ‖ "\n" ‖ canonical entry), the first entry's previous hash
 * being the genesis: SHA-256("admission-log|<showtime>|<draw commitment>"), so the log is tied
 * to the commitment published before the sale opened.
 */

/**
 * `line_reset`: the room's copy in Redis was lost and restored (its journal began a new epoch);
 * whoever stood in line then had to join again. Its buyer hash is NO_BUYER.
 */
export type LogKind = 'joined' | 'drawn' | 'admitted' | 'passed_over' | 'returned' | 'left' | 'line_reset';

export const LOG_KINDS: readonly LogKind[] = [
  'joined',
  'drawn',
  'admitted',
  'passed_over',
  'returned',
  'left',
  'line_reset',
];

export const NO_BUYER = '0'.repeat(64);

/** One entry of the published log. */
export interface LogEntry {
  seq: number;
  kind: LogKind;
  /** SHA-256 of "<salt>:<customer id>" (hex): nobody can tell who it is from the log alone; after the salt is revealed, only someone who knows the id can find its entries. */
  buyerHash: string;
  /** The ticket issued at the join or by the draw; 0 for a join to the pre-queue (the draw places it). */
  rank: number;
  atMs: number;
  drawIndex: number | null;
  drawSize: number | null;
  hash: string;
}

const encoder = new TextEncoder();

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

export const genesisHash = (showtimeId: string, commitment: string) =>
  sha256Hex(`admission-log|${showtimeId}|${commitment}`);

export const buyerHash = (salt: string, customerId: string) => sha256Hex(`${salt}:${customerId}`);

/** The fields the hash covers, in a fixed order (everything but the hash itself). */
export function canonicalEntry(entry: Omit<LogEntry, 'hash'>): string {
  return [
    entry.seq,
    entry.kind,
    entry.buyerHash,
    entry.rank,
    entry.atMs,
    entry.drawIndex ?? '',
    entry.drawSize ?? '',
  ].join('|');
}

export const entryHash = (previousHash: string, entry: Omit<LogEntry, 'hash'>) =>
  sha256Hex(`${previousHash}\n${canonicalEntry(entry)}`);
