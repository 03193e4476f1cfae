/**
 * One payable session per hold. The buyer's Idempotency-Key makes a retry of one checkout
 * safe, but two checkouts of one hold under two keys (two tabs, a double click that minted a
 * new key, a client that lost its key) would each open a gateway session, and both could be
 * paid: the second is refunded by the settlement, yet the buyer is charged twice meanwhile.
 *
 * So a checkout first looks for a pending session of the hold and answers with it. Two
 * checkouts racing before either has written its session are serialised by a short lease on
 * the hold, kept in the idempotency table under a hold-scoped owner (`hold:<id>`): the loser
 * is told to retry (409, Retry-After) and then finds the winner's session. The winner writes
 * its payment row before it drops the lease, and the loser looks again after taking the lease,
 * so no order of the two leaves two sessions.
 */
import type { Sql } from 'postgres';
import { AppError } from '../../../lib/errors';
import { ownerGoneCondition } from './claim-owner';

/** What checkout answers, whether it opened the session or found it pending. */
export interface CheckoutSession {
  paymentId: string;
  checkoutUrl: string;
  expiresAt: string;
  amountCents: number;
  currency: string;
  holdId: string;
}

/**
 * Longer than one checkout can take (gateway timeout 5 s), so a live winner never loses its
 * lease; a winner that died mid-call (the process was killed) blocks the hold only this long,
 * or only until the next checkout of the hold when its process is known to be gone (`owner`,
 * claim-owner.ts).
 */
const LEASE = '10 seconds';
const LEASE_KEY = 'checkout-session';

/** The hold's session that can still be paid (the gateway's expiry, as the core recorded it). */
export async function findPendingSession(sql: Sql, holdId: string): Promise<CheckoutSession | null> {
  const [row] = await sql<
    { id: string; checkout_url: string; expires_at: Date; amount_cents: number; currency: string }[]
  >`
    SELECT id, checkout_url, expires_at, amount_cents, currency FROM payment
     WHERE hold_id = ${holdId}::uuid AND status = 'PENDING' AND expires_at > now()
     ORDER BY created_at LIMIT 1`;
  if (!row) return null;
  return {
    paymentId: row.id,
    checkoutUrl: row.checkout_url,
    expiresAt: row.expires_at.toISOString(),
    amountCents: row.amount_cents,
    currency: row.currency,
    holdId,
  };
}

async function takeLease(sql: Sql, holdId: string, owner: number | null): Promise<boolean> {
  const rows = await sql`
    INSERT INTO idempotency_key (customer_id, key, request_hash, state, locked_until, owner_instance)
    VALUES (${`hold:${holdId}`}, ${LEASE_KEY}, 'lease', 'IN_FLIGHT', now() + ${LEASE}::interval, ${owner})
    ON CONFLICT (customer_id, key) DO UPDATE
       SET locked_until = EXCLUDED.locked_until, owner_instance = EXCLUDED.owner_instance, created_at = now()
     WHERE idempotency_key.locked_until <= now() OR ${ownerGoneCondition(sql, 'idempotency_key', owner)}
    RETURNING 1`;
  return rows.length === 1;
}

async function dropLease(sql: Sql, holdId: string): Promise<void> {
  await sql`DELETE FROM idempotency_key WHERE customer_id = ${`hold:${holdId}`} AND key = ${LEASE_KEY}`;
}

const checkoutInProgress = () =>
  new AppError(
    'IDEMPOTENCY_KEY_IN_FLIGHT',
    'A checkout of this hold is being set up; retry to get its payment session',
    { retryAfterSeconds: 1 },
  );

/**
 * A guard around opening a session: `open` runs only when the hold has no pending session and
 * no other checkout of it is opening one. `existing` marks an answer that reused a session.
 */
export type SessionGuard = (
  sql: Sql,
  holdId: string,
  open: () => Promise<CheckoutSession>,
  owner?: number | null,
) => Promise<CheckoutSession & { existing?: boolean }>;

export const oneSessionPerHold: SessionGuard = async (sql, holdId, open, owner = null) => {
  const pending = await findPendingSession(sql, holdId);
  if (pending) return { ...pending, existing: true };
  if (!(await takeLease(sql, holdId, owner))) throw checkoutInProgress();
  try {
    // A winner that finished between our look and our lease left its session behind.
    const written = await findPendingSession(sql, holdId);
    if (written) return { ...written, existing: true };
    return await open();
  } finally {
    await dropLease(sql, holdId).catch(() => {});
  }
};
