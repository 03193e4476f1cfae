/**
 * The two request rules every route shares (lib/http.ts): a JSON body must be declared JSON
 * (415 otherwise), and a query value is read once (422 when repeated or holding text that
 * cannot be stored; a lone surrogate cannot arrive percent-encoded, as it is not UTF-8). Each beside a broken variant the same checks catch: reading the body
 * whatever its media type, and taking the first of two values.
 */
import { Hono, type Context } from 'hono';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createErrorHandler, readJsonBody, singleQueryValue } from './http';

function appWith(read: (c: Context) => Promise<unknown> | unknown) {
  const app = new Hono();
  app.onError(createErrorHandler(() => {}));
  app.all('/x', async (c) => c.json({ value: (await read(c)) ?? null }));
  return app;
}

const post = (app: Hono, contentType: string | null, body = '{"a":1}') =>
  app.request('/x', { method: 'POST', body, headers: contentType ? { 'content-type': contentType } : {} });
const statusAndCode = async (response: Response) => {
  const json = (await response.json()) as { error?: { code: string } };
  return [response.status, json.error?.code ?? null];
};

describe('a JSON body must be declared JSON', () => {
  const schema = z.object({ a: z.number() });
  const strict = appWith((c) => readJsonBody(c, schema));
  // Broken variant: the body parsed whatever the request says it is.
  const lax = appWith(async (c) => schema.parse(JSON.parse(await c.req.text())));

  it('takes application/json, with parameters, and +json types', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/merge-patch+json'])
      expect((await post(strict, type)).status, type).toBe(200);
  });

  it('refuses text, forms, a missing type and look-alikes with 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', null, 'application/jsonx', 'text/json'])
      expect(await statusAndCode(await post(strict, type)), String(type)).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    expect((await post(lax, 'text/plain')).status).toBe(200);
  });
});

describe('a query value is read once', () => {
  const strict = appWith((c) => singleQueryValue(c, 'limit'));
  // Broken variant: the first of two values, and any text.
  const lax = appWith((c) => c.req.query('limit'));
  const get = (app: Hono, query: string) => app.request(`/x?${query}`);

  it('gives the one value, or nothing when absent', async () => {
    expect(await (await get(strict, 'limit=5')).json()).toEqual({ value: '5' });
    expect(await (await get(strict, 'other=1')).json()).toEqual({ value: null });
  });

  it('refuses a value given twice, and NUL, with 422', async () => {
    expect(await statusAndCode(await get(strict, 'limit=1&limit=2'))).toEqual([422, 'VALIDATION_FAILED']);
    expect(await statusAndCode(await get(strict, 'limit=a%00b'))).toEqual([422, 'VALIDATION_FAILED']);
    expect((await get(lax, 'limit=1&limit=2')).status).toBe(200);
  });
});
