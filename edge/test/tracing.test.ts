/**
 * W3C trace propagation at the edge (real Redis, a stub core with the core's contract): the
 * core receives the caller's trace under the edge's own span, or a new trace when the caller
 * sent none or an invalid one. The core and the gateway side are in core/test/http/tracing.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEdgeHarness, type EdgeHarness } from './edge-harness';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

let edge: EdgeHarness;

beforeAll(async () => {
  edge = await createEdgeHarness();
});
afterAll(async () => {
  await edge?.close();
});

async function admitted(showtimeId: number) {
  const buyer = await edge.login(`trace-${showtimeId}`);
  let answer = (await edge.join(showtimeId, buyer.token)).json;
  for (let attempt = 0; answer.state !== 'admitted' && attempt < 30; attempt++) {
    await edge.deps.engine.tick(String(showtimeId));
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = (await edge.poll(showtimeId, answer.queueToken)).json;
  }
  expect(answer.state).toBe('admitted');
  return answer.accessToken as string;
}

const lastTraceparent = () => {
  const header = edge.core.received.at(-1)!.headers['traceparent'];
  expect(header).toMatch(TRACEPARENT);
  const [, traceId, parentId, flags] = TRACEPARENT.exec(header!)!;
  return { traceId, parentId, flags };
};

describe('traceparent from the edge to the core', () => {
  it("a hold continues the caller's trace, with the edge's span as the core's parent", async () => {
    const showtimeId = edge.core.addShowtime();
    const access = await admitted(showtimeId);
    const hold = await edge.call('POST', `/api/showtimes/${showtimeId}/holds`, {
      token: access,
      body: { seats: ['A1'] },
      headers: { traceparent: `00-${TRACE}-${CLIENT_SPAN}-01` },
    });
    expect(hold.status).toBe(201);
    const sent = lastTraceparent();
    expect(sent).toMatchObject({ traceId: TRACE, flags: '01' });
    expect(sent.parentId).not.toBe(CLIENT_SPAN);
  });

  it('starts a new trace when the caller sent none, or an invalid one, and a new span per request', async () => {
    const showtimeId = edge.core.addShowtime();
    const access = await admitted(showtimeId);
    await edge.call('GET', `/api/showtimes/${showtimeId}/seats`, { token: access, headers: { 'x-test-client': 'a' } });
    const first = lastTraceparent();
    await edge.call('GET', `/api/holds/00000000-0000-4000-8000-000000000000`, {
      token: access,
      headers: { traceparent: `00-${'0'.repeat(32)}-${CLIENT_SPAN}-01` },
    });
    const second = lastTraceparent();
    expect(first.flags).toBe('01');
    expect(second.traceId).not.toBe('0'.repeat(32));
    expect(second.traceId).not.toBe(first.traceId);
    expect(second.parentId).not.toBe(first.parentId);
  });
});
