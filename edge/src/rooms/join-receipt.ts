/**
 * The receipt a join answer carries (lib/fairness-receipt.ts): signed, so the buyer can later
 * prove where the room put them and check that place against the published admission log.
 *
 * An ES256 signature costs about 0.2 ms of CPU; a crowd re-joins (reloads, retries) and gets the
 * same place back, so the receipt of a place is signed once per process and reused: it then also
 * carries the earliest join this process saw, which is the one worth proving.
 */
import type { ReceiptSigner } from '../../../lib/fairness-receipt';
import type { QueueAnswer } from './room-gateway';

const KEPT_RECEIPTS = 10_000;
const signed = new WeakMap<ReceiptSigner, Map<string, Promise<string>>>();

export function signJoinReceipt(
  receipts: ReceiptSigner,
  showtimeId: string,
  customerId: string,
  answer: Pick<QueueAnswer, 'state' | 'ticket'>,
): Promise<string> {
  const prequeue = answer.state === 'prequeue';
  // Before the opening the draw decides the rank: the receipt says so rather than guess.
  const rank = prequeue ? 0 : Math.max(0, answer.ticket);
  let kept = signed.get(receipts);
  if (!kept) signed.set(receipts, (kept = new Map()));
  const key = `${showtimeId}\n${customerId}\n${rank}`;
  const known = kept.get(key);
  if (known) return known;
  const receipt = receipts.sign({ showtimeId, customerId, rank, stage: prequeue ? 'prequeue' : 'line' });
  if (kept.size >= KEPT_RECEIPTS) kept.delete(kept.keys().next().value as string);
  kept.set(key, receipt);
  // A failed signature is not kept: the next join tries again.
  receipt.catch(() => kept.delete(key));
  return receipt;
}
