import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import {
  bookingEventsEpochKey,
  bookingEventsRepublishKey,
  bookingEventsStreamKey,
  compareStreamIds,
  encodeBookingEvent,
  streamIdMs,
  type BookingEvent,
} from '../../../lib/booking-events';
import { redisReplayLedger, widenReplay, type Replay } from './replay-ledger';

/** Republish from this long before the stream's end when it went back (relay transactions, clocks). */
const REWIND_MARGIN_MS = 60_000;

/** What the transport says about events it may have lost since the last look. */
export interface DeliveryCheck {
  /** The stream's history is gone (Redis restarted empty or was flushed): the retained events go again. */
  streamReset: boolean;
  /** A consumer found the stream behind its position, or the stream went back: events since then (Unix ms) go again. */
  republishFromMs: number | null;
  /** The replay to continue (started now or by an earlier pass), or null when nothing is owed. */
  replay: Replay | null;
}

/** Where the outbox relay publishes. Publishing must be idempotent-friendly: at least once. */
export interface BookingEventSink {
  /** `replayed`: the events are sent again after a loss (the entries say so; see encodeBookingEvent). */
  publish(events: BookingEvent[], options?: { replayed?: boolean }): Promise<void>;
  /**
   * Transports that can lose what they accepted (Redis) tell the relay here, and record a
   * replay for what was lost before they acknowledge the loss; others leave it out.
   */
  checkDelivery?(options: { retentionMs: number }): Promise<DeliveryCheck>;
  /** Records a replay's progress (`null`: done). */
  advanceReplay?(replay: Replay, belowId: number | null): Promise<void>;
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
  const replays = redisReplayLedger(redis, options.keyPrefix);
  /** Id of the last entry this process added; compared with the stream's newest at each check. */
  let lastPublishedId: string | null = null;
  return {
    async publish(events, publishOptions = {}) {
      if (events.length === 0) return;
      const pipeline = redis.pipeline();
      for (const event of events)
        pipeline.xadd(key, 'MAXLEN', '~', String(maxLength), '*', ...encodeBookingEvent(event, publishOptions));
      const results = await pipeline.exec();
      const failed = results?.find(([error]) => error);
      if (failed) throw failed[0];
      const newest = results?.at(-1)?.[1];
      if (typeof newest === 'string') lastPublishedId = newest;
    },
    async checkDelivery({ retentionMs }) {
      // One round trip, atomic: is the epoch there, what did consumers ask for, where does the
      // stream end, which replay is running.
      const results = await redis
        .multi()
        .exists(epochKey)
        .zrange(republishKey, 0, -1, 'WITHSCORES')
        .xrevrange(key, '+', '-', 'COUNT', 1)
        .get(replays.pointerKey)
        .exec();
      const failed = results?.find(([error]) => error);
      if (!results || failed) throw failed?.[0] ?? new Error('delivery check aborted');
      const streamReset = results[0]![1] === 0;
      const requests = results[1]![1] as string[];
      const requestedFrom = requests.filter((_, i) => i % 2 === 1).map(Number);
      let republishFromMs = requestedFrom.length > 0 ? Math.min(...requestedFrom) : null;
      // The stream ends before what this relay itself published last: Redis went back in time
      // (restored from an append-only file or snapshot a moment older than its crash) and kept
      // the epoch, so only this comparison sees it. Publish again from where the stream ends.
      const newest = (results[2]![1] as [string, string[]][])[0]?.[0] ?? '0-0';
      if (lastPublishedId && compareStreamIds(newest, lastPublishedId) < 0) {
        const fromMs = Math.max(0, streamIdMs(newest) - REWIND_MARGIN_MS);
        republishFromMs = republishFromMs === null ? fromMs : Math.min(republishFromMs, fromMs);
        lastPublishedId = null;
      }
      let replay = await replays.readProgress(results[3]![1] as string | null);
      const now = Date.now();
      const lostFromMs = Math.min(streamReset ? now - retentionMs : Infinity, republishFromMs ?? Infinity);
      if (Number.isFinite(lostFromMs)) {
        // Rows published up to now (plus the margin for the database's clock) go again.
        const next = widenReplay(replay, { fromMs: lostFromMs, untilMs: now + REWIND_MARGIN_MS });
        const tx = replays.queueStart(redis.multi(), next, replay);
        const members = requests.filter((_, i) => i % 2 === 0);
        if (members.length > 0) tx.zrem(republishKey, ...members);
        // One transaction records the replay and acknowledges the loss (epoch back, requests
        // taken): a relay that dies before it finds the loss again and starts over.
        const done = await tx.set(epochKey, `${new Date(now).toISOString()} ${randomUUID()}`, 'NX').exec();
        const refused = done?.find(([error]) => error);
        if (!done || refused) throw refused?.[0] ?? new Error('replay start aborted');
        replay = next;
      }
      return { streamReset, republishFromMs, replay };
    },
    advanceReplay: (replay, belowId) => replays.advance(replay, belowId),
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
