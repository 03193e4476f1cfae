import { describe, expect, it } from 'vitest';
import { acceptSeatsHold, holdRequestSchema, MAX_SEATS_PER_REQUEST } from './hold-service';

/** Every body the hand-written check takes must come out exactly as zod would give it. */
const bodies: unknown[] = [
  { seats: ['A1'] },
  { seats: ['A1', 'B12', 'K-3'] },
  { seats: ['A1'], count: 2, together: true },
  { seats: ['A1'], extra: { deep: [1, 2] } },
  { seats: Array.from({ length: MAX_SEATS_PER_REQUEST }, (_, i) => `A${i + 1}`) },
  { seats: Array.from({ length: MAX_SEATS_PER_REQUEST + 1 }, (_, i) => `A${i + 1}`) },
  { seats: [] },
  { seats: ['a1'] },
  { seats: ['A1', 7] },
  { seats: ['TOOLONGCODE'] },
  { seats: 'A1' },
  { seats: null },
  { count: 2, together: true },
  { fareClass: 'GA_FLOOR', quantity: 2 },
  { fareClass: 'GA_FLOOR', quantity: 2, seats: ['A1'] },
  ['A1'],
  null,
  'A1',
  42,
  {},
];

describe('acceptSeatsHold', () => {
  for (const body of bodies)
    it(`agrees with the schema on ${JSON.stringify(body).slice(0, 60)}`, () => {
      const fast = acceptSeatsHold(body);
      const zod = holdRequestSchema.safeParse(body);
      if (fast !== null) {
        expect(zod.success).toBe(true);
        expect(fast).toStrictEqual(zod.data);
      } else if (zod.success) {
        // Not the seats shape: the schema's other branches decide, the fast path stays out.
        expect('seats' in zod.data).toBe(false);
      }
    });

  it('takes the common body, and copies the seats rather than sharing them', () => {
    const seats = ['F5', 'F6'];
    const accepted = acceptSeatsHold({ seats }) as { seats: string[] };
    expect(accepted).toEqual({ seats: ['F5', 'F6'] });
    expect(accepted.seats).not.toBe(seats);
  });
});
