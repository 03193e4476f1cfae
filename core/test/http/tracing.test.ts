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
import { requestContext } from '../../src/http/request-context';
import { currentTrace } from '../../src/http/trace';
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
    config: { apiKey: 'sk_test_trace', webhookUrl: 'http://core.internal/payments/callback', webhookSecrets: [TEST_WEBHOOK_SECRET] },
    // Webhooks are not part of this test: they go nowhere.
    fetch: async () => new Response(null, { status: 200 }),
  });
  const gateway = createGatewayClient({
    baseUrl: sandbox.url,
    apiKey: 'sk_test_trace',
    fetch: async (input, init) => {
      gatewayCalls.push({ path: new URL(String(input)).pathname, traceparent: new Headers(init?.headers).get('traceparent') });
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
  it('a checkout with a traceparent calls the gateway in the same trace, under the core\'s span', async () => {
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
      baseUrl: sandbox.url, apiKey: 'sk_test_trace',
      fetch: async (input, init) => {
        gatewayCalls.push({ path: new URL(String(input)).pathname, traceparent: new Headers(init?.headers).get('traceparent') });
        return fetch(input, init);
      },
    }).getPayment('pay_unknown');
    expect(gatewayCalls.slice(before)).toEqual([{ path: '/v1/payments/pay_unknown', traceparent: null }]);
  });

  it('logs the trace id, its own span and the caller\'s span with the request', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({ write(chunk, _encoding, done) { lines.push(JSON.parse(String(chunk))); done(); } });
    const app = new Hono();
    app.use('*', requestContext({ logger: pino({ level: 'debug' }, sink), metrics: createCoreMetrics() }));
    app.get('/probe', (c) => c.json({ inside: currentTrace() }));
    const response = await app.request('/probe', { headers: { traceparent: `00-${TRACE}-${EDGE_SPAN}-01` } });
    const { inside } = (await response.json()) as { inside: { traceId: string; spanId: string } };
    expect(inside.traceId).toBe(TRACE);
    expect(lines.at(-1)).toMatchObject({ trace_id: TRACE, span_id: inside.spanId, parent_span_id: EDGE_SPAN, path: '/probe' });
  });
});
