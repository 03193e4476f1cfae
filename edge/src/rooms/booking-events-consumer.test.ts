import { describe, expect, it } from 'vitest';
import { encodeBookingEvent, type BookingEvent } from '../../../lib/booking-events';
import type { RoomEngine } from '../../../queue/src/index';
import type { EdgeMetrics } from '../metrics';
import { createMemoryEdgeStore } from '../state/memory-edge-store';
import { createBookingEventsConsumer } from './booking-events-consumer';

/**
 * The batched apply on the in-process store (the embedded `npm start`): what reaches the room
 * engine, and what happens when the engine fails part of a batch.
 */
let counter = 0;
const event = (type: BookingEvent['type'], customerId: string, extra: Record<string, unknown> = {}): BookingEvent => ({
  eventId: `e-${++counter}`,
  type,
  showtimeId: 7,
  occurredAt: new Date().toISOString(),
  payload: { customerId, ...extra },
});

function setUp(options: { failOnce?: string; applyOneByOne?: boolean } = {}) {
  const store = createMemoryEdgeStore();
  const released: string[] = [];
  let failing = options.failOnce;
  const engine = {
    async release(_showtimeId: string, customerId: string) {
      if (customerId === failing) {
        failing = undefined;
        throw new Error('Redis timed out');
      }
      released.push(customerId);
      return { ok: true, freed: true };
    },
    async markSoldOut() {
      released.push('sold out');
      return { ok: true };
    },
  } as unknown as RoomEngine;
  const consumer = createBookingEventsConsumer({
    edgeStore: store,
    engine,
    metrics: { bookingEvents: { inc() {} } } as unknown as EdgeMetrics,
    applyOneByOne: options.applyOneByOne,
  });
  const publish = (...events: BookingEvent[]) => events.forEach((e) => store.publishEvent(encodeBookingEvent(e)));
  return { consumer, released, publish };
}

describe('booking events consumer, batched', () => {
  it('one release per customer a batch; holds, cancels and expiries release nothing; sold out closes once', async () => {
    const { consumer, released, publish } = setUp();
    publish(
      event('HoldCreated', 'ann'),
      event('HoldReleased', 'ann', { reason: 'confirmed' }),
      event('BookingConfirmed', 'ann'),
      event('HoldReleased', 'bob', { reason: 'cancelled' }),
      event('HoldReleased', 'cy', { reason: 'expired' }),
      event('BookingConfirmed', 'dee'),
      event('ShowtimeSoldOut', 'x'),
      event('ShowtimeSoldOut', 'x'),
    );
    await consumer.pumpOnce();
    expect(released.sort()).toEqual(['ann', 'dee', 'sold out']);
  });

  it('a release that fails is applied on the next read; those that succeeded are not applied twice', async () => {
    const { consumer, released, publish } = setUp({ failOnce: 'bob' });
    publish(event('BookingConfirmed', 'ann'), event('BookingConfirmed', 'bob'), event('BookingConfirmed', 'cy'));
    await expect(consumer.pumpOnce()).rejects.toThrow('Redis timed out');
    expect(released.sort()).toEqual(['ann', 'cy']);
    await consumer.pumpOnce();
    expect(released.sort()).toEqual(['ann', 'bob', 'cy']);
    publish(event('BookingConfirmed', 'dee'));
    await consumer.pumpOnce();
    expect(released.sort()).toEqual(['ann', 'bob', 'cy', 'dee']);
  });
});
