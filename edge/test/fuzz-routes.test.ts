/**
 * fast-check bodies and headers on every route: whatever arrives, the edge answers with a
 * deliberate status (never a 500) and a JSON error body when it refuses.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEdgeHarness, EDGE_ADMIN_TOKEN, fastRoom, type EdgeHarness } from './edge-harness';

let edge: EdgeHarness;
let showtimeId: number;
let customerToken: string;
let queueToken: string;
let accessToken: string;

beforeAll(async () => {
  edge = await createEdgeHarness();
  showtimeId = edge.core.addShowtime();
  await edge.configureRoom(showtimeId, { ...fastRoom, capacity: 1_000 });
  const buyer = await edge.login('fuzz-buyer');
  customerToken = buyer.token;
  const joined = await edge.join(showtimeId, customerToken);
  queueToken = joined.json.queueToken;
  accessToken = joined.json.accessToken;
});
afterAll(() => edge?.close());

const ROUTES: [string, string][] = [
  ['POST', '/api/auth/demo'],
  ['POST', '/api/showtimes/:id/queue'],
  ['GET', '/api/showtimes/:id/queue'],
  ['DELETE', '/api/showtimes/:id/queue'],
  ['GET', '/api/showtimes'],
  ['GET', '/api/showtimes/:id/seats'],
  ['POST', '/api/showtimes/:id/holds'],
  ['GET', '/api/holds/hold-1'],
  ['DELETE', '/api/holds/hold-1'],
  ['POST', '/api/holds/hold-1/checkout'],
  ['GET', '/api/bookings/b-1'],
  ['POST', '/api/payments/callback'],
  ['GET', '/api/admin/showtimes/:id/room'],
  ['PUT', '/api/admin/showtimes/:id/room'],
  ['GET', '/api/admin/showtimes/:id/room/audit'],
  ['GET', '/healthz'],
  ['GET', '/readyz'],
  ['GET', '/metrics'],
  ['GET', '/.well-known/jwks.json'],
];

const jsonish = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.json({ maxDepth: 3 }),
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
  fc.record({ customerId: fc.string({ maxLength: 140 }) }, { requiredKeys: [] }).map((value) => JSON.stringify(value)),
  fc
    .record(
      {
        capacity: fc.oneof(fc.integer(), fc.double(), fc.string()),
        state: fc.string(),
        sessionTtlSeconds: fc.integer(),
        opensAt: fc.string(),
      },
      { requiredKeys: [] },
    )
    .map((value) => JSON.stringify(value)),
  fc.record({ seats: fc.array(fc.string({ maxLength: 8 }), { maxLength: 10 }) }).map((value) => JSON.stringify(value)),
);

const headerValue = fc.string({ maxLength: 300 }).map((value) => value.replace(/[^\x20-\x7e]/g, ''));
const tokenChoice = () =>
  fc.oneof(
    fc.constant(undefined),
    headerValue,
    fc.constantFrom(customerToken, queueToken, accessToken, EDGE_ADMIN_TOKEN),
    fc
      .constantFrom(customerToken, queueToken, accessToken)
      .chain((token) => fc.nat({ max: token.length - 1 }).map((i) => token.slice(0, i) + 'x' + token.slice(i + 1))),
  );

describe('every route under generated input', () => {
  it.each(ROUTES)('%s %s never answers 500', async (method, pattern) => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          body: fc.option(jsonish, { nil: undefined }),
          contentType: fc.option(
            fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', ''),
            { nil: undefined },
          ),
          auth: tokenChoice(),
          queue: tokenChoice(),
          cookie: fc.option(headerValue, { nil: undefined }),
          requestId: fc.option(headerValue, { nil: undefined }),
          id: fc.oneof(fc.constant(String(showtimeId)), fc.stringMatching(/^[0-9a-z%.-]{1,20}$/)),
        }),
        async (input) => {
          const headers: Record<string, string> = { 'x-test-client': 'fuzz' };
          if (input.contentType !== undefined) headers['content-type'] = input.contentType;
          if (input.auth !== undefined) headers.authorization = `Bearer ${input.auth}`;
          if (input.queue !== undefined) headers['x-queue-token'] = input.queue;
          if (input.cookie !== undefined) headers.cookie = input.cookie;
          if (input.requestId !== undefined) headers['x-request-id'] = input.requestId;
          const path = pattern.replace(':id', input.id);
          const canHaveBody = method !== 'GET' && method !== 'HEAD';
          const response = await edge.app.request(path, {
            method,
            headers,
            ...(canHaveBody && input.body !== undefined ? { body: input.body } : {}),
          });
          const text = await response.text();
          expect(response.status, `${method} ${path} -> ${text}`).toBeLessThan(500);
          if (response.status >= 400) expect(JSON.parse(text).error.code).toEqual(expect.any(String));
        },
      ),
      { numRuns: 60 },
    );
  });
});
