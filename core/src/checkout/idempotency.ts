import { createHash } from 'node:crypto';
import type { Sql } from 'postgres';
import { AppError, errorResponseBody, isAppError, unprocessable } from '../../../lib/errors';
import { ownerGoneCondition } from './claim-owner';

export interface StoredResponse {
  status: number;
  body: string;
  replayed: boolean;
}

/**
 * Answers meant to be retried are never stored: the next attempt must run for real. Nor are
 * refusals about a hold that is not there or not the caller's (404, 403): nothing happened to
 * replay, and storing them would let anyone fill the table for 24 hours with random hold ids.
 */
const NOT_STORED = new Set([403, 404, 409, 429, 503]);
/**
 * How long a request's claim on its key lasts before a retry may take it over (its process
 * died). Longer than a checkout can run (gateway timeout 5 s, lock timeout 2 s); short enough
 * that a buyer whose checkout crashed is not told "in flight" for long. Taking over a claim
 * whose owner is in fact still running is safe for checkout: both send the gateway the same
 * request (it answers both with one session) and the payment insert is ON CONFLICT DO NOTHING.
 */
const IN_FLIGHT_LEASE = '10 seconds';

/** Same key + same body means the same JSON, whatever the key order or spacing. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${stableStringify(body)}`)
    .digest('hex');
}

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableStringify((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Runs `work` at most once per (customer, key) (pretix and Stripe semantics):
 * same key + same request → the stored response, byte for byte; same key + another request →
 * 422; same key while the first is still running → 409 with Retry-After. An IN_FLIGHT record
 * whose lease lapsed, or whose process is gone (`owner`: this process's instance number, see
 * claim-owner.ts), or a record past its 24 hours can be taken over.
 */
export async function runIdempotently(
  sql: Sql,
  scope: { customerId: string; key: string; fingerprint: string },
  work: () => Promise<{ status: number; body: string }>,
  owner: number | null = null,
): Promise<StoredResponse> {
  const claimed = await sql`
    INSERT INTO idempotency_key (customer_id, key, request_hash, state, locked_until, owner_instance)
    VALUES (${scope.customerId}, ${scope.key}, ${scope.fingerprint}, 'IN_FLIGHT', now() + ${IN_FLIGHT_LEASE}::interval, ${owner})
    ON CONFLICT (customer_id, key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, state = 'IN_FLIGHT', locked_until = EXCLUDED.locked_until,
           owner_instance = EXCLUDED.owner_instance,
           response_status = NULL, response_body = NULL, created_at = now(), expires_at = now() + interval '24 hours'
     WHERE idempotency_key.expires_at <= now()
        OR (idempotency_key.state = 'IN_FLIGHT' AND idempotency_key.request_hash = EXCLUDED.request_hash
            AND (idempotency_key.locked_until <= now() OR ${ownerGoneCondition(sql, 'idempotency_key', owner)}))
    RETURNING 1`;
  if (claimed.length === 0) return existing(sql, scope);

  let outcome: { status: number; body: string };
  try {
    outcome = await work();
  } catch (error) {
    if (!isAppError(error) || NOT_STORED.has(error.status) || error.status >= 500) {
      await release(sql, scope);
      throw error;
    }
    outcome = { status: error.status, body: JSON.stringify(errorResponseBody(error)) };
  }
  if (NOT_STORED.has(outcome.status)) {
    await release(sql, scope);
  } else {
    await sql`
      UPDATE idempotency_key SET state = 'DONE', locked_until = NULL, response_status = ${outcome.status}, response_body = ${outcome.body}
       WHERE customer_id = ${scope.customerId} AND key = ${scope.key}`;
  }
  return { ...outcome, replayed: false };
}

async function existing(
  sql: Sql,
  scope: { customerId: string; key: string; fingerprint: string },
): Promise<StoredResponse> {
  const [row] = await sql<
    { request_hash: string; state: string; response_status: number | null; response_body: string | null }[]
  >`
    SELECT request_hash, state, response_status, response_body FROM idempotency_key
     WHERE customer_id = ${scope.customerId} AND key = ${scope.key}`;
  if (!row)
    throw new AppError('IDEMPOTENCY_KEY_IN_FLIGHT', 'A request with this Idempotency-Key just finished; retry', {
      retryAfterSeconds: 1,
    });
  if (row.request_hash !== scope.fingerprint) {
    throw unprocessable('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for a different request');
  }
  if (row.state === 'IN_FLIGHT') {
    throw new AppError('IDEMPOTENCY_KEY_IN_FLIGHT', 'A request with this Idempotency-Key is still being processed', {
      retryAfterSeconds: 1,
    });
  }
  return { status: row.response_status!, body: row.response_body!, replayed: true };
}

async function release(sql: Sql, scope: { customerId: string; key: string }) {
  await sql`DELETE FROM idempotency_key WHERE customer_id = ${scope.customerId} AND key = ${scope.key} AND state = 'IN_FLIGHT'`;
}
