/**
 * Contract fuzz of both API descriptions against a real stack (edge on real Redis, core on its
 * own PostgreSQL database, the payment sandbox): every operation of the edge's
 * /api/openapi.json and of the core's /openapi.json gets generated bad inputs (test/support/
 * contract-fuzz.ts: wrong types, missing fields, depth, NUL, lone surrogates, a 1 MB body on
 * every method, wrong content types, malformed and duplicated query values, unknown and
 * malformed ids, missing credentials). Every answer: never a 5xx, its status documented for
 * that operation, its JSON body valid against the documented schema, its error code listed;
 * and a refusal (4xx) wrote no row (every table fingerprinted before and after).
 *
 * The stack and the world in it (a showtime on sale, an admitted buyer, a live hold, a
 * booking) come from test/support/fuzz-stack.ts. CONTRACT_FUZZ_RUNS (default 2) scales the
 * randomly chosen inputs; CONTRACT_FUZZ_SEED replays a run; CONTRACT_FUZZ_REPORT=<file> writes
 * the statuses each operation answered and the problems found there. The last tests show the
 * checks failing: a route that answers what it does not document, a row written.
 */
import { appendFileSync } from 'node:fs';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, fetchFrom } from '../support/json-call';
import {
  answerChecker,
  casesFor,
  changedTables,
  seededRandom,
  send,
  tableFingerprint,
  type FuzzCase,
  type FuzzContext,
  type FuzzDocument,
} from '../support/contract-fuzz';
import { startFuzzStack, type FuzzStack } from '../support/fuzz-stack';

const RUNS = Number(process.env.CONTRACT_FUZZ_RUNS ?? 2);
const SEED = Number(process.env.CONTRACT_FUZZ_SEED ?? 20261203);

