/**
 * Closing the loop with the core: events XADDed to the run's `booking-events` stream (the
 * relay's format, lib/booking-events.ts) give slots back at once or close the room; the
 * consumer is idempotent by eventId and resumes from its cursor after a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookingEventsStreamKey, encodeBookingEvent, type BookingEvent } from '../../lib/booking-events';
import { createMetricsRegistry } from '../src/metrics';
import { createBookingEventsConsumer } from '../src/rooms/booking-events-consumer';
import { createEdgeHarness, fastRoom, type EdgeHarness } from './edge-harness';

let edge: EdgeHarness;
beforeAll(async () => {
  edge = await createEdgeHarness();
});
afterAll(() => edge?.close());

let eventCounter = 0;
async function publish(event: Omit<BookingEvent, 'eventId' | 'occurredAt'> & { eventId?: string }) {
  const full: BookingEvent = {
    eventId: event.eventId ?? `evt-${process.pid}-${++eventCounter}`,
    occurredAt: new Date().toISOString(),
    ...event,
  } as BookingEvent;
  await edge.redis!.xadd(bookingEventsStreamKey(edge.keyPrefix), '*', ...encodeBookingEvent(full));
  return full.eventId;
}

async function admittedPair(showtimeId: number) {
  await edge.configureRoom(showtimeId, { ...fastRoom, capacity: 1 });
  const a = await edge.login(`ev-a-${showtimeId}`);
  const b = await edge.login(`ev-b-${showtimeId}`);
  expect((await edge.join(showtimeId, a.token)).json.state).toBe('admitted');
  const waiting = await edge.join(showtimeId, b.token);
  expect(waiting.json.state).toBe('waiting');
  return { a, b, queueTokenOfB: waiting.json.queueToken as string };
}

describe('booking events', () => {
  it.each([
    ['BookingConfirmed', {}],
    ['HoldReleased', { reason: 'confirmed' }],
  ] as const)('%s %o gives the slot back to the next buyer at once', async (type, extra) => {
    const showtimeId = edge.core.addShowtime();
    const { a, queueTokenOfB } = await admittedPair(showtimeId);
    await publish({ type, showtimeId, payload: { customerId: a.customerId, holdId: 'h1', ...extra } });
    await edge.consumer.pumpOnce();
    edge.app.rooms.invalidate(String(showtimeId));
    expect((await edge.poll(showtimeId, queueTokenOfB)).json.state).toBe('admitted');
  });

  it.each(['cancelled', 'expired'])(
    'a hold %s frees its seats, not the turn: the buyer holds again, the next one waits',
    async (reason) => {
      const showtimeId = edge.core.addShowtime();
      const { a, queueTokenOfB } = await admittedPair(showtimeId);
      const access = (await edge.join(showtimeId, a.token)).json.accessToken as string;
      const first = await edge.call('POST', `/api/showtimes/${showtimeId}/holds`, {
        token: access,
        body: { seats: ['A1'] },
      });
      expect(first.status).toBe(201);
      await publish({
        type: 'HoldReleased',
        showtimeId,
        payload: { customerId: a.customerId, holdId: first.json.holdId, reason },
      });
      await edge.consumer.pumpOnce();
      edge.app.rooms.invalidate(String(showtimeId));
      expect((await edge.poll(showtimeId, queueTokenOfB)).json.state).toBe('waiting');
      const again = await edge.call('POST', `/api/showtimes/${showtimeId}/holds`, {
        token: access,
        body: { seats: ['A2'] },
      });
      expect(again.status).toBe(201);
      const stats = await edge.deps.engine.stats(String(showtimeId));
      expect(stats.ok && stats.active).toBe(1);
    },
  );

  it('ShowtimeSoldOut closes the room and waiters are told', async () => {
    const showtimeId = edge.core.addShowtime();
    const { queueTokenOfB } = await admittedPair(showtimeId);
    await publish({ type: 'ShowtimeSoldOut', showtimeId, payload: {} });
    await edge.consumer.pumpOnce();
    expect((await edge.poll(showtimeId, queueTokenOfB)).json).toMatchObject({ state: 'sold_out', pollAfterMs: null });
    const late = await edge.login(`ev-late-${showtimeId}`);
    expect((await edge.join(showtimeId, late.token)).json).toMatchObject({ state: 'sold_out' });
  });

  it('applies a redelivered event once, and a restarted consumer resumes from its cursor', async () => {
    const showtimeId = edge.core.addShowtime();
    const { a, b } = await admittedPair(showtimeId);
    const eventId = await publish({ type: 'BookingConfirmed', showtimeId, payload: { customerId: a.customerId } });
    await edge.consumer.pumpOnce();
    // B is admitted now; a duplicate of A's event must not touch anyone else's session.
    const bPoll = await edge.call('POST', `/api/showtimes/${showtimeId}/queue`, { token: b.token });
    expect(bPoll.json.state).toBe('admitted');
    await publish({ eventId, type: 'BookingConfirmed', showtimeId, payload: { customerId: b.customerId } });
    await edge.consumer.pumpOnce();
    const stats = await edge.deps.engine.stats(String(showtimeId));
    expect(stats.ok && stats.active).toBe(1);

    const restarted = createBookingEventsConsumer({
      edgeStore: edge.edgeStore,
      engine: edge.deps.engine,
      metrics: edge.metrics,
      consumerName: 'test',
    });
    expect(await restarted.pumpOnce()).toBe(0);
    const fresh = createBookingEventsConsumer({
      edgeStore: edge.edgeStore,
      engine: edge.deps.engine,
      metrics: { ...edge.metrics, registry: createMetricsRegistry() },
      consumerName: 'another',
    });
    expect(await fresh.pumpOnce()).toBeGreaterThan(0);
  });
});
