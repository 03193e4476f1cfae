/**
 * Closes the loop with the core: reads the `booking-events` stream (XREAD from the last
 * seen id, the cursor kept in Redis per consumer so a restarted edge resumes) and gives
 * the admission slot back when a booking completes, and closes the room when the showtime
 * sells out. A hold that is cancelled or lapses frees its seats, not the turn: the buyer may
 * choose again until the turn itself ends (or they book, or leave). Idempotent by eventId: the relay delivers at
 * least once, and a duplicate release could otherwise free a later, new admission.
 */
import { compareStreamIds, decodeBookingEvent, streamIdMs, type BookingEvent } from '../../../lib/booking-events';
import type { RoomEngine } from '../../../queue/src/index';
import type { EdgeMetrics } from '../metrics';
import type { EdgeStore, StreamEntry } from '../state/edge-store';

export interface ConsumerLogger {
  error(object: object, message?: string): void;
}

export interface BookingEventsConsumerOptions {
  edgeStore: EdgeStore;
  engine: RoomEngine;
  metrics: EdgeMetrics;
  /** Consumers with the same name share a cursor (one logical reader per deployment). */
  consumerName?: string;
  batchSize?: number;
  dedupeTtlMs?: number;
  /** How far before its position a consumer that finds the stream behind it asks to be republished from. */
  republishMarginMs?: number;
  onRoomChanged?: (showtimeId: string) => void;
  /** The old way, an entry and three round trips at a time: only for a test's broken variant. */
  applyOneByOne?: boolean;
  logger?: ConsumerLogger;
}

/** Only a completed purchase ends the turn early; 'cancelled' and 'expired' leave it running. */
const RELEASING_REASONS = new Set(['confirmed']);

