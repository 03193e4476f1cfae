import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../lib/webhook-signature';
import { createTestSandbox, SECRETS, T0, validBody, type TestSandbox } from './test-helpers';

let sandbox: TestSandbox;
afterEach(() => sandbox?.close());

const json = async (res: Response) => (await res.json()) as Record<string, any>;

describe('create a payment session', () => {
  it('answers 201 with the session and a checkout URL', async () => {
    sandbox = createTestSandbox();
    const body = validBody(T0, { metadata: { showtime: '42' } });
    const res = await sandbox.call('POST', '/v1/payments', { body, headers: { 'idempotency-key': 'a1' } });
    expect(res.status).toBe(201);
    const payment = await json(res);
    expect(payment).toMatchObject({
      status: 'pending',
      amount: 2400,
      currency: 'EUR',
      reference: 'hold_abc',
      expiresAt: body.expiresAt,
      createdAt: new Date(T0).toISOString(),
      metadata: { showtime: '42' },
    });
    expect(payment.id).toMatch(/^pay_[0-9a-f]{24}$/);
    expect(payment.checkoutUrl).toBe(`http://pay.test/pay/${payment.id}`);
  });

  it('replays the same key and body, refuses the same key with another body', async () => {
    sandbox = createTestSandbox();
    const body = validBody(T0);
    const first = await sandbox.call('POST', '/v1/payments', { body, headers: { 'idempotency-key': 'same' } });
    sandbox.clock.advance(1000);
    const again = await sandbox.call('POST', '/v1/payments', { body, headers: { 'idempotency-key': 'same' } });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(again)).toEqual(await json(first));
    // Key order and whitespace do not make a different request.
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(body).reverse()), null, 2);
    const third = await sandbox.call('POST', '/v1/payments', {
      body: reordered,
      headers: { 'idempotency-key': 'same' },
    });
    expect(third.status).toBe(201);
    const other = await sandbox.call('POST', '/v1/payments', {
      body: { ...body, amount: 2500 },
      headers: { 'idempotency-key': 'same' },
    });
    expect(other.status).toBe(422);
    expect((await json(other)).error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(sandbox.store.size).toBe(1);
  });

  it('needs an Idempotency-Key', async () => {
    sandbox = createTestSandbox();
    const missing = await sandbox.call('POST', '/v1/payments', { body: validBody(T0) });
    expect(missing.status).toBe(400);
    expect((await json(missing)).error.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    const bad = await sandbox.call('POST', '/v1/payments', {
      body: validBody(T0),
      headers: { 'idempotency-key': 'a b' },
    });
    expect(bad.status).toBe(400);
  });

  it.each([
    ['amount zero', { amount: 0 }],
    ['amount fractional', { amount: 10.5 }],
    ['amount as string', { amount: '2400' }],
    ['currency too long', { currency: 'EURO' }],
    ['currency digits', { currency: '978' }],
    ['reference empty', { reference: '' }],
    ['expiresAt not ISO', { expiresAt: 'tomorrow' }],
    ['returnUrl javascript', { returnUrl: 'javascript:alert(1)' }],
    ['returnUrl relative', { returnUrl: '/return' }],
    ['metadata nested', { metadata: { a: { b: 1 } } }],
    ['unknown fault', { faults: { webhookDely: 5 } }],
  ])('refuses %s with 422', async (_name, override) => {
    sandbox = createTestSandbox();
    const res = await sandbox.call('POST', '/v1/payments', {
      body: validBody(T0, override),
      headers: { 'idempotency-key': 'v' },
    });
    expect(res.status).toBe(422);
    expect((await json(res)).error.code).toBe('VALIDATION_FAILED');
    expect(sandbox.store.size).toBe(0);
  });

  it('refuses an expiry in the past or too far ahead', async () => {
    sandbox = createTestSandbox();
    const past = await sandbox.call('POST', '/v1/payments', {
      body: validBody(T0, { expiresAt: new Date(T0 - 1).toISOString() }),
      headers: { 'idempotency-key': 'p' },
    });
    expect(past.status).toBe(422);
    expect((await json(past)).error.code).toBe('EXPIRES_AT_IN_PAST');
    const far = await sandbox.call('POST', '/v1/payments', {
      body: validBody(T0, { expiresAt: new Date(T0 + 48 * 3600_000).toISOString() }),
      headers: { 'idempotency-key': 'f' },
    });
    expect(far.status).toBe(422);
  });

  it('answers 400 for malformed JSON, 415 for another media type, 413 for a huge body', async () => {
    sandbox = createTestSandbox();
    const headers = { 'idempotency-key': 'x' };
    expect((await sandbox.call('POST', '/v1/payments', { body: '{"amount":', headers })).status).toBe(400);
    const form = await sandbox.call('POST', '/v1/payments', {
      body: 'amount=1',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    const huge = await sandbox.call('POST', '/v1/payments', {
      body: validBody(T0, { reference: 'x'.repeat(100_000) }),
      headers,
    });
    expect(huge.status).toBe(413);
    expect((await json(huge)).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers 401 without the API key or with a wrong one', async () => {
    sandbox = createTestSandbox();
    const none = await sandbox.app.request('/v1/payments/pay_x');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const wrong = await sandbox.call('GET', '/v1/payments/pay_x', { headers: { authorization: 'Bearer sk_nope' } });
    expect(wrong.status).toBe(401);
    expect((await json(wrong)).error.code).toBe('UNAUTHORIZED');
  });
});

describe('query API', () => {
  it('gets a payment by id and finds payments by reference', async () => {
    sandbox = createTestSandbox();
    const a = await sandbox.createPayment({ reference: 'hold_1' });
    await sandbox.createPayment({ reference: 'hold_2' });
    const b = await sandbox.createPayment({ reference: 'hold_1' });
    const got = await sandbox.call('GET', `/v1/payments/${a.id}`);
    expect(got.status).toBe(200);
    expect(await json(got)).toMatchObject({ id: a.id, status: 'pending' });
    const found = await json(await sandbox.call('GET', '/v1/payments?reference=hold_1'));
    expect(found.data.map((p: { id: string }) => p.id)).toEqual([a.id, b.id]);
    expect((await json(await sandbox.call('GET', '/v1/payments?reference=none'))).data).toEqual([]);
    // Without a reference it is the listing (payments-list.test.ts); an empty one is refused.
    expect((await sandbox.call('GET', '/v1/payments?reference=')).status).toBe(422);
    const missing = await sandbox.call('GET', '/v1/payments/pay_unknown');
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe('PAYMENT_NOT_FOUND');
  });

  it('answers slowly when asked to (queryDelayMs)', async () => {
    sandbox = createTestSandbox();
    const p = await sandbox.createPayment({ faults: { queryDelayMs: 60 } });
    const started = performance.now();
    expect((await sandbox.call('GET', `/v1/payments/${p.id}`)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(50);
  });

  it('answers unknown routes with a JSON 404', async () => {
    sandbox = createTestSandbox();
    const res = await sandbox.app.request('/nope');
    expect(res.status).toBe(404);
    expect((await json(res)).error.code).toBe('ROUTE_NOT_FOUND');
    expect((await sandbox.app.request('/healthz')).status).toBe(200);
  });
});

describe('decisions and expiry', () => {
  it('approves once, idempotently, and sends one signed payment.succeeded', async () => {
    sandbox = createTestSandbox();
    const p = await sandbox.createPayment();
    const approved = await sandbox.call('POST', `/v1/payments/${p.id}/approve`);
    expect(approved.status).toBe(200);
    expect((await json(approved)).status).toBe('succeeded');
    expect((await sandbox.call('POST', `/v1/payments/${p.id}/approve`)).status).toBe(200);
    const decline = await sandbox.call('POST', `/v1/payments/${p.id}/decline`);
    expect(decline.status).toBe(409);
    expect((await json(decline)).error.code).toBe('PAYMENT_NOT_PENDING');
    await sandbox.dispatcher.idle();
    const [call, ...rest] = sandbox.recorder.calls;
    expect(rest).toHaveLength(0);
    expect(call!.url).toBe('http://merchant.test/payments/callback');
    expect(call!.headers.get('content-type')).toBe('application/json');
    expect(call!.headers.get('user-agent')).toMatch(/PaymentSandbox/);
    const verdict = verifyWebhookSignature(
      call!.body,
      call!.headers.get('x-signature') ?? undefined,
      [SECRETS[1]!],
      T0 / 1000,
    );
    expect(verdict.ok).toBe(true);
    expect(call!.headers.get('x-signature')!.match(/v1=/g)).toHaveLength(2);
    const event = JSON.parse(call!.body);
    expect(Object.keys(event)).toEqual(['id', 'type', 'created', 'data']);
    expect(event).toMatchObject({
      type: 'payment.succeeded',
      created: T0 / 1000,
      data: { paymentId: p.id, amount: 2400, currency: 'EUR', reference: 'hold_abc' },
    });
    expect(event.id).toMatch(/^evt_/);
    expect(Object.keys(event.data)).toEqual(['paymentId', 'amount', 'currency', 'reference']);
  });

  it('declines with payment.failed and reason declined', async () => {
    sandbox = createTestSandbox();
    const p = await sandbox.createPayment();
    expect((await json(await sandbox.call('POST', `/v1/payments/${p.id}/decline`))).status).toBe('failed');
    expect((await sandbox.call('POST', `/v1/payments/${p.id}/approve`)).status).toBe(409);
    await sandbox.dispatcher.idle();
    expect(sandbox.recorder.events().map((e) => [e.type, e.data.reason])).toEqual([['payment.failed', 'declined']]);
  });

  it('expires lazily on read and by the sweep, sending payment.failed with reason expired', async () => {
    sandbox = createTestSandbox();
    const a = await sandbox.createPayment();
    const b = await sandbox.createPayment();
    sandbox.clock.advance(8 * 60_000);
    const read = await json(await sandbox.call('GET', `/v1/payments/${a.id}`));
    expect(read).toMatchObject({ status: 'expired', failureReason: 'expired' });
    expect(sandbox.sweepExpired()).toBe(1);
    expect(sandbox.sweepExpired()).toBe(0);
    const approve = await sandbox.call('POST', `/v1/payments/${b.id}/approve`);
    expect(approve.status).toBe(409);
    expect((await json(approve)).error.code).toBe('PAYMENT_EXPIRED');
    await sandbox.dispatcher.idle();
    const events = sandbox.recorder.events();
    expect(events.map((e) => [e.type, e.data.paymentId, e.data.reason])).toEqual([
      ['payment.failed', a.id, 'expired'],
      ['payment.failed', b.id, 'expired'],
    ]);
  });
});

describe('refunds', () => {
  const refund = (id: string, key: string, body?: unknown) =>
    sandbox.call('POST', `/v1/payments/${id}/refunds`, { headers: { 'idempotency-key': key }, body });

  it('refunds a succeeded payment once, whatever the keys', async () => {
    sandbox = createTestSandbox();
    const p = await sandbox.createPayment();
    await sandbox.call('POST', `/v1/payments/${p.id}/approve`);
    const first = await refund(p.id, 'r1');
    expect(first.status).toBe(201);
    const created = await json(first);
    expect(created).toMatchObject({ paymentId: p.id, amount: 2400, status: 'succeeded' });
    expect(created.id).toMatch(/^re_/);
    const replay = await refund(p.id, 'r1');
    expect(replay.status).toBe(201);
    expect(await json(replay)).toEqual(created);
    const otherKey = await refund(p.id, 'r2', { amount: 2400 });
    expect(otherKey.status).toBe(200);
    expect(await json(otherKey)).toEqual(created);
    expect((await refund(p.id, 'r1', { reason: 'different' })).status).toBe(422);
    expect((await json(await sandbox.call('GET', `/v1/payments/${p.id}`))).status).toBe('refunded');
    await sandbox.dispatcher.idle();
    expect(sandbox.recorder.events().map((e) => e.type)).toEqual(['payment.succeeded', 'refund.succeeded']);
  });

  it('refuses what cannot be refunded', async () => {
    sandbox = createTestSandbox();
    const pending = await sandbox.createPayment();
    const notYet = await refund(pending.id, 'k1');
    expect(notYet.status).toBe(409);
    expect((await json(notYet)).error.code).toBe('PAYMENT_NOT_REFUNDABLE');
    await sandbox.call('POST', `/v1/payments/${pending.id}/approve`);
    const tooMuch = await refund(pending.id, 'k2', { amount: 1_000_000 });
    expect(tooMuch.status).toBe(422);
    expect((await json(tooMuch)).error.code).toBe('REFUND_EXCEEDS_PAYMENT');
    expect((await refund('pay_missing', 'k3')).status).toBe(404);
    expect((await sandbox.call('POST', `/v1/payments/${pending.id}/refunds`)).status).toBe(400);
    expect((await refund(pending.id, 'k4', '{oops')).status).toBe(400);
    const other = await sandbox.createPayment();
    await sandbox.call('POST', `/v1/payments/${other.id}/approve`);
    expect((await refund(pending.id, 'shared')).status).toBe(201);
    expect((await refund(other.id, 'shared')).status).toBe(422);
  });
});

describe('faults API', () => {
  it('sets and reads global and per-session faults, strictly', async () => {
    sandbox = createTestSandbox();
    expect(await json(await sandbox.call('GET', '/v1/faults'))).toEqual({});
    const set = await sandbox.call('PUT', '/v1/faults', { body: { webhookCopies: 2, webhookOrder: 'reverse' } });
    expect(await json(set)).toEqual({ webhookCopies: 2, webhookOrder: 'reverse' });
    expect((await sandbox.call('PUT', '/v1/faults', { body: { webhookCopies: 0 } })).status).toBe(422);
    expect((await sandbox.call('PUT', '/v1/faults', { body: { nope: true } })).status).toBe(422);
    const p = await sandbox.createPayment();
    const session = await sandbox.call('PUT', `/v1/payments/${p.id}/faults`, {
      body: { dropWebhooks: ['payment.failed'] },
    });
    expect(session.status).toBe(200);
    expect(await json(await sandbox.call('GET', `/v1/payments/${p.id}/faults`))).toEqual({
      dropWebhooks: ['payment.failed'],
    });
    expect(sandbox.service.faultsFor(sandbox.store.get(p.id)!)).toMatchObject({
      webhookCopies: 2,
      webhookOrder: 'reverse',
      reorderScope: 'global',
      drop: ['payment.failed'],
    });
    expect((await sandbox.call('PUT', '/v1/payments/pay_missing/faults', { body: {} })).status).toBe(404);
  });
});

describe('bounded memory', () => {
  it('evicts the oldest sessions with their keys and reference entries', async () => {
    sandbox = createTestSandbox({ maxPayments: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await sandbox.createPayment({ reference: `ref_${i}` }, `k${i}`)).id);
    expect(sandbox.store.size).toBe(3);
    expect((await sandbox.call('GET', `/v1/payments/${ids[0]}`)).status).toBe(404);
    expect((await sandbox.call('GET', `/v1/payments/${ids[4]}`)).status).toBe(200);
    expect((await json(await sandbox.call('GET', '/v1/payments?reference=ref_1'))).data).toEqual([]);
    const health = await json(await sandbox.app.request('/healthz'));
    expect(health).toMatchObject({ payments: 3, evicted: 2 });
  });
});
