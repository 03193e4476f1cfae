/**
 * The operator's fare, seat-class and refund-policy relays refuse what the core must never
 * see: JSON nested past the guard's depth, NUL and lone surrogates in any string. Each is a
 * 422 VALIDATION_FAILED naming the path, and the core is not called. The broken variant (the
 * relay's old plain JSON.parse) is the same file with the guard switched off: the body is
 * relayed, and the deep one fails the relay itself (the 500/503 a fuzzer found).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createEdgeHarness, EDGE_ADMIN_TOKEN, type EdgeHarness } from './edge-harness';

const guard = vi.hoisted(() => ({ off: false }));
vi.mock('../../lib/json-guard', async (original) => {
  const real = await original<typeof import('../../lib/json-guard')>();
  return {
    ...real,
    parseSafeJson: (text: string) => (guard.off ? (JSON.parse(text) as unknown) : real.parseSafeJson(text)),
  };
});

let h: EdgeHarness;
let relayed: string[] = [];

beforeAll(async () => {
  h = await createEdgeHarness({
    store: 'memory',
    // A core that accepts anything on the operator routes, so only the edge's own refusal shows.
    coreFetch: (stub) =>
      (async (input: string | URL | Request, init?: RequestInit) => {
        const request = new Request(input, init);
        const path = new URL(request.url).pathname;
        if (/\/(fares|seat-classes|refund-policy)/.test(path)) {
          relayed.push(`${request.method} ${path}`);
          return Response.json({ ok: true });
        }
        return stub.fetch(request);
      }) as typeof fetch,
  });
});
afterAll(() => h?.close());
beforeEach(() => {
  relayed = [];
  guard.off = false;
});

const routes = [
  '/api/admin/showtimes/7/fares/GA_FLOOR',
  '/api/admin/showtimes/7/seat-classes',
  '/api/admin/showtimes/7/refund-policy',
];
const deep = `{"label":${'['.repeat(5_000)}${']'.repeat(5_000)}}`;
const put = (path: string, rawBody: string) => h.call('PUT', path, { token: EDGE_ADMIN_TOKEN, rawBody });

describe('operator relays refuse unsafe JSON before the core sees it', () => {
  it('a 10 KB body nested 5,000 deep: 422 naming the path, nothing relayed', async () => {
    for (const path of routes) {
      const answer = await put(path, deep);
      expect(answer.status, path).toBe(422);
      expect(answer.json.error.code).toBe('VALIDATION_FAILED');
      expect(answer.json.error.issues[0].path).toMatch(/^label(\.0)+$/);
    }
    expect(relayed).toEqual([]);
  });

  it('a NUL or a lone surrogate in a string: 422 naming the field, nothing relayed', async () => {
    const nul = await put(routes[0]!, JSON.stringify({ label: 'Floor\u0000', priceCents: 100 }));
    expect(nul.status).toBe(422);
    expect(nul.json.error).toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ path: 'label' }] });
    const lone = await put(routes[1]!, '{"seats":["A1"],"fareClass":"VIP","note":"\\udc00"}');
    expect(lone.status).toBe(422);
    expect(lone.json.error.issues[0].path).toBe('note');
    expect(relayed).toEqual([]);
    // A body that is fine still goes through.
    expect((await put(routes[2]!, JSON.stringify({ tiers: [] }))).status).toBe(200);
    expect(relayed).toEqual(['PUT /admin/showtimes/7/refund-policy']);
  });

  it('broken variant: with the old plain JSON.parse the unsafe bodies reach the core or fail the relay', async () => {
    guard.off = true;
    const nul = await put(routes[0]!, JSON.stringify({ label: 'Floor\u0000', priceCents: 100 }));
    expect(nul.status).not.toBe(422);
    expect(relayed).toContain('PUT /admin/showtimes/7/fares/GA_FLOOR');
    const deepAnswer = await put(routes[2]!, deep);
    expect(deepAnswer.status).toBeGreaterThanOrEqual(500);
  });
});
