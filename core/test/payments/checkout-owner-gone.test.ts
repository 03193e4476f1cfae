import { randomUUID } from 'node:crypto';
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedDatabase } from '../../../test/support/env';
import { holdClaimOwner, type ClaimOwner } from '../../src/checkout/claim-owner';
import { connectDatabase } from '../../src/db/connect';
import type { GatewayPayment, PaymentGateway } from '../../src/payments/gateway-client';
import { createCoreHarness, unique, type CoreHarness } from '../core-harness';
import { createPaymentHarness, type PaymentHarness } from '../payment-harness';

/**
 * A core killed mid-checkout (after the gateway opened the session, before the payment insert)
 * leaves two claims IN_FLIGHT: the buyer's Idempotency-Key and the hold's checkout lease. Each
 * core holds an advisory lock of life and records its number on its claims; when that lock is
 * free the process is gone, and the buyer's retry, answered by another core (or the same one
 * restarted), takes both claims over at once and adopts the one gateway session, instead of
 * hearing "in flight" until the 10 s leases lapse (the buyer's retries ran out first).
 *
 * Two cores on one database: A, whose gateway call never returns (the process "dies" there),
 * and B, which answers the retry. A's death is its lock connection closing, as a killed
 * process's connections close. Controls: with A's lock still held, or with claims taken by a
 * core without an instance lock, the retry is told to come back (409), as before.
 */
let sql: Sql;
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let payments: PaymentHarness;
const sessions: GatewayPayment[] = [];
const owners: ClaimOwner[] = [];

beforeAll(async () => {
  database = await isolatedDatabase('ownergone');
  sql = connectDatabase(database.url, { max: 8, applicationName: 'test-owner-gone' });
  payments = await createPaymentHarness(sql);
});
afterAll(async () => {
  for (const owner of owners) await owner.close().catch(() => {});
  await payments.close();
  await sql.end({ timeout: 1 });
  await database.drop();
});

/** A gateway that opens the session and then never answers (the process dies right there). */
const dyingGateway = (): PaymentGateway => ({
  ...payments.gateway,
  async createPayment(input) {
    sessions.push(await payments.gateway.createPayment(input));
    return new Promise<never>(() => {});
  },
});

async function startOwner() {
  const owner = await holdClaimOwner(database.url, { keepEveryMs: 200 });
  owners.push(owner);
  return owner;
}

/** Core A claims a checkout and dies inside it; returns what the retry needs. */
async function checkoutCutShort(a: CoreHarness) {
  const { showtimeId } = await a.createShowtime({ priceCents: 800 });
  const customerId = unique('gone');
  const hold = await a.hold(showtimeId, customerId, ['C4']);
  expect(hold.status).toBe(201);
  const holdId = hold.json.holdId as string;
  const token = await a.tokenFor(customerId, showtimeId);
  const key = randomUUID();
  sessions.length = 0;
  void a.call('POST', `/holds/${holdId}/checkout`, { token, headers: { 'idempotency-key': key } });
  for (let i = 0; i < 200 && sessions.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(sessions).toHaveLength(1);
  expect(await sql`SELECT 1 FROM payment WHERE hold_id = ${holdId}::uuid`).toHaveLength(0);
  const claims = await sql<{ owner_instance: number | null }[]>`
    SELECT owner_instance FROM idempotency_key WHERE key = ${key} OR customer_id = ${`hold:${holdId}`}`;
  return { holdId, token, key, claims };
}

/** Core A (dies inside the gateway call; with an instance lock, or none) and core B (answers the retry). */
async function twoCores(a: { withOwner: boolean }) {
  const ownerA = a.withOwner ? await startOwner() : null;
  const ownerB = await startOwner();
  return {
    ownerA,
    a: await createCoreHarness(sql, { gateway: dyingGateway(), claimOwner: ownerA?.id ?? null }),
    b: await createCoreHarness(sql, { gateway: payments.gateway, claimOwner: ownerB.id }),
  };
}

const retryThrough = (b: CoreHarness, cut: { holdId: string; token: string; key: string }) =>
  b.call('POST', `/holds/${cut.holdId}/checkout`, { token: cut.token, headers: { 'idempotency-key': cut.key } });

describe('a checkout whose core died mid-call', () => {
  it('is taken over at once by the retry once its core is gone, adopting the one session', async () => {
    const { a, b, ownerA } = await twoCores({ withOwner: true });
    const cut = await checkoutCutShort(a);
    expect(cut.claims.map((claim) => claim.owner_instance)).toEqual([ownerA!.id, ownerA!.id]);

    await ownerA!.close(); // the process is killed: its connections close, its lock goes
    const retried = await retryThrough(b, cut);
    expect(retried.status, JSON.stringify(retried.json)).toBe(201);
    expect(retried.json.paymentId).toBe(sessions[0]!.id);
    expect(sessions).toHaveLength(1);
    expect(await sql`SELECT 1 FROM payment WHERE hold_id = ${cut.holdId}::uuid`).toHaveLength(1);
  });

  it('control: while its core lives, the retry is told to come back (the lease holds)', async () => {
    const { a, b } = await twoCores({ withOwner: true });
    const cut = await checkoutCutShort(a);
    const retried = await retryThrough(b, cut);
    expect(retried.status).toBe(409);
    expect(retried.json.error.code).toBe('IDEMPOTENCY_KEY_IN_FLIGHT');
  });

  it('broken variant: claims with no owner recorded wait out their lease, dead core or not', async () => {
    const { a, b } = await twoCores({ withOwner: false });
    const cut = await checkoutCutShort(a);
    expect(cut.claims.map((claim) => claim.owner_instance)).toEqual([null, null]);
    const retried = await retryThrough(b, cut);
    expect(retried.status).toBe(409);
  });
});

describe('the instance lock', () => {
  it('is taken again after its connection is lost (PostgreSQL restarted, a proxy dropped it)', async () => {
    const owner = await startOwner();
    const held = () =>
      sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_locks
         WHERE locktype = 'advisory' AND granted AND objid = ${owner.id}::int::oid AND objsubid = 2`;
    expect((await held())[0]!.n).toBe(1);
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
               WHERE application_name = 'core-instance' AND datname = current_database()
                 AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = ${owner.id}::int::oid)`;
    let n = 0;
    for (let i = 0; i < 50 && n !== 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      n = (await held())[0]!.n;
    }
    expect(n).toBe(1);
  });
});
