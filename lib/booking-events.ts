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

export function encodeBookingEvent(event: BookingEvent): string[] {
  return [
    'eventId', event.eventId,
    'type', event.type,
    'showtimeId', String(event.showtimeId),
    'occurredAt', event.occurredAt,
    'payload', JSON.stringify(event.payload),
  ];
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