let stack: FuzzStack;
beforeAll(async () => {
  stack = await startFuzzStack();
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

let keyCounter = 0;
/** A fresh Idempotency-Key per checkout case, so one case's stored answer never decides the next one's. */
function freshKeys(fuzzCase: FuzzCase): FuzzCase {
  if (!fuzzCase.template.endsWith('/checkout') || fuzzCase.label.startsWith('header Idempotency-Key')) return fuzzCase;
  return { ...fuzzCase, headers: { ...fuzzCase.headers, 'idempotency-key': `fuzz-${++keyCounter}` } };
}

/**
 * 503s the document promises for a reason of their own, not a failure: a webhook for a payment
 * the core does not know yet asks the gateway to deliver again.
 */
const INTENDED_503 = new Set(['PAYMENT_UNKNOWN_YET']);

async function fuzzDocument(service: 'edge' | 'core', docPath: string): Promise<{ calls: number; problems: string[] }> {
  const baseUrl = stack[service].url;
  const served = await callJson(fetchFrom(baseUrl), 'GET', docPath);
  expect(served.status).toBe(200);
  const doc = served.json as FuzzDocument;
  const problemsOf = answerChecker(doc);
  const random = seededRandom(SEED);
  const context = stack.contexts[service];
  const problems: string[] = [];
  const tally: string[] = [];
  let calls = 0;
  for (const [template, methods] of Object.entries(doc.paths))
    for (const [method, operation] of Object.entries(methods)) {
      const statuses: Record<number, number> = {};
      for (const generated of casesFor(method, template, operation, context, random, RUNS)) {
        const fuzzCase = freshKeys(stack.signWebhook(generated));
        const before = await tableFingerprint(stack.sql);
        const answer = await send(baseUrl, fuzzCase);
        calls++;
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        const found = problemsOf(method, template, answer).filter(
          (problem) =>
            !(
              answer.status === 503 &&
              problem === 'answered 503' &&
              INTENDED_503.has((answer.json as { error?: { code?: string } })?.error?.code ?? '')
            ),
        );
        if (fuzzCase.expectStatus && !fuzzCase.expectStatus.includes(answer.status))
          found.push(`expected ${fuzzCase.expectStatus.join(' or ')}`);
        if (answer.status >= 400 && answer.status < 500) {
          const changed = changedTables(before, await tableFingerprint(stack.sql));
          if (changed.length > 0) found.push(`a ${answer.status} wrote rows in ${changed.join(', ')}`);
        }
        for (const problem of found)
          problems.push(
            `${fuzzCase.method} ${template} [${fuzzCase.label}] → ${answer.status}: ${problem} ${answer.text.slice(0, 160)}`,
          );
      }
      tally.push(`${method.toUpperCase()} ${template}: ${JSON.stringify(statuses)}`);
    }
  // CONTRACT_FUZZ_REPORT=<file>: every problem on a line of its own, easier to read than a diff.
  if (process.env.CONTRACT_FUZZ_REPORT)
    appendFileSync(process.env.CONTRACT_FUZZ_REPORT, [...tally, ...problems].map((p) => `${p}\n`).join(''));
  return { calls, problems };
}

describe('contract fuzz', () => {
  it("the edge's description holds under bad input", async () => {
    const { calls, problems } = await fuzzDocument('edge', '/api/openapi.json');
    expect(calls).toBeGreaterThan(300);
    expect(problems).toEqual([]);
  });

  it("the core's description holds under bad input", async () => {
    const { calls, problems } = await fuzzDocument('core', '/openapi.json');
    expect(calls).toBeGreaterThan(300);
    expect(problems).toEqual([]);
  });

  it('catches a route that answers what it does not document: the broken variant', async () => {
    // One operation documented 200 and 404; the route answers 418 to a wrong type, 500 to a
    // deep body, a body off its schema to a missing field, and writes nothing anyway.
    const doc: FuzzDocument = {
      paths: {
        '/things/{thingId}': {
          put: {
            parameters: [{ name: 'thingId', in: 'path', required: true }],
            requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
            responses: {
              200: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
              404: {
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
                'x-error-codes': ['THING_NOT_FOUND'],
              },
            },
          },
        },
      },
      components: {
        schemas: {
          Thing: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          Error: { type: 'object', properties: { error: { type: 'object' } }, required: ['error'] },
        },
      },
    };
    const app = new Hono();
    app.onError((_, c) => c.json({ error: { code: 'INTERNAL' } }, 500)); // quietly: the 500s are the point
    app.put('/things/:thingId', async (c) => {
      if (c.req.param('thingId') !== '1') return c.json({ error: { code: 'THING_NOT_FOUND' } }, 404);
      const text = await c.req.text();
      if (text.startsWith('[[[')) return c.json({ error: { code: 'INTERNAL' } }, 500);
      const body = JSON.parse(text || '{}') as { name?: unknown };
      if (typeof body.name !== 'string' && body.name !== undefined) return c.json({ error: { code: 'TEAPOT' } }, 418);
      return c.json({ named: body.name ?? null }, 200);
    });
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const problemsOf = answerChecker(doc);
      const context: FuzzContext = {
        params: { thingId: '1' },
        unknownParams: { thingId: '2' },
        credentials: {},
        bodies: { Thing: { name: 'a thing' } },
      };
      const found = new Set<string>();
      for (const fuzzCase of casesFor(
        'put',
        '/things/{thingId}',
        doc.paths['/things/{thingId}']!.put!,
        context,
        seededRandom(1),
        2,
      )) {
        const answer = await send(baseUrl, fuzzCase);
        for (const problem of problemsOf('put', '/things/{thingId}', answer)) found.add(problem.replace(/:.*/s, ''));
      }
      expect([...found]).toEqual(
        expect.arrayContaining([
          'status 418 is not documented',
          'answered 500',
          'status 500 is not documented',
          'body',
        ]),
      );
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('sees a row written by a refusal: the fingerprint changes', async () => {
    const before = await tableFingerprint(stack.sql);
    await stack.sql`UPDATE venue SET city = city || '' , name = name || ' ' WHERE id = ${stack.world.venueId}`;
    expect(changedTables(before, await tableFingerprint(stack.sql))).toEqual(['venue']);
  });
});
