/**
 * A buyer's whole path through the edge, on the real Redis and a stub core with the core's contract:
 * demo login, join, wait, get admitted, read the seat map, hold, cancel; plus leave, the
 * snapshot answering far-back polls, the room created from the core's catalog and /metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEdgeHarness, EDGE_ADMIN_TOKEN, fastRoom, type EdgeHarness } from './edge-harness';

let edge: EdgeHarness;

beforeAll(async () => {
  edge = await createEdgeHarness();
});
afterAll(async () => {
  await edge?.close();
});

describe('buyer flow through the edge', () => {
  it('creates the room from the catalog and admits the first buyer with an access token', async () => {
    const showtimeId = edge.core.addShowtime();
    const buyer = await edge.login('flow-a');
    const joined = await edge.join(showtimeId, buyer.token);
    expect(joined.status).toBe(200);
    expect(typeof joined.json.queueToken).toBe('string');
    expect(joined.headers.get('set-cookie')).toContain('HttpOnly');
    expect(joined.headers.get('x-request-id')).toBeTruthy();
    let answer = joined.json;
    for (let attempt = 0; answer.state !== 'admitted' && attempt < 30; attempt++) {
      // What the queue ticker does in production; the poll claims the offer.
      await edge.deps.engine.tick(String(showtimeId));
      await new Promise((resolve) => setTimeout(resolve, 200));
      answer = (await edge.poll(showtimeId, joined.json.queueToken)).json;
    }
    expect(answer).toMatchObject({ state: 'admitted' });
    expect(typeof answer.accessToken).toBe('string');

    const access = answer.accessToken as string;
    const seats = await edge.call('GET', `/api/showtimes/${showtimeId}/seats`, { token: access });
    expect(seats.status).toBe(200);
    const hold = await edge.call('POST', `/api/showtimes/${showtimeId}/holds`, {
      token: access,
      body: { seats: ['A1', 'A2'] },
    });
    expect(hold.status).toBe(201);
    const holdId = hold.json.holdId as string;
    const read = await edge.call('GET', `/api/holds/${holdId}`, { token: access });
    expect(read).toMatchObject({ status: 200, json: { holdId, showtimeId } });
    expect(edge.core.received.at(-1)!.headers['x-request-id']).toBe(read.headers.get('x-request-id'));
    const cancel = await edge.call('DELETE', `/api/holds/${holdId}`, { token: access });
    expect(cancel.status).toBe(204);
  });

  it('keeps later buyers waiting with a position, answers far-back polls from the snapshot, and lets them leave', async () => {
    const showtimeId = edge.core.addShowtime();
    await edge.configureRoom(showtimeId, { ...fastRoom, capacity: 1, abandonGraceMs: 1_000 });
    const tokens: string[] = [];
    for (let i = 0; i < 80; i++) {
      const buyer = await edge.login(`line-${showtimeId}-${i}`);
      const joined = await edge.join(showtimeId, buyer.token);
      expect(joined.status).toBe(200);
      tokens.push(joined.json.queueToken);
      if (i === 0) expect(joined.json.state).toBe('admitted');
      else expect(joined.json).toMatchObject({ state: 'waiting', position: i });
    }
    edge.app.rooms.invalidate(String(showtimeId)); // the joins kept one from before the line formed
    const before = edge.metrics.queuePolls.get({ source: 'snapshot' });
    const far = await edge.poll(showtimeId, tokens[79]!);
    expect(far.status).toBe(200);
    expect(far.json).toMatchObject({ state: 'waiting', position: 79 });
    expect(far.json.pollAfterMs).toBeGreaterThan(0);
    expect(far.json.etaSeconds).toBeGreaterThanOrEqual(0);
    expect(edge.metrics.queuePolls.get({ source: 'snapshot' })).toBe(before + 1);
    // The snapshot that answered also set the room gauges the alert rules read.
    const room = { showtime: String(showtimeId) };
    expect(edge.metrics.roomWaiting.get(room)).toBe(79);
    expect(edge.metrics.roomActive.get(room)).toBe(1);
    expect(edge.metrics.roomCapacity.get(room)).toBe(1);
    expect(edge.metrics.roomAdmitting.get(room)).toBe(1);
    const near = await edge.poll(showtimeId, tokens[1]!);
    expect(near.json).toMatchObject({ state: 'waiting', position: 1 });

    const last = await edge.login(`line-${showtimeId}-79`);
    const left = await edge.call('DELETE', `/api/showtimes/${showtimeId}/queue`, { token: last.token });
    expect(left).toMatchObject({ status: 200, json: { state: 'left', removed: true } });
    const gone = await edge.call('GET', `/api/showtimes/${showtimeId}/queue`, {
      headers: { 'x-queue-token': tokens[79]!, 'x-test-client': 'fresh' },
    });
    // The snapshot may still show the ticket for up to its TTL; Redis then says the place is gone.
    expect([200, 410]).toContain(gone.status);
  });

  it('a join with a fresh snapshot learns only its place from Redis: exact position, the ETA and id its first poll gets, a turn when one is free', async () => {
    const showtimeId = edge.core.addShowtime();
    await edge.configureRoom(showtimeId, { ...fastRoom, capacity: 2, admitPerMinute: 30, admitBurst: 2 });
    const rooms = edge.app.rooms;
    const joinAs = async (name: string) =>
      (await edge.join(showtimeId, (await edge.login(`${name}-${showtimeId}`)).token)).json;
    const first = await joinAs('snap-0'); // no snapshot yet in this process: the whole answer, and one is loaded
    expect(first.state).toBe('admitted');
    const standing = [];
    for (let i = 1; i <= 12; i++) standing.push(await joinAs(`snap-${i}`));
    // The second buyer got the second slot (a turn, through the full answer); the rest wait in order.
    expect(standing[0]).toMatchObject({ state: 'admitted' });
    const waiting = standing.slice(1);
    expect(waiting.map((a) => a.position)).toEqual(waiting.map((_a, i) => i + 1));
    for (const answer of waiting) {
      expect(answer).toMatchObject({ state: 'waiting', lineLength: expect.any(Number), queueId: expect.any(String) });
      expect(answer.lineLength).toBeGreaterThanOrEqual(answer.position);
    }
    // Later places wait longer (at 30 a minute, 11 places are well over 10 s).
    const etas = waiting.map((a) => a.etaSeconds as number);
    expect(etas).toEqual([...etas].sort((x, y) => x - y));
    expect(etas.at(-1)!).toBeGreaterThan(10);
    // The place, id and wait the join gave are what a poll from a newer snapshot says: the head
    // start the older snapshot counted went to the two first buyers, and the join knew it.
    const last = waiting.at(-1)!;
    rooms.invalidate(String(showtimeId));
    const polled = (await edge.poll(showtimeId, last.queueToken)).json;
    expect(polled).toMatchObject({ state: 'waiting', position: last.position, queueId: last.queueId });
    expect(Math.abs(polled.etaSeconds - last.etaSeconds)).toBeLessThanOrEqual(1);
    // Redis has the same place.
    const claims = await edge.deps.queueTokens.verify(last.queueToken);
    expect(await edge.deps.engine.poll(String(showtimeId), claims.customerId)).toMatchObject({
      ok: true,
      state: 'waiting',
      position: last.position,
    });
  });

  it('admits the next buyer when a slot is released, and reads the token from cookies', async () => {
    const showtimeId = edge.core.addShowtime();
    await edge.configureRoom(showtimeId, { ...fastRoom, capacity: 1 });
    const a = await edge.login(`rel-a-${showtimeId}`);
    const b = await edge.login(`rel-b-${showtimeId}`);
    expect((await edge.join(showtimeId, a.token)).json.state).toBe('admitted');
    const bJoin = await edge.join(showtimeId, b.token);
    expect(bJoin.json.state).toBe('waiting');
    await edge.deps.engine.release(String(showtimeId), a.customerId);
    const polled = await edge.call('GET', `/api/showtimes/${showtimeId}/queue`, {
      headers: { cookie: `wr_q_${showtimeId}=${bJoin.json.queueToken}` },
    });
    expect(polled.json.state).toBe('admitted');
    const seats = await edge.call('GET', `/api/showtimes/${showtimeId}/seats`, {
      headers: { cookie: `wr_a_${showtimeId}=${polled.json.accessToken}` },
    });
    expect(seats.status).toBe(200);
  });

  it('answers 404 for a showtime the core does not sell, and serves the showtime list without a token', async () => {
    const buyer = await edge.login('flow-404');
    expect((await edge.join(999_999_999, buyer.token)).status).toBe(404);
    const list = await edge.call('GET', '/api/showtimes');
    expect(list.status).toBe(200);
    expect(Array.isArray(list.json)).toBe(true);
  });

  it('serves the JWKS, health and Prometheus metrics with admission, queue and limiter counters', async () => {
    const jwks = await edge.call('GET', '/.well-known/jwks.json');
    expect(jwks.json.keys[0]).toMatchObject({ kty: 'EC', alg: 'ES256', use: 'sig' });
    expect(jwks.json.keys[0].d).toBeUndefined();
    expect((await edge.call('GET', '/healthz')).status).toBe(200);
    expect((await edge.call('GET', '/readyz')).json).toMatchObject({ redis: 'ok', core: 'ok' });
    expect((await edge.call('GET', '/metrics')).status).toBe(401); // operators only
    const metrics = await edge.call('GET', '/metrics', { token: EDGE_ADMIN_TOKEN });
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(metrics.text).toMatch(/^edge_admissions_total \d+$/m);
    expect(metrics.text).toContain('edge_queue_joins_total{state="waiting"}');
    expect(metrics.text).toContain('# TYPE edge_limiter_rejections_total counter');
  });
});
