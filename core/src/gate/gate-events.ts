/**
 * Booking events keep the seat gate in step with the database between checks: a hold created
 * (by any core, with or without the gate) holds its seats at the gate until its expiry, a hold
 * cancelled or lapsed frees them, a confirmed booking sells them, a refund or a cancellation
 * releases them. Each operation is guarded in the script (lua/gate-apply-5.lua) and each event
 * applied once per showtime (by eventId), so the at-least-once stream cannot undo a newer state.
 */
import {
  compareStreamIds,
  decodeBookingEvent,
  bookingEventsStreamKey,
  isReplayedEntry,
  type BookingEvent,
} from '../../../lib/booking-events';
import type { GateOp } from '../../../queue/src/index';
import type { SeatGate } from './seat-gate';

const seatsOf = (event: BookingEvent) => (Array.isArray(event.payload.seats) ? event.payload.seats.map(String) : []);

/** What an event tells the gate, seat by seat (nothing for events that move no seat). */
export function gateOpsForEvent(event: BookingEvent): GateOp[] {
  const { payload } = event;
  const seats = seatsOf(event);
  switch (event.type) {
    case 'HoldCreated': {
      const expiresAtMs = Date.parse(String(payload.expiresAt ?? ''));
      if (!payload.holdId || !payload.customerId || !Number.isFinite(expiresAtMs)) return [];
      return seats.map((seat) => ({
        op: 'held',
        seat,
        expiresAtMs,
        holdId: String(payload.holdId),
        customerId: String(payload.customerId),
      }));
    }
    case 'HoldReleased':
      // 'confirmed' is followed by BookingConfirmed, which sells the seats.
      if (payload.reason === 'confirmed' || !payload.holdId) return [];
      return seats.map((seat) => ({ op: 'freehold', seat, holdId: String(payload.holdId) }));
    case 'BookingConfirmed':
      if (!payload.bookingId || !payload.customerId) return [];
      return seats.map((seat) => ({
        op: 'sold',
        seat,
        bookingId: String(payload.bookingId),
        customerId: String(payload.customerId),
      }));
    case 'SeatsReleased':
      if (!payload.bookingId) return [];
      return seats.map((seat) => ({ op: 'freebooking', seat, bookingId: String(payload.bookingId) }));
    default:
      return [];
  }
}

/** Applies a batch of events to the gate, in stream order. */
export async function applyEventsToGate(gate: SeatGate, events: BookingEvent[]): Promise<void> {
  for (const event of events) {
    const ops = gateOpsForEvent(event);
    if (ops.length > 0) await gate.applyOps(event.showtimeId, ops, event.eventId);
  }
}

/** The commands the consumer needs from ioredis (a narrow port). */
export interface GateEventsRedis {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<unknown>;
  xrange(key: string, start: string, end: string, count: 'COUNT', n: number): Promise<[string, string[]][]>;
  xrevrange(key: string, end: string, start: string, count: 'COUNT', n: number): Promise<[string, string[]][]>;
}

/**
 * Reads the `booking-events` stream from the gate's cursor (kept in Redis, shared by the core's
 * instances; two instances reading the same entries apply them once) and applies them. A
 * missing cursor (first start, or Redis lost data, and the gate with it) starts at the stream's
 * end: a gate built from the database needs nothing older. A stream behind the cursor (Redis
 * restored from an older copy) is read on from its end; the checks repair what was missed.
 */
export function createGateEventsConsumer(options: {
  redis: GateEventsRedis;
  gate: SeatGate;
  keyPrefix?: string;
  batchSize?: number;
  onError?: (error: unknown) => void;
}) {
  const stream = bookingEventsStreamKey(options.keyPrefix ?? '');
  const cursorKey = options.gate.scripts.keys.gateEventsCursor;
  const batchSize = options.batchSize ?? 200;
  let timer: NodeJS.Timeout | null = null;
  let running = false;

  async function streamEnd(): Promise<string> {
    const [newest] = await options.redis.xrevrange(stream, '+', '-', 'COUNT', 1);
    return newest?.[0] ?? '0-0';
  }

  /** Reads and applies what is new; returns how many entries were read. */
  async function pumpOnce(): Promise<number> {
    let cursor = await options.redis.get(cursorKey);
    if (cursor === null) {
      await options.redis.set(cursorKey, await streamEnd());
      return 0;
    }
    let total = 0;
    for (;;) {
      const entries = await options.redis.xrange(stream, `(${cursor}`, '+', 'COUNT', batchSize);
      if (entries.length === 0) {
        const end = await streamEnd();
        if (compareStreamIds(end, cursor) < 0) await options.redis.set(cursorKey, end);
        return total;
      }
      // Replayed entries (Redis lost the stream; the relay sends the retained day again, newest
      // first) are history the gate was rebuilt past: applied out of order they could sell again
      // a seat a later refund freed.
      const events = entries
        .filter(([, fields]) => !isReplayedEntry(fields))
        .map(([, fields]) => decodeBookingEvent(fields))
        .filter((e): e is BookingEvent => e !== null);
      await applyEventsToGate(options.gate, events);
      cursor = entries.at(-1)![0];
      await options.redis.set(cursorKey, cursor);
      total += entries.length;
      if (entries.length < batchSize) return total;
    }
  }

  function schedule(intervalMs: number) {
    if (!running) return;
    timer = setTimeout(async () => {
      try {
        await pumpOnce();
      } catch (error) {
        options.onError?.(error);
      }
      schedule(intervalMs);
    }, intervalMs);
    timer.unref?.();
  }

  return {
    pumpOnce,
    start(intervalMs = 200) {
      if (running) return;
      running = true;
      schedule(intervalMs);
    },
    stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

export type GateEventsConsumer = ReturnType<typeof createGateEventsConsumer>;
