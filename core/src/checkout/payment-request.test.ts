import { describe, expect, it } from 'vitest';
import { paymentSessionRequest, purchaseDescription } from './checkout-service';

const hold = {
  id: '6f1c2a9e-1111-4aaa-8bbb-000000000001',
  showtime_id: 42,
  seat_codes: ['D5', 'D6'],
  created_at: new Date('2030-01-01T12:00:00Z'),
  expires_at: new Date('2030-01-01T12:10:00Z'),
};
const showing = {
  title: 'The Long Premiere',
  startsAt: new Date('2030-01-02T19:30:00Z'),
  venue: 'Odeon',
  city: 'Lyon',
  hall: 'Salle 1',
};
const args = {
  customerId: 'c-1',
  idempotencyKey: 'k-1',
  amountCents: 2500,
  currency: 'EUR',
  returnUrl: 'https://shop.test/showtimes/42',
  showing,
};

describe('the gateway request', () => {
  it("is a pure function of the hold and the buyer's key: the same body on every retry, whenever it is made", async () => {
    const first = paymentSessionRequest(hold, args);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(paymentSessionRequest(hold, { ...args, showing: { ...showing } })).toEqual(first);
    expect(first.expiresAt.toISOString()).toBe('2030-01-01T12:08:00.000Z');
    expect(paymentSessionRequest(hold, { ...args, idempotencyKey: 'k-2' }).idempotencyKey).not.toBe(
      first.idempotencyKey,
    );
  });

  it('tells the pay page what is bought, line by line, with no ids', () => {
    const { metadata } = paymentSessionRequest(hold, args);
    expect(metadata.description).toBe(
      'The Long Premiere\nWed 2 Jan 2030, 19:30 UTC\nOdeon, Lyon · Salle 1\nSeats D5, D6',
    );
    expect(metadata.description).not.toContain(hold.id);
    expect(
      purchaseDescription(
        { showtime_id: 42, seat_codes: [], fare_class: 'GA_FLOOR', quantity: 3 },
        { ...showing, city: '' },
      ),
    ).toBe('The Long Premiere\nWed 2 Jan 2030, 19:30 UTC\nOdeon · Salle 1\n3 places (GA_FLOOR)');
    expect(
      purchaseDescription({ showtime_id: 42, seat_codes: ['A1'] }, { ...showing, title: 'x'.repeat(600) }),
    ).toHaveLength(500);
  });
});
