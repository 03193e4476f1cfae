/**
 * The core's event stream, as other parts read it. The core writes each event to its outbox in
 * the same transaction as the change, and a relay publishes it at least once to the Redis
 * Stream `booking-events` (XADD, one entry per event). Consumers must be idempotent: dedupe on
 * `eventId`, which is unique and never reused.
 *
 * Stream entry fields (all strings): eventId, type, showtimeId, occurredAt (ISO), payload (JSON).
 */
export const BOOKING_EVENTS_STREAM = 'booking-events';

export type BookingEventType =
  | 'HoldCreated'
  | 'HoldReleased'
  | 'BookingConfirmed'
  | 'BookingFailed'
  | 'RefundRequested'
  | 'SeatsReleased'
  | 'ShowtimeSoldOut';

export interface BookingEvent {
  eventId: string;
  type: BookingEventType;
  showtimeId: number;
  occurredAt: string;
  payload: BookingEventPayload;
}

/** Fields present depend on the type; customerId is set on every hold and booking event. */
export interface BookingEventPayload {
  customerId?: string;
  holdId?: string;
  bookingId?: string;
  paymentId?: string;
  seats?: string[];
  /** HoldReleased: 'cancelled' | 'expired' | 'confirmed'; SeatsReleased: 'refund' | 'expired' | … */
  reason?: string;
  amountCents?: number;
  currency?: string;
  [key: string]: unknown;
}

/** Stream key, optionally under a namespace prefix (tests, several environments on one Redis). */
export const bookingEventsStreamKey = (prefix = '') => `${prefix}${BOOKING_EVENTS_STREAM}`;

/**
 * Recovery when Redis loses data (restarted without persistence, restored from an older
 * snapshot). The outbox keeps published events for a retention period, so they can be sent again:
 * - the epoch key is set (NX) by the relay next to the stream; finding it gone means the
 *   stream's history is gone, and the relay publishes every retained event again;
 * - the republish key is a sorted set of times (Unix ms) a consumer asks to be republished
 *   from, when it finds the stream behind the position it had already read (the stream went
 *   back in time); the relay takes the earliest and publishes again what it published since.
 */
export const bookingEventsEpochKey = (prefix = '') => `${prefix}${BOOKING_EVENTS_STREAM}:epoch`;
export const bookingEventsRepublishKey = (prefix = '') => `${prefix}${BOOKING_EVENTS_STREAM}:republish`;
/**
 * The relay's replay of retained events after such a loss: this key names the current replay,
 * and `<this key>:<token>` holds its progress (core/src/events/replay-ledger.ts). Kept beside the
 * stream on purpose: a Redis that loses the stream loses the replay too, and starts a new one.
 */
export const bookingEventsReplayKey = (prefix = '') => `${prefix}${BOOKING_EVENTS_STREAM}:replay`;

/** Milliseconds part of a stream entry id (`<ms>-<seq>`), 0 for anything else. */
export function streamIdMs(id: string): number {
  const ms = Number(id.split('-')[0]);
  return Number.isFinite(ms) ? ms : 0;
}

/** Orders two stream ids (`<ms>-<seq>`): negative, zero or positive like a comparator. */
export function compareStreamIds(a: string, b: string): number {
  const [aMs = 0, aSeq = 0] = a.split('-').map(Number);
  const [bMs = 0, bSeq = 0] = b.split('-').map(Number);
  return aMs === bMs ? aSeq - bSeq : aMs - bMs;
}

/**
 * `replayed: true` marks an entry the relay sent again after Redis lost the stream (README,
 * "When Redis loses data"): an extra field `replayed` = `1`, which readers that need only what
 * happens from now on (the seat gate, rebuilt from the database) skip.
 */
export function encodeBookingEvent(event: BookingEvent, options: { replayed?: boolean } = {}): string[] {
  const fields = [
    'eventId',
    event.eventId,
    'type',
    event.type,
    'showtimeId',
    String(event.showtimeId),
    'occurredAt',
    event.occurredAt,
    'payload',
    JSON.stringify(event.payload),
  ];
  if (options.replayed) fields.push('replayed', '1');
  return fields;
}

/** True for an entry the relay replayed (see encodeBookingEvent). */
export function isReplayedEntry(fields: string[]): boolean {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === 'replayed') return fields[i + 1] === '1';
  return false;
}

/** Decodes an XREAD/XRANGE field list; returns null for entries that are not ours or are malformed. */
export function decodeBookingEvent(fields: string[]): BookingEvent | null {
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) record[fields[i]!] = fields[i + 1]!;
  const showtimeId = Number(record.showtimeId);
  if (!record.eventId || !record.type || !Number.isSafeInteger(showtimeId)) return null;
  try {
    return {
      eventId: record.eventId,
      type: record.type as BookingEventType,
      showtimeId,
      occurredAt: record.occurredAt ?? '',
      payload: JSON.parse(record.payload ?? '{}') as BookingEventPayload,
    };
  } catch {
    return null;
  }
}
