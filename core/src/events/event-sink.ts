import type { Redis } from 'ioredis';
import { bookingEventsStreamKey, encodeBookingEvent, type BookingEvent } from '../../../lib/booking-events';

/** Where the outbox relay publishes. Publishing must be idempotent-friendly: at least once. */
export interface BookingEventSink {
  publish(events: BookingEvent[]): Promise<void>;
}

/**
 * XADD to the `booking-events` stream, all events of a batch in one pipeline, trimmed
 * approximately so the stream cannot grow without bound (consumers dedupe on eventId).
 */
export function redisStreamSink(redis: Redis, options: { keyPrefix?: string; maxLength?: number } = {}): BookingEventSink {
  const key = bookingEventsStreamKey(options.keyPrefix ?? '');
  const maxLength = options.maxLength ?? 100_000;
  return {
    async publish(events) {
      if (events.length === 0) return;
      const pipeline = redis.pipeline();
      for (const event of events) pipeline.xadd(key, 'MAXLEN', '~', String(maxLength), '*', ...encodeBookingEvent(event));
      const results = await pipeline.exec();
      const failed = results?.find(([error]) => error);
      if (failed) throw failed[0];
    },
  };
}

/** In-process sink for the embedded default (no Redis): listeners get each batch. */
export function inProcessSink() {
  const listeners = new Set<(events: BookingEvent[]) => void>();
  return {
    async publish(events: BookingEvent[]) {
      for (const listener of listeners) listener(events);
    },
    subscribe(listener: (events: BookingEvent[]) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