export function createBookingEventsConsumer(options: BookingEventsConsumerOptions) {
  const consumer = options.consumerName ?? 'edge';
  const batchSize = options.batchSize ?? 200;
  const dedupeTtlMs = options.dedupeTtlMs ?? 7 * 86_400_000;
  const republishMarginMs = options.republishMarginMs ?? 60_000;
  let cursor: string | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running = false;
  let pumping: Promise<number> | null = null;

  /** What an event asks of the room, or null for the many events that change nothing here. */
  function effectOf(event: BookingEvent): { kind: 'release'; customerId: string } | { kind: 'soldOut' } | null {
    if (event.type === 'ShowtimeSoldOut') return { kind: 'soldOut' };
    const customerId = event.payload.customerId;
    if (typeof customerId !== 'string') return null;
    if (event.type === 'BookingConfirmed') return { kind: 'release', customerId };
    if (event.type === 'HoldReleased' && RELEASING_REASONS.has(String(event.payload.reason)))
      return { kind: 'release', customerId };
    return null;
  }

  async function apply(event: BookingEvent): Promise<void> {
    const effect = effectOf(event)!;
    const showtimeId = String(event.showtimeId);
    if (effect.kind === 'soldOut') {
      await options.engine.markSoldOut(showtimeId);
      options.onRoomChanged?.(showtimeId);
    } else {
      await options.engine.release(showtimeId, effect.customerId);
    }
  }

  const counted = (events: BookingEvent[]) =>
    events.forEach((event) => options.metrics.bookingEvents.inc({ type: event.type }));

  /**
   * Applies a batch's events that matter in a few concurrent rounds instead of three round trips
   * per entry (which once took a minute to read through a replayed day): the dedupe marks of
   * the batch at once, then one release per customer and showtime and one close per showtime
   * at once (ioredis pipelines concurrent commands on its connection). A confirmation and its
   * HoldReleased name the same turn, so releasing it once is the same as twice. What fails has
   * its marks taken back and the batch is read again: what succeeded is then skipped as seen.
   */
  async function applyBatch(events: BookingEvent[]): Promise<void> {
    // Every event read is marked, those that change nothing here too: a mark is the edge's
    // receipt for an event (the fault suite counts published events without one as lost).
    const fresh = await Promise.all(events.map((event) => options.edgeStore.markSeen(event.eventId, dedupeTtlMs)));
    const groups = new Map<string, BookingEvent[]>();
    events.forEach((event, i) => {
      const effect = effectOf(event);
      if (!fresh[i] || !effect) return;
      const key =
        effect.kind === 'soldOut' ? `${event.showtimeId} sold out` : `${event.showtimeId} ${effect.customerId}`;
      groups.set(key, [...(groups.get(key) ?? []), event]);
    });
    const outcomes = await Promise.allSettled([...groups.values()].map((group) => apply(group[0]!)));
    const applied = [...groups.values()];
    counted(applied.filter((_, i) => outcomes[i]!.status === 'fulfilled').flat());
    const failed = applied.filter((_, i) => outcomes[i]!.status === 'rejected');
    if (failed.length === 0) return;
    await Promise.all(failed.flat().map((event) => options.edgeStore.forgetSeen(event.eventId).catch(() => {})));
    throw (outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult).reason;
  }

  /** One entry at a time, three round trips each: how the consumer once worked, for a test's broken variant. */
  async function applyOneByOne(entries: StreamEntry[]): Promise<void> {
    for (const entry of entries) {
      const event = decodeBookingEvent(entry.fields);
      if (event && (await options.edgeStore.markSeen(event.eventId, dedupeTtlMs))) {
        try {
          if (effectOf(event)) {
            await apply(event);
            counted([event]);
          }
        } catch (error) {
          await options.edgeStore.forgetSeen(event.eventId).catch(() => {});
          throw error;
        }
      }
      cursor = entry.id;
      await options.edgeStore.setCursor(consumer, entry.id);
    }
  }

  /**
   * Nothing new after our position: make sure the stream has not gone back behind it (Redis
   * restarted empty, or restored from an older snapshot). Entries past our position would then
   * be lost for good, and entries added from now on could carry ids below it and be skipped.
   * So ask the relay to publish again from our position (less a margin for clocks and relay
   * transactions; duplicates are deduped) and read on from where the stream now ends.
   */
  async function checkStreamBehind(position: string): Promise<void> {
    if (position === '0') return;
    const newest = await options.edgeStore.lastEventId();
    if (compareStreamIds(newest, position) >= 0) return;
    await options.edgeStore.requestRepublish(Math.max(0, streamIdMs(position) - republishMarginMs));
    options.logger?.error(
      { position, newest },
      'booking events: stream is behind our position (Redis lost data); asked for a republish',
    );
    cursor = newest;
    await options.edgeStore.setCursor(consumer, newest);
  }

  /** Reads and applies one batch; returns how many entries were read. */
  async function pumpBatch(): Promise<number> {
    cursor ??= (await options.edgeStore.getCursor(consumer)) ?? '0';
    const entries = await options.edgeStore.readEvents(cursor, batchSize);
    if (entries.length === 0) await checkStreamBehind(cursor);
    if (entries.length === 0) return 0;
    if (options.applyOneByOne) {
      await applyOneByOne(entries);
      return entries.length;
    }
    // Stop without moving the cursor if applying fails: the next round reads the batch again.
    await applyBatch(
      entries.map((entry) => decodeBookingEvent(entry.fields)).filter((event): event is BookingEvent => event !== null),
    );
    cursor = entries.at(-1)!.id;
    await options.edgeStore.setCursor(consumer, cursor);
    return entries.length;
  }

  /** Drains everything available now (Workers call this from waitUntil or a cron trigger). */
  function pumpOnce(): Promise<number> {
    pumping ??= (async () => {
      let total = 0;
      for (let read = batchSize; read === batchSize; total += read) read = await pumpBatch();
      return total;
    })().finally(() => (pumping = null));
    return pumping;
  }

  function schedule(intervalMs: number) {
    if (!running) return;
    timer = setTimeout(async () => {
      try {
        await pumpOnce();
      } catch (error) {
        // Redis down: keep the loop alive; recovery needs no restart.
        cursor = null;
        options.logger?.error({ err: error }, 'booking events: read failed');
      }
      schedule(intervalMs);
    }, intervalMs);
  }

  return {
    pumpOnce,
    start(intervalMs = 200) {
      if (running) return;
      running = true;
      schedule(intervalMs);
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      if (pumping) await pumping.catch(() => {});
    },
  };
}

export type BookingEventsConsumer = ReturnType<typeof createBookingEventsConsumer>;
