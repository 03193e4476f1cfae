import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { randomUUID } from 'node:crypto';
import { isolatedDatabase } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import type { GatewayPayment, PaymentGateway } from '../../src/payments/gateway-client';
import { createCoreHarness, unique, type CoreHarness } from '../core-harness';
import { createPaymentHarness, type PaymentHarness } from '../payment-harness';

/**
 * Checkout is retry-safe across a crash at any point between the gateway and our database:
 * the gateway request is a pure function of the hold and the buyer's key, so the retry gets
 * the session the first attempt opened (one session, adopted), never a refusal for a changed
 * body (which used to leave the buyer on 502 until the hold lapsed).
 */
let sql: Sql;
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let payments: PaymentHarness;
let core: CoreHarness;
/** Sessions the real gateway (the sandbox) handed out, and a switch that makes the core "die" right after. */
const sessions: GatewayPayment[] = [];
let dieAfterGateway = false;

beforeAll(async () => {
  database = await isolatedDatabase('checkoutcrash');
  sql = connectDatabase(database.url, { max: 8, applicationName: 'test-checkout-crash' });
  payments = await createPaymentHarness(sql);
  const recording: PaymentGateway = {
    ...payments.gateway,
    async createPayment(input) {
      const session = await payments.gateway.createPayment(input);
      sessions.push(session);
      // The process dies here: the gateway has opened the session, our insert never runs and
      // the request never answers. Its idempotency claim stays IN_FLIGHT until the lease lapses.
      if (dieAfterGateway) return new Promise<never>(() => {});
      return session;
    },
  };
  core = await createCoreHarness(sql, { gateway: recording });
});
afterAll(async () => {
  await payments.close();
  await sql.end({ timeout: 1 });
  await database.drop();
});

async function liveHold() {
  const { showtimeId } = await core.createShowtime({ priceCents: 900 });
  const customerId = unique('crash');
  const hold = await core.hold(showtimeId, customerId, ['B2', 'B3']);
  expect(hold.status).toBe(201);
  return {
    showtimeId,
    customerId,
    holdId: hold.json.holdId as string,
    token: await core.tokenFor(customerId, showtimeId),
  };
}

const checkout = (holdId: string, token: string, key: string) =>
  core.call('POST', `/holds/${holdId}/checkout`, { token, headers: { 'idempotency-key': key } });

it('a core that dies between the gateway call and the insert: the retry adopts the one session', async () => {
  const { holdId, token } = await liveHold();
  const key = randomUUID();
  sessions.length = 0;
  dieAfterGateway = true;
  void checkout(holdId, token, key); // never answers
  for (let i = 0; i < 100 && sessions.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  dieAfterGateway = false;
  expect(sessions).toHaveLength(1);
  expect(await sql`SELECT 1 FROM payment WHERE hold_id = ${holdId}::uuid`).toHaveLength(0);

  // While the dead request's claim lasts, a retry is told to come back (not stored).
  const early = await checkout(holdId, token, key);
  expect(early.status).toBe(409);
  expect(early.headers.get('retry-after')).toBeTruthy();
  // The claim's lease and the hold's checkout lease lapse (10 s in real time; moved here instead of waiting).
  await sql`UPDATE idempotency_key SET locked_until = now() WHERE key = ${key} OR customer_id = ${`hold:${holdId}`}`;
  const retried = await checkout(holdId, token, key);
  expect(retried.status, JSON.stringify(retried.json)).toBe(201);
  expect(retried.json.paymentId).toBe(sessions[0]!.id);
  expect(new Set(sessions.map((s) => s.id)).size).toBe(1);
  const rows = await sql<{ id: string }[]>`SELECT id FROM payment WHERE hold_id = ${holdId}::uuid`;
  expect(rows.map((r) => r.id)).toEqual([sessions[0]!.id]);
  // And the replay of the stored answer is the same session again.
  expect((await checkout(holdId, token, key)).json.paymentId).toBe(sessions[0]!.id);
});

it('an insert held past the lock timeout: 503 with Retry-After, then the retry succeeds with the same session', async () => {
  const { holdId, token } = await liveHold();
  const key = randomUUID();
  sessions.length = 0;
  // Something else holds the payment table longer than the 2 s lock timeout.
  let releaseLock!: () => void;
  const locked = new Promise<void>((resolve) => (releaseLock = resolve));
  let lockTaken!: () => void;
  const lockIsTaken = new Promise<void>((resolve) => (lockTaken = resolve));
  const blocker = sql.begin(async (tx) => {
    await tx`LOCK TABLE payment IN EXCLUSIVE MODE`;
    lockTaken();
    await locked;
  });
  await lockIsTaken;
  const first = await checkout(holdId, token, key);
  releaseLock();
  await blocker;
  expect(first.status, JSON.stringify(first.json)).toBe(503);
  expect(first.json.error.code).toBe('BUSY');
  expect(Number(first.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(sessions).toHaveLength(1);

  const retried = await checkout(holdId, token, key);
  expect(retried.status, JSON.stringify(retried.json)).toBe(201);
  expect(retried.json.paymentId).toBe(sessions[0]!.id);
  expect(new Set(sessions.map((s) => s.id)).size).toBe(1);
  expect(await sql`SELECT 1 FROM payment WHERE hold_id = ${holdId}::uuid`).toHaveLength(1);
});
