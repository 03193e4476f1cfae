/**
 * The short queue id and the length of the line in join and poll answers, whichever path
 * answers (Redis, the snapshot, the synchronous snapshot read the Node fast path uses), and
 * support's lookup of an id through the operator API: waiting, admitted, gone, mistyped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueAnswerBody } from '../src/rooms/room-gateway';
import { createEdgeHarness, EDGE_ADMIN_TOKEN, fastRoom, type EdgeHarness } from './edge-harness';

let edge: EdgeHarness;
beforeAll(async () => {
  edge = await createEdgeHarness();
});
afterAll(async () => {
  await edge?.close();
});

const QUEUE_ID = /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/;
const lookup = (showtimeId: number, queueId: string, token = EDGE_ADMIN_TOKEN) =>
  edge.call('GET', `/api/admin/showtimes/${showtimeId}/room/queue-ids/${encodeURIComponent(queueId)}`, { token });

describe('queue ids and the length of the line', () => {
  it("every answer names the whole line and the buyer's own id, the same on every path", async () => {
    const showtimeId = edge.core.addShowtime();
    await edge.configureRoom(showtimeId, { ...fastRoom, capacity: 1 });
    const answers = [];
    for (let i = 0; i < 6; i++) {
      const buyer = await edge.login(`qid-${showtimeId}-${i}`);
      answers.push((await edge.join(showtimeId, buyer.token)).json);
    }
    expect(answers[0]).toMatchObject({ state: 'admitted' });
    expect(answers[0]!.queueId).toMatch(QUEUE_ID);
    expect(answers[5]).toMatchObject({ state: 'waiting', position: 5, lineLength: 5 });
    const ids = answers.map((a) => a.queueId as string);
    for (const id of ids) expect(id).toMatch(QUEUE_ID);
    expect(new Set(ids).size).toBe(6);

    const last = answers[5]!.queueToken as string;
    edge.app.rooms.invalidate(String(showtimeId)); // the joins kept one from before the line formed
    const first = await edge.poll(showtimeId, last); // fills the snapshot
    const again = await edge.poll(showtimeId, last);
    for (const poll of [first, again])
      expect(poll.json).toMatchObject({ state: 'waiting', position: 5, lineLength: 5, queueId: ids[5] });
    const claims = await edge.deps.queueTokens.verify(last);
    const fast = edge.app.rooms.pollFromFreshSnapshot(String(showtimeId), claims.customerId, claims.ticket);
    expect(fast && queueAnswerBody(fast)).toEqual({
      state: 'waiting',
      position: 5,
      etaSeconds: expect.any(Number),
      lineLength: 5,
      queueId: ids[5],
      pollAfterMs: expect.any(Number),
    });
  });

  it('the pre-queue hears how many wait, and gets its id once the opening draw places it', async () => {
    const showtimeId = edge.core.addShowtime();
    await edge.configureRoom(showtimeId, { ...fastRoom, state: 'scheduled', opensAtMs: Date.now() + 3_600_000 });
    const a = (await edge.join(showtimeId, (await edge.login(`pre-${showtimeId}-a`)).token)).json;
    const b = (await edge.join(showtimeId, (await edge.login(`pre-${showtimeId}-b`)).token)).json;
    expect(a).toMatchObject({ state: 'prequeue', lineLength: 1 });
    expect(b).toMatchObject({ state: 'prequeue', lineLength: 2 });
    expect(b.queueId).toBeUndefined();
    await edge.configureRoom(showtimeId, { state: 'open' });
    const placed = await edge.poll(showtimeId, b.queueToken);
    expect(placed.json.queueId).toMatch(QUEUE_ID);
  });

  it('support looks an id up: who waits with it and where, who holds a turn with it, or that it is gone', async () => {
    const showtimeId = edge.core.addShowtime();
    await edge.configureRoom(showtimeId, { ...fastRoom, capacity: 1 });
    const admitted = (await edge.join(showtimeId, (await edge.login(`sup-${showtimeId}-a`)).token)).json;
    const waiting = (await edge.join(showtimeId, (await edge.login(`sup-${showtimeId}-b`)).token)).json;
    const leaver = await edge.login(`sup-${showtimeId}-c`);
    const gone = (await edge.join(showtimeId, leaver.token)).json;
    expect(admitted.state).toBe('admitted');

    const found = await lookup(showtimeId, (waiting.queueId as string).toLowerCase().replace('-', ' '));
    expect(found).toMatchObject({
      status: 200,
      json: {
        showtimeId: String(showtimeId),
        queueId: waiting.queueId,
        status: 'waiting',
        customerId: `sup-${showtimeId}-b`,
        position: 1,
        lineLength: 2,
      },
    });
    expect((await lookup(showtimeId, admitted.queueId)).json).toMatchObject({
      status: 'admitted',
      customerId: `sup-${showtimeId}-a`,
      position: null,
      turnExpiresAt: expect.any(String),
    });
    await edge.call('DELETE', `/api/showtimes/${showtimeId}/queue`, { token: leaver.token });
    expect((await lookup(showtimeId, gone.queueId)).json).toMatchObject({ status: 'not_in_line', customerId: null });

    // A mistyped id is refused (the keyed check), not read as someone else's place.
    const id = waiting.queueId as string;
    const typo = `${id.slice(0, 8)}${id[8] === '0' ? '1' : '0'}`;
    expect(await lookup(showtimeId, typo)).toMatchObject({
      status: 404,
      json: { error: { code: 'QUEUE_ID_NOT_FOUND' } },
    });
    expect(await lookup(showtimeId, 'hello')).toMatchObject({
      status: 404,
      json: { error: { code: 'QUEUE_ID_NOT_FOUND' } },
    });
    // Another showtime's id names nobody here; buyers cannot look ids up.
    const other = edge.core.addShowtime();
    await edge.configureRoom(other, { ...fastRoom, capacity: 1 });
    expect((await lookup(other, id)).json.customerId ?? null).toBeNull();
    expect((await lookup(showtimeId, id, (await edge.login('sup-buyer')).token)).status).toBe(401);
  });
});
