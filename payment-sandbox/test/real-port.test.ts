import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../lib/webhook-signature';
import { startPaymentSandbox, type RunningPaymentSandbox } from '../src/start';

// Over real sockets: the sandbox on a free port, and a merchant (node:http on port 0) that
// verifies every webhook it receives with the shared signature module.
const NEW_SECRET = 'whsec_port_new';
const OLD_SECRET = 'whsec_port_old';
const API_KEY = 'sk_test_port';

type Received = {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
  event: { id: string; type: string; data: Record<string, unknown> };
  verifiedWithOld: boolean;
};

let receiver: Server;
let sandbox: RunningPaymentSandbox;
let received: Received[] = [];
let answer: (event: Received['event'], nth: number) => number = () => 200;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = req.headers['x-signature'] as string | undefined;
      const now = Math.floor(Date.now() / 1000);
      // The merchant side of a rotation: it may know only the old secret, or only the new one.
      const withNew = verifyWebhookSignature(body, header, [NEW_SECRET], now);
      const withOld = verifyWebhookSignature(body, header, [OLD_SECRET], now);
      if (!withNew.ok) {
        res.writeHead(400).end('bad signature');
        return;
      }
      const event = JSON.parse(body) as Received['event'];
      const nth = received.filter((r) => r.event.id === event.id).length;
      received.push({ at: performance.now(), headers: req.headers, body, event, verifiedWithOld: withOld.ok });
      res.writeHead(answer(event, nth)).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  sandbox = await startPaymentSandbox({
    port: 0,
    config: {
      apiKey: API_KEY,
      webhookSecrets: [NEW_SECRET, OLD_SECRET],
      webhookUrl: `http://127.0.0.1:${port}/payments/callback`,
      webhook: { baseDelayMs: 5, maxDelayMs: 40, maxAttempts: 6 },
    },
  });
});

afterAll(async () => {
  await sandbox?.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

beforeEach(async () => {
  received = [];
  answer = () => 200;
  await api('PUT', '/v1/faults', {});
});

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: 'manual',
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? (JSON.parse(text) as any) : null, text };
}

let counter = 0;
async function createPayment(faults?: Record<string, unknown>) {
  counter += 1;
  const res = await api(
    'POST',
    '/v1/payments',
    {
      amount: 1500,
      currency: 'EUR',
      reference: `hold_port_${counter}`,
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
      returnUrl: 'http://127.0.0.1:1/return',
      faults,
    },
    { 'idempotency-key': `port-${counter}` },
  );
  expect(res.status).toBe(201);
  return res.json as { id: string; checkoutUrl: string };
}

const settle = () => sandbox.sandbox.dispatcher.idle();

describe('payment sandbox over a real port', () => {
  it('serves the pay page at the checkout URL and redirects 303 after approval', async () => {
    const p = await createPayment();
    expect(p.checkoutUrl).toBe(`${sandbox.url}/pay/${p.id}`);
    const page = await fetch(p.checkoutUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('€15.00');
    const submit = await fetch(`${p.checkoutUrl}/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
      redirect: 'manual',
    });
    expect(submit.status).toBe(303);
    expect(submit.headers.get('location')).toBe(`http://127.0.0.1:1/return?paymentId=${p.id}&status=succeeded`);
    await settle();
    expect(received.map((r) => r.event.type)).toEqual(['payment.succeeded']);
    const r = received[0]!;
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['user-agent']).toMatch(/PaymentSandbox/);
    expect(r.verifiedWithOld).toBe(true);
    expect(r.event.data).toEqual({
      paymentId: p.id,
      amount: 1500,
      currency: 'EUR',
      reference: expect.stringMatching(/^hold_port_/),
    });
  });

  it('retries until the merchant answers 2xx (500, 500, 200), keeping the event id', async () => {
    answer = (_event, nth) => (nth < 2 ? 500 : 200);
    const p = await createPayment();
    await api('POST', `/v1/payments/${p.id}/approve`);
    await settle();
    expect(received).toHaveLength(3);
    expect(new Set(received.map((r) => r.event.id)).size).toBe(1);
    expect(new Set(received.map((r) => r.body)).size).toBe(1);
    const events = await api('GET', `/v1/events?paymentId=${p.id}`);
    expect(events.json.data[0]).toMatchObject({ status: 'delivered', attempts: 3 });
  });

  it('sends duplicates with the same event id', async () => {
    const p = await createPayment({ webhookCopies: 2 });
    await api('POST', `/v1/payments/${p.id}/decline`);
    await settle();
    expect(received).toHaveLength(2);
    expect(received[0]!.event.id).toBe(received[1]!.event.id);
    expect(received[0]!.event).toMatchObject({ type: 'payment.failed', data: { reason: 'declined' } });
  });

  it('drops on demand while the query API still tells the truth', async () => {
    await api('PUT', '/v1/faults', { dropWebhooks: true });
    const p = await createPayment();
    await api('POST', `/v1/payments/${p.id}/approve`);
    await settle();
    await new Promise((r) => setTimeout(r, 30));
    expect(received).toHaveLength(0);
    expect((await api('GET', `/v1/payments/${p.id}`)).json.status).toBe('succeeded');
  });

  it('delays a webhook on demand', async () => {
    const p = await createPayment({ webhookDelayMs: 150 });
    const started = performance.now();
    await api('POST', `/v1/payments/${p.id}/approve`);
    await settle();
    expect(received).toHaveLength(1);
    expect(received[0]!.at - started).toBeGreaterThanOrEqual(120);
  });

  it('delivers a later event before an earlier one (reverse order)', async () => {
    const p = await createPayment({ webhookOrder: 'reverse', reorderWindowMs: 10_000 });
    await api('POST', `/v1/payments/${p.id}/approve`);
    const refund = await api('POST', `/v1/payments/${p.id}/refunds`, undefined, { 'idempotency-key': `ref-${p.id}` });
    expect(refund.status).toBe(201);
    await settle();
    expect(received.map((r) => r.event.type)).toEqual(['refund.succeeded', 'payment.succeeded']);
  });

  it('answers the query API slowly on demand', async () => {
    await api('PUT', '/v1/faults', { queryDelayMs: 100 });
    const p = await createPayment();
    const started = performance.now();
    const found = await api('GET', `/v1/payments?reference=hold_port_${counter}`);
    expect(found.json.data.map((x: { id: string }) => x.id)).toEqual([p.id]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(80);
  });
});
