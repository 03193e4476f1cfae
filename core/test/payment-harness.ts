import { randomUUID } from 'node:crypto';
import type { Sql } from 'postgres';
import { signWebhook } from '../../lib/webhook-signature';
import { startPaymentSandbox, type RunningPaymentSandbox } from '../../payment-sandbox/src/start';
import { createGatewayClient } from '../src/payments/gateway-client';
import { insertPayment } from '../src/payments/payment-repo';
import { createCoreHarness, TEST_WEBHOOK_SECRET, type CoreHarness } from './core-harness';

export const SANDBOX_API_KEY = 'sk_test_harness';

/**
 * The core in process wired to a real payment sandbox on a loopback port: the core calls the
 * sandbox's API over HTTP, and the sandbox's webhooks are delivered into the core app
 * (`app.request`), signed with the shared secret, with fast retries.
 */
export async function createPaymentHarness(sql: Sql) {
  let core: CoreHarness | null = null;
  const sandbox: RunningPaymentSandbox = await startPaymentSandbox({
    port: 0,
    config: {
      apiKey: SANDBOX_API_KEY,
      webhookUrl: 'http://core.internal/payments/callback',
      webhookSecrets: [TEST_WEBHOOK_SECRET],
      expirySweepIntervalMs: 100,
      webhook: { baseDelayMs: 5, maxDelayMs: 50, maxAttempts: 30, timeoutMs: 10_000 },
    },
    fetch: async (input, init) => core!.app.request(String(input), init as RequestInit),
  });
  const gateway = createGatewayClient({ baseUrl: sandbox.url, apiKey: SANDBOX_API_KEY });
  core = await createCoreHarness(sql, { gateway });

  async function sandboxApi(method: string, path: string, body?: unknown) {
    const response = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${SANDBOX_API_KEY}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: (await response.json().catch(() => null)) as any };
  }

  /** A buyer's checkout of a hold through the core. */
  async function checkout(showtimeId: number, customerId: string, holdId: string, key = randomUUID(), body?: unknown) {
    return core!.call('POST', `/holds/${holdId}/checkout`, {
      token: await core!.tokenFor(customerId, showtimeId),
      headers: { 'idempotency-key': key },
      body,
    });
  }

  /** A payment row as checkout would have written it, without asking the gateway (for crafted callbacks). */
  async function fakePayment(args: { holdId: string; showtimeId: number; customerId: string; amountCents?: number }) {
    const id = `pay_fake_${randomUUID().replaceAll('-', '')}`;
    await insertPayment(sql, {
      id,
      hold_id: args.holdId,
      showtime_id: args.showtimeId,
      customer_id: args.customerId,
      amount_cents: args.amountCents ?? 1000,
      currency: 'EUR',
      checkout_url: 'http://pay.test',
      expires_at: new Date(Date.now() + 60_000),
    });
    return id;
  }

  /** A webhook exactly as the gateway sends it, signed now (or at `signedAtSeconds`). */
  function signedCallback(
    event: { type: string; paymentId: string; amount?: number; currency?: string; eventId?: string },
    options: { signedAtSeconds?: number; secrets?: string[] } = {},
  ) {
    const body = JSON.stringify({
      id: event.eventId ?? `evt_${randomUUID().replaceAll('-', '')}`,
      type: event.type,
      created: Math.floor(Date.now() / 1000),
      data: {
        paymentId: event.paymentId,
        amount: event.amount ?? 1000,
        currency: event.currency ?? 'EUR',
        reference: 'r',
      },
    });
    const signature = signWebhook(
      body,
      options.secrets ?? [TEST_WEBHOOK_SECRET],
      options.signedAtSeconds ?? Math.floor(Date.now() / 1000),
    );
    return { body, signature };
  }

  async function postCallback(callback: { body: string; signature: string }) {
    return core!.call('POST', '/payments/callback', {
      rawBody: callback.body,
      headers: { 'content-type': 'application/json', 'x-signature': callback.signature },
    });
  }

  async function paymentState(paymentId: string) {
    const [row] = await sql<{ payment: string; booking: string | null; refund: string | null }[]>`
      SELECT p.status AS payment,
             (SELECT string_agg(b.status, ',') FROM booking b WHERE b.payment_id = p.id) AS booking,
             (SELECT r.state FROM refund_command r WHERE r.payment_id = p.id) AS refund
        FROM payment p WHERE p.id = ${paymentId}`;
    return row ?? null;
  }

  async function outboxTypes(showtimeId: number) {
    return (await sql<{ type: string }[]>`SELECT type FROM outbox WHERE showtime_id = ${showtimeId} ORDER BY id`).map(
      (r) => r.type,
    );
  }

  return {
    core,
    sandbox,
    gateway,
    sandboxApi,
    checkout,
    fakePayment,
    signedCallback,
    postCallback,
    paymentState,
    outboxTypes,
    close: () => sandbox.close(),
  };
}

export type PaymentHarness = Awaited<ReturnType<typeof createPaymentHarness>>;
