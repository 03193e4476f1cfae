import { describe, expect, it } from 'vitest';
import type { CoreHarness } from './core-harness';
import { releasedTogether, unique } from './core-harness';

export interface ContractScale {
  /** Buyers released together on one seat, and how many rounds. */
  racers: number;
  rounds: number;
  /** Rounds of {A,B} against {B,A}. */
  reversedRounds: number;
}

/**
 * The hold rules every database must honour, run against the PostgreSQL server and against
 * embedded PGlite. `harness()` is called inside tests (set up in the caller's beforeAll).
 */
export function holdContract(label: string, harness: () => CoreHarness, scale: ContractScale) {
  describe(`hold contract on ${label}`, () => {
    it(`${scale.racers} buyers released together on one seat: exactly one winner, ${scale.rounds} rounds`, async () => {
      const h = harness();
      const columns = 20;
      const { showtimeId } = await h.createShowtime({ layout: { rows: Math.ceil(scale.rounds / columns), columns } });
      const seats = (
        await h.sql<{ seat_code: string }[]>`
        SELECT seat_code FROM show_seat WHERE showtime_id = ${showtimeId} ORDER BY seat_code`
      ).map((r) => r.seat_code);
      for (let round = 0; round < scale.rounds; round++) {
        const seat = seats[round]!;
        const tokens = await Promise.all(
          Array.from({ length: scale.racers }, (_, i) => h.tokenFor(`race-${round}-${i}`, showtimeId)),
        );
        const results = await releasedTogether(scale.racers, (i) =>
          h.call('POST', `/showtimes/${showtimeId}/holds`, { token: tokens[i], body: { seats: [seat] } }),
        );
        const statuses = results.map((r) => r.status);
        expect(
          statuses.filter((s) => s === 201),
          `round ${round}`,
        ).toHaveLength(1);
        expect(
          statuses.filter((s) => s !== 201 && s !== 409),
          `round ${round}`,
        ).toEqual([]);
        const loser = results.find((r) => r.status === 409)!;
        expect(loser.json.error).toMatchObject({ code: 'SEATS_UNAVAILABLE', seats: [seat] });
      }
      const counts = await h.seatStatusCounts(showtimeId);
      expect(counts.held).toBe(scale.rounds);
    });

    it('overlapping sets: A holds F5+F6, B asks F6+F7, B gets 409 naming F6 and F7 stays free', async () => {
      const h = harness();
      const { showtimeId } = await h.createShowtime();
      const a = await h.hold(showtimeId, unique('a'), ['F5', 'F6']);
      expect(a.status).toBe(201);
      expect(a.json.seats).toEqual(['F5', 'F6']);
      const b = await h.hold(showtimeId, unique('b'), ['F7', 'F6']);
      expect(b.status).toBe(409);
      expect(b.json.error.code).toBe('SEATS_UNAVAILABLE');
      expect(b.json.error.seats).toEqual(['F6']);
      const [f7] = await h.sql<{ status: string; hold_id: string | null }[]>`
        SELECT status, hold_id FROM show_seat WHERE showtime_id = ${showtimeId} AND seat_code = 'F7'`;
      expect(f7).toEqual({ status: 'AVAILABLE', hold_id: null });
      const c = await h.hold(showtimeId, unique('c'), ['F7']);
      expect(c.status).toBe(201);
    });

    it(`reversed orders {A,B} against {B,A}: one winner, no deadlock reaches a buyer, ${scale.reversedRounds} rounds`, async () => {
      const h = harness();
      const { showtimeId } = await h.createShowtime({ layout: { rows: 20, columns: 20 } });
      for (let round = 0; round < scale.reversedRounds; round++) {
        const row = 'ABCDEFGHJKLMNPQRSTUV'[round % 20]!;
        const col = 1 + 2 * Math.floor(round / 20);
        const pair = [`${row}${col}`, `${row}${col + 1}`];
        const tokens = await Promise.all([
          h.tokenFor(`rev-${round}-x`, showtimeId),
          h.tokenFor(`rev-${round}-y`, showtimeId),
        ]);
        const [x, y] = await releasedTogether(2, (i) =>
          h.call('POST', `/showtimes/${showtimeId}/holds`, {
            token: tokens[i],
            body: { seats: i === 0 ? pair : [...pair].reverse() },
          }),
        );
        expect([x!.status, y!.status].sort(), `round ${round}`).toEqual([201, 409]);
      }
    });

    it('a lapsed hold frees its seats by the database clock, before any sweeper ran', async () => {
      const h = harness();
      const { showtimeId } = await h.createShowtime({ holdTtlMs: 1000 });
      const first = unique('first');
      const held = await h.hold(showtimeId, first, ['C3', 'C4']);
      expect(held.status).toBe(201);
      const rival = await h.hold(showtimeId, unique('early'), ['C3']);
      expect(rival.status).toBe(409);

      await new Promise((resolve) => setTimeout(resolve, 1300));
      const token = await h.tokenFor(first, showtimeId);
      const map = await h.call('GET', `/showtimes/${showtimeId}/seats`, { token });
      const c3 = map.json.seats.find((s: { code: string }) => s.code === 'C3');
      expect(c3.status).toBe('AVAILABLE');
      const read = await h.call('GET', `/holds/${held.json.holdId}`, { token });
      expect(read.json.status).toBe('EXPIRED');

      const second = await h.hold(showtimeId, unique('second'), ['C3']);
      expect(second.status).toBe(201);
      // The first buyer cancelling late must not free the seat the second buyer now holds.
      const cancel = await h.call('DELETE', `/holds/${held.json.holdId}`, { token });
      expect(cancel.status).toBe(204);
      const [c3row] = await h.sql<{ status: string; hold_id: string }[]>`
        SELECT status, hold_id FROM show_seat WHERE showtime_id = ${showtimeId} AND seat_code = 'C3'`;
      expect(c3row).toEqual({ status: 'HELD', hold_id: second.json.holdId });
    });

    it('one customer sending 20 parallel requests never exceeds the per-customer limit', async () => {
      const h = harness();
      const { showtimeId } = await h.createShowtime({ maxSeatsPerCustomer: 8, layout: { rows: 10, columns: 10 } });
      for (let round = 0; round < 5; round++) {
        const customer = unique(`greedy-${round}`);
        const token = await h.tokenFor(customer, showtimeId);
        const row = 'ABCDEFGHJK'[round * 2]!;
        const next = 'ABCDEFGHJK'[round * 2 + 1]!;
        // 20 requests of 1 seat each over two rows: only 8 may succeed.
        const seats = [
          ...Array.from({ length: 10 }, (_, i) => `${row}${i + 1}`),
          ...Array.from({ length: 10 }, (_, i) => `${next}${i + 1}`),
        ];
        const results = await releasedTogether(20, (i) =>
          h.call('POST', `/showtimes/${showtimeId}/holds`, { token, body: { seats: [seats[i]] } }),
        );
        const won = results.filter((r) => r.status === 201).length;
        expect(won, `round ${round}`).toBe(8);
        for (const refused of results.filter((r) => r.status !== 201)) {
          expect(refused.status).toBe(422);
          expect(refused.json.error.code).toBe('SEAT_LIMIT_EXCEEDED');
        }
        const [owned] = await h.sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM show_seat WHERE showtime_id = ${showtimeId} AND customer_id = ${customer}`;
        expect(owned!.n).toBe(8);
      }
    });

    it('cancel frees the seats at once; only the owner may read or cancel', async () => {
      const h = harness();
      const { showtimeId } = await h.createShowtime();
      const owner = unique('owner');
      const held = await h.hold(showtimeId, owner, ['B1', 'B2']);
      const stranger = await h.tokenFor(unique('stranger'), showtimeId);
      expect((await h.call('GET', `/holds/${held.json.holdId}`, { token: stranger })).status).toBe(403);
      expect((await h.call('DELETE', `/holds/${held.json.holdId}`, { token: stranger })).status).toBe(403);
      const token = await h.tokenFor(owner, showtimeId);
      const read = await h.call('GET', `/holds/${held.json.holdId}`, { token });
      expect(read.json).toMatchObject({ holdId: held.json.holdId, showtimeId, status: 'ACTIVE', seats: ['B1', 'B2'] });
      expect((await h.call('DELETE', `/holds/${held.json.holdId}`, { token })).status).toBe(204);
      expect((await h.call('DELETE', `/holds/${held.json.holdId}`, { token })).status).toBe(204);
      expect((await h.call('GET', `/holds/${held.json.holdId}`, { token })).json.status).toBe('CANCELLED');
      expect((await h.hold(showtimeId, unique('next'), ['B1', 'B2'])).status).toBe(201);
    });

    it(`best available: ${scale.racers} buyers released together after 2 seats together, all held, none shared, all adjacent`, async () => {
      const h = harness();
      const { showtimeId } = await h.createShowtime({ layout: { rows: 12, columns: 16, coupleRows: [8] } });
      const tokens = await Promise.all(
        Array.from({ length: scale.racers }, (_, i) => h.tokenFor(unique(`best-${i}`), showtimeId)),
      );
      const results = await releasedTogether(scale.racers, (i) =>
        h.call('POST', `/showtimes/${showtimeId}/holds`, { token: tokens[i], body: { count: 2, together: true } }),
      );
      expect(results.map((r) => r.status).filter((s) => s !== 201)).toEqual([]);
      const seats = results.flatMap((r) => r.json.seats as string[]);
      expect(new Set(seats).size).toBe(2 * scale.racers);
      for (const r of results) {
        const [a, b] = (r.json.seats as string[]).map((code) => ({ row: code[0], column: Number(code.slice(1)) }));
        expect(a!.row).toBe(b!.row);
        expect(Math.abs(a!.column - b!.column)).toBe(1);
      }
      expect((await h.seatStatusCounts(showtimeId)).held).toBe(2 * scale.racers);
    });
  });
}
