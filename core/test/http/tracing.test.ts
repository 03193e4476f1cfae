/**
 * W3C trace propagation through the core, on the real PostgreSQL and the real payment sandbox:
 * a checkout carrying a traceparent calls the gateway inside the same trace, with the core's own
 * span as the parent, and the core's request log names the trace, its span and the caller's.
 */
import { Writable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import pino from 'pino';
import type { Sql } from 'postgres';
import { testDatabaseUrl } from '../../../test/support/env';
import { startPaymentSandbox, type RunningPaymentSandbox } from '../../../payment-sandbox/src/start';
import { connectDatabase } from '../../src/db/connect';
import { createGatewayClient } from '../../src/payments/gateway-client';
import { paymentCallbackRoutes } from '../../src/payments/callback-routes';
import { requestContext, type RequestContextVariables } from '../../src/http/request-context';
import { createCoreMetrics } from '../../src/metrics';
import { createCoreHarness, TEST_WEBHOOK_SECRET, unique, type CoreHarness } from '../core-harness';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const EDGE_SPAN = 'b7ad6b7169203331';

let sql: Sql;
let sandbox: RunningPaymentSandbox;
let core: CoreHarness;
const gatewayCalls: { path: string; traceparent: string | null }[] = [];

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 4, applicationName: 'test-tracing' });
  sandbox = await startPaymentSandbox({
    port: 0,
    config: {
      apiKey: 'sk_test_trace',
      webhookUrl: 'http://core.internal/payments/callback',
      webhookSecrets: [TEST_WEBHOOK_SECRET],
    },
    // Webhooks are not part of this test: they go nowhere.
    fetch: async () => new Response(null, { status: 200 }),
  });
  const gateway = createGatewayClient({
    baseUrl: sandbox.url,
    apiKey: 'sk_test_trace',
    fetch: async (input, init) => {
      gatewayCalls.push({
        path: new URL(String(input)).pathname,
        traceparent: new Headers(init?.headers).get('traceparent'),
      });
      return fetch(input, init);
    },
  });
  core = await createCoreHarness(sql, { gateway });
});
afterAll(async () => {
  await sandbox?.close();
  await sql?.end();
});

describe('trace propagation in the core', () => {
  it("a checkout with a traceparent calls the gateway in the same trace, under the core's span", async () => {
    const { showtimeId } = await core.createShowtime();
    const customer = unique('trace');
    const hold = await core.hold(showtimeId, customer, ['A1']);
    expect(hold.status).toBe(201);
    const checkout = await core.call('POST', `/holds/${hold.json.holdId}/checkout`, {
      token: await core.tokenFor(customer, showtimeId),
      headers: { 'idempotency-key': randomUUID(), traceparent: `00-${TRACE}-${EDGE_SPAN}-01` },
    });
    expect(checkout.status, checkout.text).toBe(201);
    const call = gatewayCalls.find((c) => c.path === '/v1/payments');
    expect(call?.traceparent).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
    // The core's own span, not the edge's passed through.
    expect(call!.traceparent).not.toContain(EDGE_SPAN);
  });

  it('gateway calls outside any request (background jobs) carry no trace', async () => {
    const before = gatewayCalls.length;
    await createGatewayClient({
      baseUrl: sandbox.url,
      apiKey: 'sk_test_trace',
      fetch: async (input, init) => {
        gatewayCalls.push({
          path: new URL(String(input)).pathname,
          traceparent: new Headers(init?.headers).get('traceparent'),
        });
        return fetch(input, init);
      },
    }).getPayment('pay_unknown');
    expect(gatewayCalls.slice(before)).toEqual([{ path: '/v1/payments/pay_unknown', traceparent: null }]);
  });

  it("logs the trace id, its own span and the caller's span with the request", async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const app = new Hono<{ Variables: RequestContextVariables }>();
    app.use('*', requestContext({ logger: pino({ level: 'debug' }, sink), metrics: createCoreMetrics() }));
    app.get('/probe', (c) => c.json({ inside: c.get('trace') }));
    const response = await app.request('/probe', { headers: { traceparent: `00-${TRACE}-${EDGE_SPAN}-01` } });
    const { inside } = (await response.json()) as { inside: { traceId: string; spanId: string } };
    expect(inside.traceId).toBe(TRACE);
    expect(lines.at(-1)).toMatchObject({
      trace_id: TRACE,
      span_id: inside.spanId,
      parent_span_id: EDGE_SPAN,
      path: '/probe',
    });
  });
});

