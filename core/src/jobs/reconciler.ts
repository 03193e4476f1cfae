import type { Sql } from 'postgres';
import type { PaymentGateway } from '../payments/gateway-client';
import { settlePayment, type GatewayOutcome } from '../payments/settlement';

const OUTCOME_OF_STATUS: Record<string, GatewayOutcome | undefined> = {
  succeeded: 'succeeded',
  refunded: 'succeeded', // money was taken (then returned at the gateway): settle the sale first
  failed: 'failed',
  expired: 'failed',
};

/**
 * Reconciler: payments still PENDING past `pendingAfterMs` are asked about at the gateway and
 * settled by the same rules as a webhook. A lease (`next_check_at`) claimed with SKIP LOCKED
 * lets several instances share the work; a payment the gateway still calls pending is checked
 * again later with backoff.
 */
export async function reconcilePendingPayments(
  sql: Sql,
  gateway: PaymentGateway,
  options: { pendingAfterMs: number; recheckAfterMs: number; batchSize?: number },
): Promise<{ checked: number; settled: number }> {
  const due = await sql<{ id: string }[]>`
    UPDATE payment p SET next_check_at = now() + ${options.recheckAfterMs} * interval '1 millisecond'
     WHERE p.id IN (
       SELECT id FROM payment
        WHERE status = 'PENDING' AND next_check_at <= now()
          AND created_at <= now() - ${options.pendingAfterMs} * interval '1 millisecond'
        ORDER BY next_check_at
        LIMIT ${options.batchSize ?? 50}
          FOR UPDATE SKIP LOCKED)
    RETURNING p.id`;
  let settled = 0;
  for (const { id } of due) {
    let remote;
    try {
      remote = await gateway.getPayment(id);
    } catch {
      continue; // the gateway is slow or down: the lease brings this payment back later
    }
    const outcome = remote ? OUTCOME_OF_STATUS[remote.status] : 'failed';
    if (!outcome) continue;
    await settlePayment(sql, {
      paymentId: id,
      outcome,
      amountCents: remote?.amount,
      currency: remote?.currency,
      cause: remote ? `reconciler: gateway says ${remote.status}` : 'reconciler: unknown at the gateway',
    });
    settled++;
  }
  return { checked: due.length, settled };
}
