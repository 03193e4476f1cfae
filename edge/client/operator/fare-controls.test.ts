import { describe, expect, it } from 'vitest';
import {
  describeFareChange,
  describePolicy,
  parsePrice,
  parseSeatList,
  validateFareChange,
  validatePolicy,
  type FareClassView,
} from './fare-controls';

const ga: FareClassView = {
  fareClass: 'GA',
  label: 'Standing',
  priceCents: 2000,
  ownPrice: true,
  seated: false,
  buckets: 2,
  capacity: 50,
  overbookLimit: 3,
  sold: 10,
  held: 5,
  heldLapsed: 1,
  available: 38,
};
const seated: FareClassView = {
  ...ga,
  fareClass: 'STANDARD',
  label: 'Standard',
  seated: true,
  ownPrice: false,
  priceCents: 1200,
  capacity: 40,
  overbookLimit: 0,
};
const form = (over: Partial<Record<'label' | 'price' | 'capacity' | 'overbookLimit' | 'buckets', string>> = {}) => ({
  label: 'Standing',
  price: '20.00',
  capacity: '50',
  overbookLimit: '3',
  buckets: '2',
  ...over,
});

describe('fare console rules', () => {
  it("reads prices as money, empty for the showing's price, and says what is wrong", () => {
    expect(parsePrice('12.5')).toEqual({ ok: true, value: 1250 });
    expect(parsePrice('12,05')).toEqual({ ok: true, value: 1205 });
    expect(parsePrice(' ')).toEqual({ ok: true, value: null });
    expect(parsePrice('-1')).toMatchObject({ ok: false, message: expect.stringContaining('such as 12.50') });
    expect(parsePrice('100001')).toMatchObject({ ok: false, message: expect.stringContaining('at most') });
  });

  it('changes only what differs; seated classes keep capacity and overbooking; bounds in words', () => {
    expect(validateFareChange(form(), ga)).toEqual({ ok: true, value: {} });
    expect(validateFareChange(form({ capacity: '60', price: '25' }), ga)).toEqual({
      ok: true,
      value: { capacity: 60, priceCents: 2500 },
    });
    expect(validateFareChange(form({ capacity: '5', overbookLimit: '0' }), ga)).toMatchObject({
      ok: false,
      message: expect.stringContaining('15 places are already sold or held'),
    });
    expect(validateFareChange(form({ overbookLimit: '1.5' }), ga)).toMatchObject({
      ok: false,
      message: 'Overbooking limit must be a whole number from 0 to 1,000,000.',
    });
    expect(validateFareChange(form({ buckets: '65' }), ga)).toMatchObject({
      ok: false,
      message: expect.stringContaining('Counter rows'),
    });
    expect(validateFareChange(form({ label: ' ' }), ga)).toMatchObject({ ok: false });
    // Seated: the capacity fields are not read at all.
    expect(
      validateFareChange(
        form({ label: 'Standard', price: '', capacity: 'x', overbookLimit: 'y', buckets: '2' }),
        seated,
      ),
    ).toEqual({ ok: true, value: {} });
    expect(validateFareChange(form({ label: 'Standard', price: '15', buckets: '2' }), seated)).toEqual({
      ok: true,
      value: { priceCents: 1500 },
    });
    // New area: everything is a change.
    expect(validateFareChange(form({ label: 'Floor', price: '' }), null)).toEqual({
      ok: true,
      value: { label: 'Floor', capacity: 50, overbookLimit: 3, buckets: 2 },
    });
    const words = describeFareChange({ priceCents: 2500, capacity: 60 }, ga, (c) => (c / 100).toFixed(2));
    expect(words).toBe('price 20.00 → 25.00, places 50 → 60');
  });

  it('refund policy: hours and percent, sorted, each time once, never more back later; said as a sentence', () => {
    expect(
      validatePolicy([
        { hours: '2', percent: '50' },
        { hours: '24', percent: '100' },
        { hours: '', percent: '' },
      ]),
    ).toEqual({
      ok: true,
      value: [
        { beforeStartMinutes: 1440, percent: 100 },
        { beforeStartMinutes: 120, percent: 50 },
      ],
    });
    expect(validatePolicy([{ hours: '1.5', percent: '10' }])).toEqual({
      ok: true,
      value: [{ beforeStartMinutes: 90, percent: 10 }],
    });
    expect(
      validatePolicy([
        { hours: '24', percent: '50' },
        { hours: '2', percent: '100' },
      ]),
    ).toMatchObject({ ok: false, message: expect.stringContaining('cannot get more back') });
    expect(
      validatePolicy([
        { hours: '24', percent: '50' },
        { hours: '24', percent: '40' },
      ]),
    ).toMatchObject({ ok: false, message: expect.stringContaining('keep one') });
    expect(validatePolicy([{ hours: 'soon', percent: '50' }])).toMatchObject({
      ok: false,
      message: expect.stringContaining('Step 1'),
    });
    expect(validatePolicy([{ hours: '3', percent: '101' }])).toMatchObject({
      ok: false,
      message: expect.stringContaining('0 to 100'),
    });
    expect(
      describePolicy([
        { beforeStartMinutes: 120, percent: 50 },
        { beforeStartMinutes: 1440, percent: 100 },
      ]),
    ).toBe(
      'Full refund until 24 hours before the start; 50 % back until 2 hours before the start; nothing after. No cancellation once the showing has started.',
    );
    expect(describePolicy([])).toContain('No refund');
  });

  it('reads a typed list of seats', () => {
    expect(parseSeatList('a1, A2 a3;A1')).toEqual({ ok: true, value: ['A1', 'A2', 'A3'] });
    expect(parseSeatList(' ')).toMatchObject({ ok: false });
    expect(parseSeatList('A1, row-B')).toMatchObject({ ok: false, message: expect.stringContaining('"ROW-B"') });
  });
});
