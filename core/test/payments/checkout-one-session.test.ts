import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { isolatedDatabase } from '../../../test/support/env';
import { createCheckoutService } from '../../src/checkout/checkout-service';
import type { SessionGuard } from '../../src/checkout/one-session-per-hold';
import { connectDatabase } from '../../src/db/connect';
import { createCoreMetrics } from '../../src/metrics';
import { createHoldService } from '../../src/seats/hold-service';
import { TEST_PUBLIC_URL, unique } from '../core-harness';
import { createPaymentHarness, type PaymentHarness } from '../payment-harness';

/**
 * Two checkouts of one hold with two Idempotency-Keys, released together, many rounds, on real
 * PostgreSQL against the real sandbox: the gateway must see one session per hold, and every
 * answer that carries a session must name that one. The same race through a checkout without
 * the guard (it opens whatever it is asked to) must produce two sessions, or the test proves
 * nothing.
 */
let sql: Sql;
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let payments: PaymentHarness;
const ROUNDS = 25;

beforeAll(async () => {
  database = await isolatedDatabase('onesession');
  sql = connectDatabase(database.url, { max: 8, applicationName: 'test-one-session' });
  payments = await createPaymentHarness(sql);
});
afterAll(async () => {
  await payments.close();
  await sql.end({ timeout: 1 });
  await database.drop();
});

const passThrough: SessionGuard = (_sql, _holdId, open) => open();

function checkoutService(sessionGuard?: SessionGuard) {
  const holds = createHoldService({ sql, metrics: createCoreMetrics() });
  return createCheckoutService({
    sql,
    holds,
    gateway: payments.gateway,
    config: { publicBaseUrl: TEST_PUBLIC_URL },
    ...(sessionGuard ? { sessionGuard } : {}),
  });
}

/** Each round: a fresh hold, two checkouts under two keys at once; the gateway's sessions for it. */
async function race(service: ReturnType<typeof checkoutService>) {
  const { showtimeId } = await payments.core.createShowtime({ priceCents: 700 });
  const perHold: { sessions: number; answered: Set<string>; refused: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const customerId = unique('twokeys');
    const seat = `${'ABCDEFGHIJ'[Math.floor(round / 15)]}${(round % 15) + 1}`;
    const hold = await payments.core.hold(showtimeId, customerId, [seat]);
    expect(hold.status, JSON.stringify(hold.json)).toBe(201);
    const holdId = hold.json.holdId as string;
    const access = { customerId, showtimeId, sessionId: `s-${customerId}`, expiresAtMs: Date.now() + 600_000 };
    const answers = await Promise.allSettled(
      [0, 1].map(() => service.checkout({ holdId, access, idempotencyKey: randomUUID() })),
    );
    const atGateway = await payments.sandboxApi('GET', `/v1/payments?reference=${holdId}`);
    perHold.push({
      sessions: (atGateway.json.data as unknown[]).length,
      answered: new Set(answers.flatMap((a) => (a.status === 'fulfilled' ? [a.value.paymentId] : []))),
      refused: answers.filter((a) => a.status === 'rejected' && (a.reason as { status?: number }).status === 409)
        .length,
    });
  }
  return perHold;
}

it('two keys, one hold, released together: one gateway session, and every answer names it', async () => {
  const rounds = await race(checkoutService());
  expect(rounds.filter((r) => r.sessions !== 1)).toEqual([]);
  expect(rounds.filter((r) => r.answered.size !== 1)).toEqual([]);
  // A loser either got the winner's session or was told to retry (409); nobody got nothing.
  expect(rounds.every((r) => r.refused <= 1)).toBe(true);
});

it('a retry of the refused checkout answers with the pending session (200), not a new one', async () => {
  const service = checkoutService();
  const { showtimeId } = await payments.core.createShowtime({ priceCents: 700 });
  const customerId = unique('retry');
  const hold = await payments.core.hold(showtimeId, customerId, ['C3']);
  const holdId = hold.json.holdId as string;
  const first = await payments.checkout(showtimeId, customerId, holdId);
  expect(first.status).toBe(201);
  const second = await payments.checkout(showtimeId, customerId, holdId, randomUUID());
  expect(second.status).toBe(200);
  expect(second.json.paymentId).toBe(first.json.paymentId);
  expect(second.json.checkoutUrl).toBe(first.json.checkoutUrl);
  expect((await payments.sandboxApi('GET', `/v1/payments?reference=${holdId}`)).json.data).toHaveLength(1);
  // Once that session is declined, a new checkout may open another.
  await payments.sandboxApi('POST', `/v1/payments/${first.json.paymentId}/decline`);
  await expect.poll(async () => (await payments.paymentState(first.json.paymentId))?.payment).toBe('FAILED');
  const third = await service.checkout({
    holdId,
    access: { customerId, showtimeId, sessionId: 's', expiresAtMs: Date.now() + 60_000 },
    idempotencyKey: randomUUID(),
  });
  expect(third.paymentId).not.toBe(first.json.paymentId);
});

it('negative control: the same race without the guard opens two sessions for a hold', async () => {
  const rounds = await race(checkoutService(passThrough));
  expect(rounds.filter((r) => r.sessions === 2).length).toBeGreaterThan(ROUNDS / 2);
});
