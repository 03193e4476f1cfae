import { describe, expect, it } from 'vitest';
import type { BookingEvent } from '../../../lib/booking-events';
import { gateOpsForEvent } from './gate-events';

const event = (type: BookingEvent['type'], payload: BookingEvent['payload']): BookingEvent => ({
  eventId: 'e',
  type,
  showtimeId: 7,
  occurredAt: '2026-01-01T00:00:00.000Z',
  payload,
});

describe('booking events as gate operations', () => {
  it('a hold created holds its seats until its expiry', () => {
    expect(
      gateOpsForEvent(
        event('HoldCreated', {
          holdId: 'h',
          customerId: 'c',
          seats: ['A1', 'A2'],
          expiresAt: '2026-01-01T00:10:00.000Z',
        }),
      ),
    ).toEqual([
      { op: 'held', seat: 'A1', expiresAtMs: Date.parse('2026-01-01T00:10:00.000Z'), holdId: 'h', customerId: 'c' },
      { op: 'held', seat: 'A2', expiresAtMs: Date.parse('2026-01-01T00:10:00.000Z'), holdId: 'h', customerId: 'c' },
    ]);
  });

  it('a hold cancelled or expired frees its seats; a confirmed one waits for BookingConfirmed', () => {
    expect(gateOpsForEvent(event('HoldReleased', { holdId: 'h', seats: ['A1'], reason: 'expired' }))).toEqual([
      { op: 'freehold', seat: 'A1', holdId: 'h' },
    ]);
    expect(gateOpsForEvent(event('HoldReleased', { holdId: 'h', seats: ['A1'], reason: 'cancelled' }))).toEqual([
      { op: 'freehold', seat: 'A1', holdId: 'h' },
    ]);
    expect(gateOpsForEvent(event('HoldReleased', { holdId: 'h', seats: ['A1'], reason: 'confirmed' }))).toEqual([]);
  });

  it('a booking sells its seats; a refund, a cancellation or compensation releases them', () => {
    expect(
      gateOpsForEvent(event('BookingConfirmed', { bookingId: 'b', holdId: 'h', customerId: 'c', seats: ['A1'] })),
    ).toEqual([{ op: 'sold', seat: 'A1', bookingId: 'b', customerId: 'c' }]);
    for (const reason of ['refund', 'cancelled', 'compensation']) {
      expect(gateOpsForEvent(event('SeatsReleased', { bookingId: 'b', seats: ['A1'], reason }))).toEqual([
        { op: 'freebooking', seat: 'A1', bookingId: 'b' },
      ]);
    }
  });

  it('events that move no seat, or lack what the gate needs, are nothing', () => {
    expect(gateOpsForEvent(event('ShowtimeSoldOut', {}))).toEqual([]);
    expect(gateOpsForEvent(event('BookingFailed', { bookingId: 'b', seats: ['A1'] }))).toEqual([]);
    expect(
      gateOpsForEvent(event('HoldCreated', { holdId: 'h', customerId: 'c', seats: ['A1'], expiresAt: 'soon' })),
    ).toEqual([]);
    expect(
      gateOpsForEvent(
        event('HoldCreated', { holdId: 'h', customerId: 'c', seats: [], expiresAt: '2026-01-01T00:10:00.000Z' }),
      ),
    ).toEqual([]);
  });
});
