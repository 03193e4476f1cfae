import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import {
  bookingEventsEpochKey, bookingEventsRepublishKey, bookingEventsStreamKey, compareStreamIds, encodeBookingEvent, streamIdMs,
  type BookingEvent,
} from '../../../lib/booking-events';

/** Republish from this long before the stream's end when it went back (relay transactions, clocks). */
const REWIND_MARGIN_MS = 60_000;

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
 * The key prefix is required, not defaulted: a core that left it out once published to a
 * stream nobody read, so every caller says which namespace it means (the config's
 * REDIS_KEY_PREFIX, empty for none).
 */
export function redisStreamSink(redis: Redis, options: { keyPrefix: string; maxLength?: number }): BookingEventSink {
  const key = bookingEventsStreamKey(options.keyPrefix);
  const epochKey = bookingEventsEpochKey(options.keyPrefix);
  const republishKey = bookingEventsRepublishKey(options.keyPrefix);
  const maxLength = options.maxLength ?? 100_000;
  /** Id of the last entry this process added; compared with the stream's newest at each check. */
  let lastPublishedId: string | null = null;
  return {
    async publish(events) {
      if (events.length === 0) return;
      const pipeline = redis.pipeline();
      for (const event of events) pipeline.xadd(key, 'MAXLEN', '~', String(maxLength), '*', ...encodeBookingEvent(event));
      const results = await pipeline.exec();
      const failed = results?.find(([error]) => error);
      if (failed) throw failed[0];
      const newest = results?.at(-1)?.[1];
      if (typeof newest === 'string') lastPublishedId = newest;
    },
    async checkDelivery() {
      // One round trip, atomic: plant the epoch if it is gone, take the consumers' requests,
      // and read the stream's newest entry.
      const results = await redis
        .multi()
        .set(epochKey, `${new Date().toISOString()} ${randomUUID()}`, 'NX')
        .zrange(republishKey, 0, 0, 'WITHSCORES')
        .del(republishKey)
        .xrevrange(key, '+', '-', 'COUNT', 1)
        .exec();
      const failed = results?.find(([error]) => error);
      if (!results || failed) throw failed?.[0] ?? new Error('delivery check aborted');
      const earliest = results[1]![1] as string[];
      let republishFromMs = earliest.length === 2 ? Number(earliest[1]) : null;
      // The stream ends before what this relay itself published last: Redis went back in time
      // (restored from an append-only file or snapshot a moment older than its crash) and kept
      // the epoch, so only this comparison sees it. Publish again from where the stream ends.
      const newest = (results[3]![1] as [string, string[]][])[0]?.[0] ?? '0-0';
      if (lastPublishedId && compareStreamIds(newest, lastPublishedId) < 0) {
        const fromMs = Math.max(0, streamIdMs(newest) - REWIND_MARGIN_MS);
        republishFromMs = republishFromMs === null ? fromMs : Math.min(republishFromMs, fromMs);
        lastPublishedId = null;
      }
      return { streamReset: results[0]![1] === 'OK', republishFromMs };
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
