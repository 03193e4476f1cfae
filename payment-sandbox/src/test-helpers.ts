import { createPaymentSandbox, type PaymentSandbox, type PaymentSandboxOptions } from './app';
import type { SandboxConfigInput } from './config';

/** Shared by this package's tests: a sandbox with a recording webhook fetch and a movable clock. */
export const API_KEY = 'sk_test_unit';
export const SECRETS = ['whsec_unit_new', 'whsec_unit_old'];
export const T0 = Date.parse('2030-01-01T12:00:00.000Z');

export type RecordedWebhook = { url: string; headers: Headers; body: string };

export function createRecorder() {
  const calls: RecordedWebhook[] = [];
  /** Status to answer per call (by index); default 200. */
  let answer: (index: number, body: string) => number = () => 200;
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const body = String(init?.body ?? '');
    const index = calls.length;
    calls.push({ url: String(input), headers: new Headers(init?.headers), body });
    return new Response(null, { status: answer(index, body) });
  };
  return {
    calls,
    fetch,
    answerWith(fn: (index: number, body: string) => number) {
      answer = fn;
    },
    events: () => calls.map((c) => JSON.parse(c.body) as { id: string; type: string; data: Record<string, unknown> }),
  };
}

export type TestSandbox = PaymentSandbox & {
  clock: { now(): number; advance(ms: number): void };
  recorder: ReturnType<typeof createRecorder>;
  call(method: string, path: string, init?: { body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  createPayment(overrides?: Record<string, unknown>, key?: string): Promise<{ id: string } & Record<string, unknown>>;
};

export function createTestSandbox(config: SandboxConfigInput = {}, options: PaymentSandboxOptions = {}): TestSandbox {
  let now = T0;
  const clock = { now: () => now, advance: (ms: number) => void (now += ms) };
  const recorder = createRecorder();
  const sandbox = createPaymentSandbox({
    clock,
    fetch: recorder.fetch,
    random: () => 0.5,
    ...options,
    config: {
      apiKey: API_KEY,
      webhookSecrets: SECRETS,
      webhookUrl: 'http://merchant.test/payments/callback',
      publicUrl: 'http://pay.test',
      expirySweepIntervalMs: 0,
      ...config,
      webhook: { baseDelayMs: 2, maxDelayMs: 20, maxAttempts: 5, ...(config.webhook ?? {}) },
    },
  });
  let keyCounter = 0;
  const call: TestSandbox['call'] = (method, path, init = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${API_KEY}`, ...(init.headers ?? {}) };
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    return Promise.resolve(sandbox.app.request(path, { method, headers, body }));
  };
  const createPayment: TestSandbox['createPayment'] = async (overrides = {}, key = `key-${++keyCounter}`) => {
    const res = await call('POST', '/v1/payments', {
      body: validBody(now, overrides),
      headers: { 'idempotency-key': key },
    });
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string };
  };
  return { ...sandbox, clock, recorder, call, createPayment };
}

export function validBody(now: number, overrides: Record<string, unknown> = {}) {
  return {
    amount: 2400,
    currency: 'EUR',
    reference: 'hold_abc',
    expiresAt: new Date(now + 8 * 60_000).toISOString(),
    returnUrl: 'https://shop.test/checkout/return?hold=hold_abc',
    ...overrides,
  };
}
