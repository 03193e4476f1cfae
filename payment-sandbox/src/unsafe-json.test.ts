/**
 * The sandbox reads bodies through the same JSON guard as the core and the edge: a NUL or a
 * lone surrogate in a string, or JSON nested past 32 levels, is a 422 naming the path and
 * creates nothing. The broken variant (the guard switched off: plain JSON.parse) stores the
 * NUL reference, which a real gateway would hand back to the core's database.
 */
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';

const guard = vi.hoisted(() => ({ off: false }));
vi.mock('../../lib/json-guard', async (original) => {
  const real = await original<typeof import('../../lib/json-guard')>();
  return {
    ...real,
    parseSafeJson: (text: string) => (guard.off ? (JSON.parse(text) as unknown) : real.parseSafeJson(text)),
  };
});

// The unit project shares modules between test files (isolate: false): another file may have
// loaded the guard already, unmocked, so the sandbox's modules are loaded afresh here.
vi.resetModules();
const { createTestSandbox, T0, validBody } = await import('./test-helpers');

const sandbox = createTestSandbox();
afterAll(() => {
  guard.off = false;
  sandbox.close();
});
beforeEach(() => {
  guard.off = false;
});

let keys = 0;
const post = (body: string) =>
  sandbox.call('POST', '/v1/payments', { body, headers: { 'idempotency-key': `unsafe-${++keys}` } });

describe('payment sandbox: unsafe JSON', () => {
  it('refuses NUL, lone surrogates and deep nesting with 422 naming the path; creates nothing', async () => {
    const before = sandbox.store.size;
    const cases: Array<[string, string]> = [
      [JSON.stringify(validBody(T0, { reference: 'hold\u0000' })), 'reference'],
      [JSON.stringify(validBody(T0, { metadata: { note: 'a\uD800' } })), 'metadata.note'],
      [
        JSON.stringify(validBody(T0)).replace(/}$/, `,"metadata":{"deep":${'['.repeat(5_000)}${']'.repeat(5_000)}}}`),
        'metadata.deep',
      ],
    ];
    for (const [body, path] of cases) {
      const res = await post(body);
      const payload = (await res.json()) as { error: { code: string; issues: Array<{ path: string }> } };
      expect(res.status, path).toBe(422);
      expect(payload.error.code).toBe('VALIDATION_FAILED');
      expect(payload.error.issues[0]!.path.startsWith(path)).toBe(true);
    }
    expect(sandbox.store.size).toBe(before);
  });

  it('broken variant: with plain JSON.parse the NUL reference is stored', async () => {
    guard.off = true;
    const before = sandbox.store.size;
    const res = await post(JSON.stringify(validBody(T0, { reference: 'hold\u0000' })));
    expect(res.status).toBe(201);
    expect(sandbox.store.size).toBe(before + 1);
  });
});
