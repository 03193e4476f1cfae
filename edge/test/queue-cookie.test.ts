/**
 * The queue cookie lives exactly as long as the queue token it carries (QUEUE_TOKEN_TTL_MS),
 * so a browser neither keeps a dead token nor loses a live one.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEdgeHarness, type EdgeHarness } from './edge-harness';

const TTL_MS = 20 * 60_000;
let edge: EdgeHarness;

beforeAll(async () => {
  edge = await createEdgeHarness({ env: { QUEUE_TOKEN_TTL_MS: String(TTL_MS) } });
});
afterAll(async () => {
  await edge?.close();
});

it('sets the queue cookie for QUEUE_TOKEN_TTL_MS', async () => {
  const showtimeId = edge.core.addShowtime();
  const buyer = await edge.login('cookie-ttl');
  const joined = await edge.join(showtimeId, buyer.token);
  expect(joined.status).toBe(200);
  const queueCookie = (joined.headers.get('set-cookie') ?? '')
    .split(/,(?=\s*wr_)/)
    .find((cookie) => cookie.trim().startsWith('wr_q_'));
  expect(queueCookie).toBeDefined();
  expect(queueCookie).toContain(`Max-Age=${TTL_MS / 1000}`);
});
