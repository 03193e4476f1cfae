import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../lib/webhook-signature';
import { backoffMs } from './delivery-record';
import { createTestSandbox, SECRETS, T0, type TestSandbox } from './test-helpers';

let sandbox: TestSandbox;
afterEach(() => sandbox?.close());

const approve = (id: string) => sandbox.call('POST', `/v1/payments/${id}/approve`);
const refund = (id: string, key = `rk-${id}`) =>
  sandbox.call('POST', `/v1/payments/${id}/refunds`, { headers: { 'idempotency-key': key } });
const setFaults = (body: unknown) => sandbox.call('PUT', '/v1/faults', { body });

describe('webhook delivery', () => {
  it('retries failed deliveries with the same event id and body, re-signed each time', async () => {
    sandbox = createTestSandbox();
    sandbox.recorder.answerWith((i) => (i < 2 ? 500 : 204));
    const p = await sandbox.createPayment();
    await approve(p.id);
    await sandbox.dispatcher.idle();
    const calls = sandbox.recorder.calls;
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.body)).size).toBe(1);
    for (const call of calls) {
      const verdict = verifyWebhookSignature(call.body, call.headers.get('x-signature')!, SECRETS, T0 / 1000);
      expect(verdict.ok).toBe(true);
    }
    const [record] = sandbox.dispatcher.records({ paymentId: p.id });
    expect(record).toMatchObject({ status: 'delivered', attempts: 3, deliveredCopies: 1, lastStatusCode: 204 });
  });

  it('gives up after maxAttempts and says so', async () => {
    sandbox = createTestSandbox({ webhook: { maxAttempts: 3 } });
    sandbox.recorder.answerWith(() => 503);
    const p = await sandbox.createPayment();
    await approve(p.id);
    await sandbox.dispatcher.idle();
    expect(sandbox.recorder.calls).toHaveLength(3);
    const events = (await (await sandbox.call('GET', `/v1/events?paymentId=${p.id}`)).json()) as {
      data: unknown[];
      stats: unknown;
    };
    expect(events.data[0]).toMatchObject({ status: 'failed', attempts: 3, failedCopies: 1, lastStatusCode: 503 });
    expect(events.stats).toMatchObject({ givenUp: 1 });
  });

  it('retries after network errors', async () => {
    let calls = 0;
    sandbox = createTestSandbox(
      {},
      {
        fetch: async () => {
          calls += 1;
          if (calls === 1) throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
          return new Response('ok');
        },
      },
    );
    const p = await sandbox.createPayment();
    await approve(p.id);
    await sandbox.dispatcher.idle();
    expect(calls).toBe(2);
    expect(sandbox.dispatcher.records()[0]).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('fails the first N attempts on demand (webhookFailAttempts) without sending them', async () => {
    sandbox = createTestSandbox();
    await setFaults({ webhookFailAttempts: 2 });
    const p = await sandbox.createPayment();
    await approve(p.id);
    await sandbox.dispatcher.idle();
    expect(sandbox.recorder.calls).toHaveLength(1);
    expect(sandbox.dispatcher.records()[0]).toMatchObject({ status: 'delivered', attempts: 3 });
  });

  it('sends duplicates with the same event id (webhookCopies)', async () => {
    sandbox = createTestSandbox();
    const p = await sandbox.createPayment({ faults: { webhookCopies: 3 } });
    await approve(p.id);
    await sandbox.dispatcher.idle();
    const ids = sandbox.recorder.events().map((e) => e.id);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(1);
    expect(sandbox.dispatcher.records()[0]).toMatchObject({ copies: 3, deliveredCopies: 3, status: 'delivered' });
  });

  it('drops all events, or only the listed types', async () => {
    sandbox = createTestSandbox();
    const all = await sandbox.createPayment({ faults: { dropWebhooks: true } });
    const some = await sandbox.createPayment({ faults: { dropWebhooks: ['payment.succeeded'] } });
    await approve(all.id);
    await approve(some.id);
    await refund(some.id);
    await sandbox.dispatcher.idle();
    expect(sandbox.recorder.events().map((e) => [e.type, e.data.paymentId])).toEqual([['refund.succeeded', some.id]]);
    expect(sandbox.dispatcher.records({ paymentId: all.id })[0]!.status).toBe('dropped');
    // The payment itself still succeeded: the reconciler can find out through the query API.
    expect(((await (await sandbox.call('GET', `/v1/payments/${all.id}`)).json()) as { status: string }).status).toBe(
      'succeeded',
    );
  });

  it('delays the first attempt (webhookDelayMs)', async () => {
    sandbox = createTestSandbox();
    const p = await sandbox.createPayment({ faults: { webhookDelayMs: 80 } });
    const started = performance.now();
    await approve(p.id);
    await new Promise((r) => setTimeout(r, 10));
    expect(sandbox.recorder.calls).toHaveLength(0);
    await sandbox.dispatcher.idle();
    expect(sandbox.recorder.calls).toHaveLength(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(70);
  });

  it("delivers a payment's later event first (session webhookOrder reverse)", async () => {
    sandbox = createTestSandbox();
    const p = await sandbox.createPayment({ faults: { webhookOrder: 'reverse', reorderWindowMs: 60_000 } });
    await approve(p.id);
    await new Promise((r) => setTimeout(r, 20));
    expect(sandbox.recorder.calls).toHaveLength(0);
    await refund(p.id);
    await sandbox.dispatcher.idle();
    expect(sandbox.recorder.events().map((e) => e.type)).toEqual(['refund.succeeded', 'payment.succeeded']);
  });

  it('releases a held-back event after the reorder window when nothing follows', async () => {
    sandbox = createTestSandbox();
    const p = await sandbox.createPayment({ faults: { webhookOrder: 'reverse', reorderWindowMs: 30 } });
    await approve(p.id);
    await sandbox.dispatcher.idle();
    expect(sandbox.recorder.events().map((e) => e.type)).toEqual(['payment.succeeded']);
  });

  it('reverses batches across payments with the global switch', async () => {
    sandbox = createTestSandbox();
    await setFaults({ webhookOrder: 'reverse', reorderBatchSize: 3, reorderWindowMs: 60_000 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await sandbox.createPayment()).id);
    for (const id of ids) await approve(id);
    await sandbox.dispatcher.idle();
    expect(sandbox.recorder.events().map((e) => e.data.paymentId)).toEqual([...ids].reverse());
  });

  it('session faults win over global ones', async () => {
    sandbox = createTestSandbox();
    await setFaults({ dropWebhooks: true });
    const quiet = await sandbox.createPayment();
    const loud = await sandbox.createPayment({ faults: { dropWebhooks: false } });
    await approve(quiet.id);
    await approve(loud.id);
    await sandbox.dispatcher.idle();
    expect(sandbox.recorder.events().map((e) => e.data.paymentId)).toEqual([loud.id]);
  });

  it('refuses new deliveries past maxPendingDeliveries instead of growing', async () => {
    sandbox = createTestSandbox({ webhook: { maxPendingDeliveries: 2 } });
    const p = await sandbox.createPayment({ faults: { webhookCopies: 5 } });
    await approve(p.id);
    await sandbox.dispatcher.idle();
    expect(sandbox.recorder.calls).toHaveLength(0);
    expect(sandbox.dispatcher.records()[0]).toMatchObject({ status: 'failed', lastError: 'delivery queue full' });
  });

  it('close() abandons pending retries and resolves idle()', async () => {
    sandbox = createTestSandbox({ webhook: { baseDelayMs: 60_000, maxDelayMs: 60_000 } });
    sandbox.recorder.answerWith(() => 500);
    const p = await sandbox.createPayment();
    await approve(p.id);
    await new Promise((r) => setTimeout(r, 20));
    expect(sandbox.recorder.calls).toHaveLength(1);
    sandbox.close();
    await sandbox.dispatcher.idle();
    expect(sandbox.recorder.calls).toHaveLength(1);
  });
});

describe('backoffMs', () => {
  it('grows exponentially with jitter inside [exp/2, exp] and is capped', () => {
    expect(backoffMs(1, 100, 10_000, () => 0)).toBe(50);
    expect(backoffMs(1, 100, 10_000, () => 1)).toBe(100);
    expect(backoffMs(4, 100, 10_000, () => 0.5)).toBe(600);
    expect(backoffMs(30, 100, 10_000, () => 1)).toBe(10_000);
  });
});
