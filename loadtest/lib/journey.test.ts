/** The shared buyer journey without a network: seat choice, 409 and 429 handling, leaving. */
import { describe, expect, it } from 'vitest';
import { isIPv6 } from 'node:net';
import fc from 'fast-check';
import { couplePartners } from '../../lib/couple-pairs';
import { seatAvailability } from '../../core/src/seats/seat-availability';
import type { SeatRow } from '../../core/src/seats/seat-repo';
import {
  applyResponse,
  closeIdle,
  newBuyer,
  nextRequest,
  pickSeats,
  startLeaving,
  syntheticAddress,
  type Buyer,
  type JourneySettings,
} from './journey.js';

const settings: JourneySettings = {
  showtimeId: '7',
  party: 2,
  maxHoldTries: 3,
  seatPreference: 'best',
  paymentApiKey: 'sk_test',
  maxWaitMs: 60_000,
  random: () => 0,
};

/** A hall as the core lists it (rectangular, codes like "B3"), in the seat map's compact view. */
function hall(rows: number, columns: number, taken: string[] = [], coupleRows: number[] = []): SeatRow[] {
  return Array.from({ length: rows * columns }, (_, i) => {
    const row = Math.floor(i / columns) + 1;
    const column = (i % columns) + 1;
    const code = `${'ABCDEFGH'[row - 1]}${column}`;
    return {
      seat_code: code,
      row_label: code[0]!,
      row_number: row,
      column_number: column,
      label: code,
      fare_class: 'standard',
      seat_type: coupleRows.includes(row) ? 'couple' : 'standard',
      status: taken.includes(code) ? 'BOOKED' : 'AVAILABLE',
    } satisfies SeatRow;
  });
}
/** The compact view the core answers for that hall (its own builder, so client and server cannot drift). */
const seatMap = (rows: number, columns: number, taken: string[] = [], coupleRows: number[] = []) =>
  seatAvailability(hall(rows, columns, taken, coupleRows));

const ok = (json: unknown, status = 200) => ({ status, json, retryAfterSeconds: null });

function admitted(): Buyer {
  const buyer = newBuyer(1, 0);
  applyResponse(buyer, settings, ok({ token: 'ct', customerId: 'c1' }), 0);
  applyResponse(buyer, settings, ok({ state: 'admitted', pollAfterMs: 5000, queueToken: 'qt', accessToken: 'at' }), 10);
  return buyer;
}

