import type { Sql } from 'postgres';
import type { PaymentGateway } from '../payments/gateway-client';
import { settlePayment } from '../payments/settlement';

/**
 * Refund worker: executes refund commands through the gateway's idempotent refund API (the key
 * is the payment id, so a retried or doubled command can never refund twice). A lease claimed
 * with SKIP LOCKED shares the work between instances; failures back off exponentially.
 */
export async function runRefundCommands(
  sql: Sql,
  gateway: PaymentGateway,
  options: { batchSize?: number; leaseMs?: number } = {},
) {
  const due = await sql<{ payment_id: string; reason: string; attempts: number; amount_cents: number | null }[]>`
    UPDATE refund_command r SET attempts = r.attempts + 1,
           next_attempt_at = now() + ${options.leaseMs ?? 30_000} * interval '1 millisecond'
     WHERE r.payment_id IN (
       SELECT payment_id FROM refund_command WHERE state = 'PENDING' AND next_attempt_at <= now()
        ORDER BY next_attempt_at LIMIT ${options.batchSize ?? 20} FOR UPDATE SKIP LOCKED)
    RETURNING r.payment_id, r.reason, r.attempts, r.amount_cents`;
  let refunded = 0;
  for (const command of due) {
    try {
      const refund = await gateway.refund(
        command.payment_id,
        `refund-${command.payment_id}`,
        command.reason.slice(0, 200),
        command.amount_cents,
      );
      await sql`UPDATE refund_command SET gateway_refund_id = ${refund.id} WHERE payment_id = ${command.payment_id}`;
      await settlePayment(sql, {
        paymentId: command.payment_id,
        outcome: 'refunded',
        cause: `refund ${refund.id} executed`,
      });
      refunded++;
    } catch (error) {
      const backoffMs = Math.min(3_600_000, 1000 * 2 ** Math.min(command.attempts, 12));
      await sql`
        UPDATE refund_command SET last_error = ${String((error as Error).message ?? error).slice(0, 500)},
               next_attempt_at = now() + ${backoffMs} * interval '1 millisecond'
         WHERE payment_id = ${command.payment_id} AND state = 'PENDING'`;
    }
  }
  return { attempted: due.length, refunded };
}