describe("the gateway's webhook carries the checkout's trace back to the core", () => {
  it("the sandbox sends the payment's events with a traceparent of the checkout's trace, and the core logs its handling in it", async () => {
    // The core's webhook route with a logger we can read, behind the request-context middleware
    // as in the app; the checkout goes through a full core app that calls this sandbox.
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const callbackApp = new Hono();
    callbackApp.use('*', requestContext({ logger: pino({ level: 'info' }, sink), metrics: createCoreMetrics() }));
    callbackApp.route('/', paymentCallbackRoutes({ sql, webhookSecrets: [TEST_WEBHOOK_SECRET] }));
    const webhooks: { type: string; traceparent: string | null; status: number }[] = [];
    const gatewaySide = await startPaymentSandbox({
      port: 0,
      config: {
        apiKey: 'sk_test_trace_back',
        webhookUrl: 'http://core.internal/payments/callback',
        webhookSecrets: [TEST_WEBHOOK_SECRET],
        webhook: { baseDelayMs: 5, maxDelayMs: 50, maxAttempts: 5, timeoutMs: 10_000 },
      },
      fetch: async (input, init) => {
        const response = await callbackApp.request(String(input), init as RequestInit);
        webhooks.push({
          type: JSON.parse(String(init?.body)).type,
          traceparent: new Headers(init?.headers).get('traceparent'),
          status: response.status,
        });
        return response;
      },
    });
    try {
      const sent: string[] = [];
      const buyerCore = await createCoreHarness(sql, {
        gateway: createGatewayClient({
          baseUrl: gatewaySide.url,
          apiKey: 'sk_test_trace_back',
          fetch: async (input, init) => {
            const header = new Headers(init?.headers).get('traceparent');
            if (header) sent.push(header);
            return fetch(input, init);
          },
        }),
      });
      const { showtimeId } = await buyerCore.createShowtime();
      const customer = unique('trace-back');
      const hold = await buyerCore.hold(showtimeId, customer, ['A2']);
      const checkout = await buyerCore.call('POST', `/holds/${hold.json.holdId}/checkout`, {
        token: await buyerCore.tokenFor(customer, showtimeId),
        headers: { 'idempotency-key': randomUUID(), traceparent: `00-${TRACE}-${EDGE_SPAN}-01` },
      });
      expect(checkout.status, checkout.text).toBe(201);
      const coreCheckoutSpan = sent[0]!.split('-')[2]!;
      const approved = await fetch(`${gatewaySide.url}/v1/payments/${checkout.json.paymentId}/approve`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk_test_trace_back' },
      });
      expect(approved.status).toBe(200);
      const deadline = Date.now() + 10_000;
      while (!lines.some((line) => line.msg === 'payment event settled') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));

      // The webhook: same trace, the sandbox's own span (neither the edge's nor the core's).
      expect(webhooks).toEqual([
        {
          type: 'payment.succeeded',
          traceparent: expect.stringMatching(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`)),
          status: 200,
        },
      ]);
      const sandboxSpan = webhooks[0]!.traceparent!.split('-')[2]!;
      expect([EDGE_SPAN, coreCheckoutSpan]).not.toContain(sandboxSpan);
      // The core continues it: its log line for the event names the trace and the sandbox's span as parent.
      const settled = lines.find((line) => line.msg === 'payment event settled');
      expect(settled).toMatchObject({
        trace_id: TRACE,
        parent_span_id: sandboxSpan,
        paymentId: checkout.json.paymentId,
        outcome: 'booked',
      });
      expect(settled!.span_id).toMatch(/^[0-9a-f]{16}$/);
      expect([sandboxSpan, coreCheckoutSpan]).not.toContain(settled!.span_id);
    } finally {
      await gatewaySide.close();
    }
  });

  it('a payment created without a traceparent sends its webhooks without one (the core starts a trace of its own)', async () => {
    const webhooks: (string | null)[] = [];
    const gatewaySide = await startPaymentSandbox({
      port: 0,
      config: {
        apiKey: 'sk_test_no_trace',
        webhookUrl: 'http://core.internal/payments/callback',
        webhookSecrets: [TEST_WEBHOOK_SECRET],
      },
      fetch: async (_input, init) => {
        webhooks.push(new Headers(init?.headers).get('traceparent'));
        return new Response(null, { status: 200 });
      },
    });
    try {
      const created = await fetch(`${gatewaySide.url}/v1/payments`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer sk_test_no_trace',
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
          traceparent: 'not-a-trace',
        },
        body: JSON.stringify({
          amount: 1000,
          currency: 'EUR',
          reference: 'r',
          returnUrl: 'http://buyers.test/x',
          expiresAt: new Date(Date.now() + 60_000).toISOString(),
        }),
      });
      expect(created.status, await created.clone().text()).toBe(201);
      const { id } = (await created.json()) as { id: string };
      await fetch(`${gatewaySide.url}/v1/payments/${id}/decline`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk_test_no_trace' },
      });
      const deadline = Date.now() + 5_000;
      while (webhooks.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(webhooks).toEqual([null]);
    } finally {
      await gatewaySide.close();
    }
  });
});