describe('buyer journey', () => {
  it('picks adjacent seats in the front row centre, never across a gap', () => {
    const buyer = newBuyer(0, 0);
    expect(pickSeats(seatMap(2, 6, ['A3', 'A4']), buyer, settings)).toEqual(['A1', 'A2']); // A2-A3 is not free; A1-A2 and A5-A6 score the same, first wins
    expect(pickSeats(seatMap(1, 3, ['A2']), buyer, settings)).toEqual([]);
    buyer.taken = ['A1'];
    expect(pickSeats(seatMap(2, 6, ['A3', 'A4']), buyer, settings)).toEqual(['A5', 'A6']); // a seat lost in a 409 is avoided
  });

  it('weighs a central run further back against far-off runs in front (the scan stops only when no row can do better)', () => {
    // Row A: the centre pair and the two ends free; row B all free. The best three: A6-A7 (score 2),
    // B6-B7 (4), then B5-B6 (5), both ahead of A1-A2 and A11-A12 (7).
    const aTaken = ['A3', 'A4', 'A5', 'A8', 'A9', 'A10'];
    expect(pickSeats(seatMap(2, 12, aTaken), newBuyer(0, 0), { ...settings, random: () => 0.99 })).toEqual([
      'B5',
      'B6',
    ]);
    expect(pickSeats(seatMap(2, 12, aTaken), newBuyer(0, 0), { ...settings, random: () => 0.5 })).toEqual(['B6', 'B7']);
  });

  it('never picks half of a couple pair (the core refuses it): runs in a couple row start at a pair', () => {
    const buyer = newBuyer(0, 0);
    // One couple row, A1+A2 and A3+A4 pairs, A5 alone; A1 taken, so A2 can go only with it.
    const couples = seatMap(1, 5, ['A1'], [1]);
    expect(pickSeats(couples, buyer, settings)).toEqual(['A3', 'A4']);
    expect(pickSeats(couples, buyer, { ...settings, party: 1 })).toEqual(['A5']);
    expect(pickSeats(seatMap(1, 4, ['A4'], [1]), buyer, settings)).toEqual(['A1', 'A2']); // never A2-A3
    expect(pickSeats(couples, buyer, { ...settings, party: 3 })).toEqual(['A3', 'A4', 'A5']); // a pair and the lone seat
  });

  it('picks what a plain walk over the full map picks, on random halls, couple rows, lost seats and tries', () => {
    // The reference: every run of the full map in row and column order, a stable sort by score,
    // the first `spread`; the compact scan (with its early stop) must choose the very same seats.
    const reference = (seats: SeatRow[], buyer: Buyer, s: JourneySettings) => {
      const partners = couplePartners(
        seats
          .filter((seat) => seat.seat_type === 'couple')
          .map((seat) => ({ code: seat.seat_code, row: seat.row_number, column: seat.column_number, type: 'couple' })),
      );
      const widest = Math.max(...seats.map((seat) => seat.column_number));
      const runs: { codes: string[]; score: number }[] = [];
      for (const row of [...new Set(seats.map((seat) => seat.row_number))]) {
        const free = seats.filter(
          (seat) => seat.row_number === row && seat.status === 'AVAILABLE' && !buyer.taken.includes(seat.seat_code),
        );
        for (let i = 0; i + s.party <= free.length; i++) {
          const run = free.slice(i, i + s.party);
          if (run[run.length - 1]!.column_number - run[0]!.column_number !== s.party - 1) continue;
          const codes = run.map((seat) => seat.seat_code);
          if (codes.some((code) => partners.has(code) && !codes.includes(partners.get(code)!))) continue;
          runs.push({
            codes,
            score:
              row * 2 + Math.abs((run[0]!.column_number + run[run.length - 1]!.column_number) / 2 - (widest + 1) / 2),
          });
        }
      }
      const top = runs.sort((a, b) => a.score - b.score).slice(0, 3 * 4 ** Math.min(buyer.holdTries, 3));
      return top.length ? top[Math.floor(s.random() * top.length)]!.codes : [];
    };
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 3 }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        fc.array(
          fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
          { minLength: 96, maxLength: 96 },
        ),
        fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
        (rows, columns, party, holdTries, random, takenFlags, coupleFlags) => {
          const seats = hall(
            rows,
            columns,
            [],
            coupleFlags.flatMap((on, i) => (on ? [i + 1] : [])),
          );
          seats.forEach((seat, i) => {
            if (takenFlags[i]) seat.status = 'HELD';
          });
          const buyer = Object.assign(newBuyer(0, 0), {
            holdTries,
            taken: seats
              .filter((_, i) => takenFlags[95 - i])
              .map((seat) => seat.seat_code)
              .slice(0, 4),
          });
          const s = { ...settings, party, random: () => random };
          expect(pickSeats(seatAvailability(seats), buyer, s)).toEqual(reference(seats, buyer, s));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('goes login → join → seats → hold, and after a 409 reads a fresh map and avoids the lost seats', () => {
    const buyer = newBuyer(0, 0);
    expect(nextRequest(buyer, settings)?.endpoint).toBe('login');
    applyResponse(buyer, settings, ok({ token: 'ct', customerId: 'c1' }), 0);
    expect(nextRequest(buyer, settings)).toMatchObject({ endpoint: 'join', headers: { authorization: 'Bearer ct' } });
    applyResponse(buyer, settings, ok({ state: 'waiting', position: 9, pollAfterMs: 3000, queueToken: 'qt' }), 5);
    expect(buyer.dueAt).toBe(3005);
    expect(nextRequest(buyer, settings)).toMatchObject({ endpoint: 'poll', headers: { 'x-queue-token': 'qt' } });
    const events = applyResponse(
      buyer,
      settings,
      ok({ state: 'admitted', pollAfterMs: 5000, accessToken: 'at' }),
      3005,
    );
    expect(events.map((e) => e.type)).toEqual(['admitted', 'queue_time']);
    applyResponse(buyer, settings, ok({ ...seatMap(1, 4), counts: { available: 4 } }), 3010);
    const hold = nextRequest(buyer, settings)!;
    expect(hold.endpoint).toBe('hold');
    const wanted = JSON.parse(hold.body!).seats as string[];
    applyResponse(buyer, settings, ok({ error: { code: 'SEATS_UNAVAILABLE', seats: [wanted[0]] } }, 409), 3020);
    expect(nextRequest(buyer, settings)?.endpoint).toBe('seats');
    applyResponse(buyer, settings, ok({ ...seatMap(1, 4), counts: { available: 4 } }), 3600); // a stale map still lists it
    expect(JSON.parse(nextRequest(buyer, settings)!.body!).seats).not.toContain(wanted[0]);
  });

  it('gives up after three lost holds and leaves the room', () => {
    const buyer = admitted();
    for (let attempt = 0; attempt < 3; attempt++) {
      applyResponse(buyer, settings, ok({ ...seatMap(3, 8), counts: { available: 24 } }), 100);
      const wanted = JSON.parse(nextRequest(buyer, settings)!.body!).seats;
      applyResponse(buyer, settings, ok({ error: { code: 'SEATS_UNAVAILABLE', seats: wanted } }, 409), 100);
    }
    expect(buyer.holdTries).toBe(3);
    expect(nextRequest(buyer, settings)?.endpoint).toBe('leave');
    applyResponse(buyer, settings, ok({ state: 'left' }), 200);
    expect(buyer).toMatchObject({ phase: 'done', outcome: 'no_seats' });
  });

  it('waits Retry-After on a 429 and tries the same step again', () => {
    const buyer = admitted();
    applyResponse(buyer, settings, ok({ ...seatMap(1, 4), counts: { available: 4 } }), 100);
    const events = applyResponse(
      buyer,
      settings,
      { status: 429, json: { error: { code: 'RATE_LIMITED' } }, retryAfterSeconds: 2 },
      100,
    );
    expect(events).toEqual([{ type: 'rate_limited' }]);
    expect(buyer.phase).toBe('hold');
    expect(buyer.dueAt).toBe(100 + 1000); // 2 s × (0.5 + random 0)
  });

  it('without Retry-After, waits twice as long at each try (1 s up to 30 s) and gives up after eight', () => {
    const buyer = admitted();
    applyResponse(buyer, settings, ok({ ...seatMap(1, 4), counts: { available: 4 } }), 100);
    const waits: number[] = [];
    let now = 1_000;
    for (let i = 0; i < 8; i++) {
      applyResponse(buyer, settings, { status: 0, json: null, retryAfterSeconds: null }, now);
      waits.push(buyer.dueAt - now);
      now = buyer.dueAt;
    }
    // × (0.5 + random 0): half of 1, 2, 4, 8, 16, 30, 30, 30 s; about a minute of patience at
    // the least, two on average: a ten-second outage does not make buyers give up.
    expect(waits).toEqual([500, 1_000, 2_000, 4_000, 8_000, 15_000, 15_000, 15_000]);
    expect(buyer.phase).toBe('hold');
    applyResponse(buyer, settings, { status: 0, json: null, retryAfterSeconds: null }, now);
    expect(buyer.outcome).toBe('error');
  });

  it('pays through the sandbox and reads the hold until it names the booking', () => {
    const buyer = admitted();
    applyResponse(buyer, settings, ok({ ...seatMap(1, 4), counts: { available: 4 } }), 100);
    applyResponse(buyer, settings, ok({ holdId: 'h1' }, 201), 110);
    expect(nextRequest(buyer, settings)).toMatchObject({
      endpoint: 'checkout',
      headers: { 'idempotency-key': 'lt-c1-h1' },
    });
    applyResponse(buyer, settings, ok({ paymentId: 'pay_1' }, 201), 120);
    expect(nextRequest(buyer, settings)).toMatchObject({
      endpoint: 'approve',
      target: 'payments',
      path: '/v1/payments/pay_1/approve',
    });
    applyResponse(buyer, settings, ok({ status: 'succeeded' }), 400);
    applyResponse(buyer, settings, ok({ status: 'ACTIVE' }), 500);
    expect(nextRequest(buyer, settings)?.endpoint).toBe('hold_status');
    applyResponse(buyer, settings, ok({ status: 'CONFIRMED', bookingId: 'b1' }), 800);
    expect(nextRequest(buyer, settings)?.path).toBe('/api/bookings/b1');
    expect(applyResponse(buyer, settings, ok({ status: 'CONFIRMED' }), 900).map((e) => e.type)).toEqual(['booked']);
    expect(nextRequest(buyer, settings)?.endpoint).toBe('leave');
    expect(applyResponse(buyer, settings, ok({ state: 'left' }), 950).map((e) => e.type)).toEqual(['outcome_booked']);
    expect(buyer).toMatchObject({ phase: 'done', outcome: 'booked' });
  });

  it('gives every buyer of a million, over 20,050 VUs, an address and a /64 of its own', () => {
    // Every address is its /64 prefix followed by ::1, so distinct addresses are distinct /64s.
    const addresses = new Set<string>();
    for (let vu = 1; vu <= 20_050; vu++)
      for (let arrival = 1; arrival <= 50; arrival++) addresses.add(syntheticAddress(vu, arrival));
    expect(addresses.size).toBe(20_050 * 50);
    expect(syntheticAddress(20_050, 50)).toMatch(/^fd[0-9a-f]{2}(:[0-9a-f]{1,4}){3}::1$/);
    expect(isIPv6(syntheticAddress(16_777_215, 4_294_967_295))).toBe(true);
    expect(syntheticAddress(2, 70_000)).not.toBe(syntheticAddress(2, 70_000 - 65_536)); // no wrap at 16 bits
    expect(newBuyer(7, 0).clientAddress).toBe(syntheticAddress(0, 7)); // the Node harness: generator 0
  });

  it('at the end of the run gives back what it holds: an unpaid hold is cancelled, then the room left', () => {
    const buyer = admitted();
    applyResponse(
      buyer,
      { ...settings, afterHold: 'checkout' },
      ok({ ...seatMap(1, 4), counts: { available: 4 } }),
      100,
    );
    applyResponse(buyer, { ...settings, afterHold: 'checkout' }, ok({ holdId: 'h1' }, 201), 110);
    expect(nextRequest(buyer, settings)?.endpoint).toBe('checkout');
    startLeaving(buyer, 200);
    expect(nextRequest(buyer, settings)).toMatchObject({ endpoint: 'cancel', method: 'DELETE', path: '/api/holds/h1' });
    expect(applyResponse(buyer, settings, ok(null, 204), 210).map((e) => e.type)).toEqual(['hold_released']);
    expect(nextRequest(buyer, settings)?.endpoint).toBe('leave');
    expect(applyResponse(buyer, settings, ok({ state: 'left' }), 220).map((e) => e.type)).toEqual(['outcome_stopped']);
  });

  it('at the end of the run a buyer in line leaves it, a paid buyer reads its booking first, one not yet in line just stops', () => {
    const waiting = newBuyer(1, 0);
    applyResponse(waiting, settings, ok({ token: 'ct', customerId: 'c1' }), 0);
    applyResponse(waiting, settings, ok({ state: 'waiting', position: 9, pollAfterMs: 3000, queueToken: 'qt' }), 5);
    startLeaving(waiting, 10);
    expect(nextRequest(waiting, settings)).toMatchObject({
      endpoint: 'leave',
      headers: { authorization: 'Bearer ct' },
    });

    const paying = admitted();
    applyResponse(paying, settings, ok({ ...seatMap(1, 4), counts: { available: 4 } }), 100);
    applyResponse(paying, settings, ok({ holdId: 'h1' }, 201), 110);
    applyResponse(paying, settings, ok({ paymentId: 'pay_1' }, 201), 120);
    applyResponse(paying, settings, ok({ status: 'succeeded' }), 400);
    startLeaving(paying, 450);
    expect(nextRequest(paying, settings)?.endpoint).toBe('hold_status');
    applyResponse(paying, settings, ok({ status: 'CONFIRMED', bookingId: 'b1' }), 460);
    expect(applyResponse(paying, settings, ok({ status: 'CONFIRMED' }), 470).map((e) => e.type)).toEqual(['booked']);
    expect(applyResponse(paying, settings, ok({ state: 'left' }), 480).map((e) => e.type)).toEqual(['outcome_booked']);

    const fresh = newBuyer(2, 0);
    startLeaving(fresh, 5);
    expect(nextRequest(fresh, settings)).toBeNull();
    expect(closeIdle(fresh).map((e) => e.type)).toEqual(['outcome_stopped']);
  });

  it('a buyer who gives up waiting leaves the line instead of being left in it', () => {
    const buyer = newBuyer(1, 0);
    applyResponse(buyer, settings, ok({ token: 'ct', customerId: 'c1' }), 0);
    applyResponse(buyer, settings, ok({ state: 'waiting', position: 900, pollAfterMs: 20_000, queueToken: 'qt' }), 5);
    applyResponse(buyer, settings, ok({ state: 'waiting', position: 800, pollAfterMs: 20_000 }), 70_000);
    expect(nextRequest(buyer, settings)?.endpoint).toBe('leave');
    expect(applyResponse(buyer, settings, ok({ state: 'left' }), 70_010).map((e) => e.type)).toEqual([
      'outcome_gave_up',
    ]);
  });
});
