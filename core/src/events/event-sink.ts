import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import {
  bookingEventsEpochKey, bookingEventsRepublishKey, bookingEventsStreamKey, encodeBookingEvent, type BookingEvent,
} from '../../../lib/booking-events';

/** What the transport says about events it may have lost since the last look. */
export interface DeliveryCheck {
  /** The stream's history is gone (Redis restarted empty or was flushed): publish the retained events again. */
  streamReset: boolean;
  /** A consumer found the stream behind its position: publish again what was published since (Unix ms). */
  republishFromMs: number | null;
}

/** Where the outbox relay publishes. Publishing must be idempotent-friendly: at least once. */
export interface BookingEventSink {
  publish(events: BookingEvent[]): Promise<void>;
  /** Transports that can lose what they accepted (Redis) tell the relay here; others leave it out. */
  checkDelivery?(): Promise<DeliveryCheck>;
}

/**
 * XADD to the `booking-events` stream, all events of a batch in one pipeline, trimmed
 * approximately so the stream cannot grow without bound (consumers dedupe on eventId).
 */
export function redisStreamSink(redis: Redis, options: { keyPrefix?: string; maxLength?: number } = {}): BookingEventSink {
  const key = bookingEventsStreamKey(options.keyPrefix ?? '');
  const epochKey = bookingEventsEpochKey(options.keyPrefix ?? '');
  const republishKey = bookingEventsRepublishKey(options.keyPrefix ?? '');
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
    async checkDelivery() {
      // One round trip, atomic: plant the epoch if it is gone, and take the consumers' requests.
      const results = await redis
        .multi()
        .set(epochKey, `${new Date().toISOString()} ${randomUUID()}`, 'NX')
        .zrange(republishKey, 0, 0, 'WITHSCORES')
        .del(republishKey)
        .exec();
      const failed = results?.find(([error]) => error);
      if (!results || failed) throw failed?.[0] ?? new Error('delivery check aborted');
      const earliest = results[1]![1] as string[];
      return {
        streamReset: results[0]![1] === 'OK',
        republishFromMs: earliest.length === 2 ? Number(earliest[1]) : null,
      };
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
