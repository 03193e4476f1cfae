/**
 * The receipt a join answer carries (lib/fairness-receipt.ts): signed, so the buyer can later
 * prove where the room put them and check that place against the published admission log.
 */
import type { ReceiptSigner } from '../../../lib/fairness-receipt';
import type { QueueAnswer } from './room-gateway';

export function signJoinReceipt(
  receipts: ReceiptSigner,
  showtimeId: string,
  customerId: string,
  answer: Pick<QueueAnswer, 'state' | 'ticket'>,
): Promise<string> {
  const prequeue = answer.state === 'prequeue';
  return receipts.sign({
    showtimeId,
    customerId,
    // Before the opening the draw decides the rank: the receipt says so rather than guess.
    rank: prequeue ? 0 : Math.max(0, answer.ticket),
    stage: prequeue ? 'prequeue' : 'line',
  });
}
