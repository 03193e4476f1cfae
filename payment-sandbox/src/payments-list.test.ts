import { afterEach, expect, it } from 'vitest';
import { createTestSandbox, T0, validBody, type TestSandbox } from './test-helpers';

let sandbox: TestSandbox;
afterEach(() => sandbox?.close());

const json = async (res: Response) => (await res.json()) as Record<string, any>;

async function open(reference: string) {
  const res = await sandbox.call('POST', '/v1/payments', {
    body: validBody(T0, { reference }),
    headers: { 'idempotency-key': `k-${reference}` },
  });
  return (await json(res)).id as string;
}

it('lists every session oldest first, filtered by status, a page at a time', async () => {
  sandbox = createTestSandbox();
  const ids = [await open('h1'), await open('h2'), await open('h3')];
  await sandbox.call('POST', `/v1/payments/${ids[1]}/approve`);
  await sandbox.call('POST', `/v1/payments/${ids[1]}/refunds`, { headers: { 'idempotency-key': 'r1' } });
  await sandbox.call('POST', `/v1/payments/${ids[2]}/approve`);

  const all = await json(await sandbox.call('GET', '/v1/payments'));
  expect(all.data.map((p: { id: string }) => p.id)).toEqual(ids);
  expect(all.hasMore).toBe(false);
  const refunded = await json(await sandbox.call('GET', '/v1/payments?status=refunded'));
  expect(refunded.data.map((p: { id: string; reference: string }) => [p.id, p.reference])).toEqual([[ids[1], 'h2']]);

  const first = await json(await sandbox.call('GET', '/v1/payments?limit=2'));
  expect(first.data.map((p: { id: string }) => p.id)).toEqual(ids.slice(0, 2));
  expect(first.hasMore).toBe(true);
  const next = await json(await sandbox.call('GET', `/v1/payments?limit=2&startingAfter=${ids[1]}`));
  expect(next.data.map((p: { id: string }) => p.id)).toEqual([ids[2]]);
  expect(next.hasMore).toBe(false);
});

it('refuses a bad listing query with a JSON 422 (or 400) and changes nothing', async () => {
  sandbox = createTestSandbox();
  await open('h1');
  for (const query of ['status=paid', 'limit=0', 'limit=5000', 'limit=x', 'other=1']) {
    const res = await sandbox.call('GET', `/v1/payments?${query}`);
    expect([400, 422], query).toContain(res.status);
    expect((await json(res)).error.code, query).toBeTruthy();
  }
  expect((await json(await sandbox.call('GET', '/v1/payments'))).data).toHaveLength(1);
});
