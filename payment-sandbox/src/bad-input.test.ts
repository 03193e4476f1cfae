import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestSandbox, T0, validBody } from './test-helpers';

// One sandbox for the whole property run; each check compares the store before and after.
const sandbox = createTestSandbox();
afterAll(() => sandbox.close());

const valid = validBody(T0);
const fieldValues = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', 'EUR', '-1', '1e309', 'http://x', 'javascript:x', '2030-01-01T00:00:00Z', '__proto__'),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), { maxKeys: 3 }),
);

/** Bodies with one field replaced by junk (sometimes still valid), junk JSON, junk text. */
const mutatedBodies = fc
  .record({
    field: fc.constantFrom('amount', 'currency', 'reference', 'expiresAt', 'returnUrl', 'metadata', 'faults', 'extra'),
    value: fieldValues,
  })
  .map(({ field, value }) => JSON.stringify({ ...valid, [field]: value }));
const junkBodies = fc.oneof(
  fc.json().filter((text) => {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed !== 'object' || parsed === null || Array.isArray(parsed);
  }),
  fc.string({ maxLength: 200 }),
  fc.constantFrom('', '{', '{"amount":2400', 'null', '[]', '{"__proto__":{"amount":1}}'),
);
/** Values that no field accepts, placed in a required field: always a 422. */
const certainlyInvalid = fc
  .record({
    field: fc.constantFrom('amount', 'currency', 'reference', 'expiresAt', 'returnUrl'),
    value: fc.oneof(fc.constant(null), fc.boolean(), fc.array(fc.integer(), { maxLength: 2 }), fc.constant({})),
  })
  .map(({ field, value }) => JSON.stringify({ ...valid, [field]: value }));
const keys = fc.string({ minLength: 1, maxLength: 20 }).filter((k) => /^[\x21-\x7e]+$/.test(k));

const post = (body: string, key: string) =>
  sandbox.call('POST', '/v1/payments', { body, headers: { 'idempotency-key': key } });

describe('bad create bodies', () => {
  it('never 500: a 4xx JSON error creates nothing, only a 201 creates one session', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutatedBodies, junkBodies), keys, async (body, key) => {
        const before = sandbox.store.size;
        const res = await post(body, `${key}-${before}`);
        const payload = (await res.json()) as { error?: { code: string; message: string } };
        if (res.status === 201) {
          const replayed = res.headers.get('idempotent-replayed') === 'true';
          expect(sandbox.store.size).toBe(replayed ? before : before + 1);
          return;
        }
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect(typeof payload.error?.code).toBe('string');
        expect(sandbox.store.size).toBe(before);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses junk and wrong-typed required fields outright', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(certainlyInvalid, junkBodies), keys, async (body, key) => {
        const before = sandbox.store.size;
        const res = await post(body, `bad-${key}`);
        expect([400, 415, 422]).toContain(res.status);
        expect(sandbox.store.size).toBe(before);
      }),
      { numRuns: 200 },
    );
  });

  it('never 500 on junk headers, paths and refund bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 60 }),
        fc.string({ maxLength: 80 }),
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
        async (segment, body, method) => {
          const path = `/v1/payments/${encodeURIComponent(segment)}/refunds`;
          const res = await sandbox.call(method, path, {
            body: method === 'GET' ? undefined : body,
            headers: { 'idempotency-key': 'k' },
          });
          expect(res.status).toBeLessThan(500);
          const page = await sandbox.app.request(`/pay/${encodeURIComponent(segment)}`);
          expect(page.status).toBeLessThan(500);
        },
      ),
      { numRuns: 150 },
    );
  });
});
