/**
 * Best available under a crowd, real PostgreSQL: 64 buyers released together, round after
 * round, every one wanting seats together. FOR UPDATE SKIP LOCKED spreads them over the next
 * best blocks: no conflicts while seats together remain, no seat shared, no couple pair split,
 * every hold adjacent in one row. The naive variant (read the map, pick the best block, hold
 * those seats) run on the same crowd shows the harness really produces the race; the checker
 * itself is shown catching broken holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { Redis } from 'ioredis';
import { testDatabaseUrl, testRedisNamespace, testRedisUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { createIoredisStore } from '../../../queue/src/index';
import { rectangularLayout } from '../../src/demo/seat-layout';
import { createCoreHarness, releasedTogether, unique, type CoreHarness } from '../core-harness';
import { bestHoldViolations, type HallSeat } from './best-invariants';

const BUYERS = 64;
const ROUNDS = 4;
/** 12 rows x 20: 240 seats, row H (the ideal row) couple seats; 64 buyers take at most 160. */
const layout = { rows: 12, columns: 20, coupleRows: [8] };
const hall: HallSeat[] = rectangularLayout(layout).map((s) => ({
  code: s.code,
  row: s.row,
  column: s.column,
  type: s.type,
}));
const countFor = (i: number) => (i % 4 === 3 ? 3 : 2);

let sql: Sql;
let redis: Redis;
const harnesses: Record<'alone' | 'gated', CoreHarness> = {} as never;

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 24, applicationName: 'test-best-race' });
  redis = new Redis(testRedisUrl());
  harnesses.alone = await createCoreHarness(sql);
  harnesses.gated = await createCoreHarness(sql, {
    gate: { store: createIoredisStore(redis), keyPrefix: testRedisNamespace('best-gate') },
  });
});
afterAll(async () => {
  await sql.end();
  redis?.disconnect();
});

/** The holds as the database has them: every live hold's seats, from show_seat. */
async function holdsInDatabase(showtimeId: number) {
  return sql<{ hold_id: string; seats: string[]; recorded: string[] }[]>`
    SELECT s.hold_id, array_agg(s.seat_code::text ORDER BY s.seat_code) AS seats, h.seat_codes::text[] AS recorded
      FROM show_seat s JOIN seat_hold h ON h.showtime_id = s.showtime_id AND h.id = s.hold_id
     WHERE s.showtime_id = ${showtimeId} AND s.status = 'HELD'
     GROUP BY s.hold_id, h.seat_codes`;
}

describe.each(['alone', 'gated'] as const)('best available, database %s', (mode) => {
  it(`${BUYERS} buyers together, ${ROUNDS} rounds: every one held, no seat shared, no pair split, all adjacent`, async () => {
    const h = harnesses[mode];
    for (let round = 0; round < ROUNDS; round++) {
      const { showtimeId } = await h.createShowtime({ layout });
      const tokens = await Promise.all(
        Array.from({ length: BUYERS }, (_, i) => h.tokenFor(unique(`best-${round}-${i}`), showtimeId)),
      );
      const answers = await releasedTogether(BUYERS, (i) =>
        h.call('POST', `/showtimes/${showtimeId}/holds`, {
          token: tokens[i],
          body: { count: countFor(i), together: true },
        }),
      );
      // 0 conflicts: seats together remain for everyone, so every buyer gets a hold first time.
      expect(
        answers.map((a) => a.status).filter((s) => s !== 201),
        JSON.stringify(answers.find((a) => a.status !== 201)?.json),
      ).toEqual([]);
      answers.forEach((a, i) => expect(a.json.seats).toHaveLength(countFor(i)));
      expect(
        bestHoldViolations(
          hall,
          answers.map((a) => ({ seats: a.json.seats, together: true })),
        ),
      ).toEqual([]);
      // The database agrees with the answers: each hold's seats carry its id and nothing else does.
      const rows = await holdsInDatabase(showtimeId);
      expect(rows).toHaveLength(BUYERS);
      for (const row of rows) expect(row.seats).toEqual([...row.recorded].sort());
      const answered = new Map(answers.map((a) => [a.json.holdId as string, [...(a.json.seats as string[])].sort()]));
      for (const row of rows) expect(row.seats).toEqual(answered.get(row.hold_id));
    }
  });
});

describe('best available at sell-out', () => {
  it('more buyers than pairs: each gets a pair or NO_SEATS_TOGETHER (never a 503), and no two free seats sit together at the end', async () => {
    const h = harnesses.alone;
    for (let round = 0; round < 3; round++) {
      const { showtimeId } = await h.createShowtime({ layout: { rows: 4, columns: 10 } });
      const tokens = await Promise.all(
        Array.from({ length: BUYERS }, (_, i) => h.tokenFor(unique(`last-${round}-${i}`), showtimeId)),
      );
      const answers = await releasedTogether(BUYERS, (i) =>
        h.call('POST', `/showtimes/${showtimeId}/holds`, { token: tokens[i], body: { count: 2, together: true } }),
      );
      const refused = answers.filter((a) => a.status !== 201);
      expect(
        refused.filter((a) => a.status !== 409 || a.json.error.code !== 'NO_SEATS_TOGETHER').map((a) => a.status),
      ).toEqual([]);
      const winners = answers.filter((a) => a.status === 201);
      const small: HallSeat[] = rectangularLayout({ rows: 4, columns: 10 }).map((s) => ({
        code: s.code,
        row: s.row,
        column: s.column,
        type: s.type,
      }));
      expect(
        bestHoldViolations(
          small,
          winners.map((a) => ({ seats: a.json.seats, together: true })),
        ),
      ).toEqual([]);
      // Sold out for pairs: nobody was refused while two seats together were still free.
      const free = new Set(
        (
          await sql<{ seat_code: string }[]>`
        SELECT seat_code FROM show_seat WHERE showtime_id = ${showtimeId} AND status = 'AVAILABLE'`
        ).map((r) => r.seat_code),
      );
      const pairsLeft = small.filter(
        (s) => free.has(s.code) && small.some((t) => t.row === s.row && t.column === s.column + 1 && free.has(t.code)),
      );
      expect(pairsLeft.map((s) => s.code)).toEqual([]);
      expect(winners.length).toBeGreaterThanOrEqual(15);
    }
  });
});

describe('the harness produces the race', () => {
  /** The same score in the buyer's hands: read the map, take the best free block, ask for it. */
  function naiveBestBlock(
    seats: { code: string; row: number; column: number; type: string; status: string }[],
    count: number,
  ): string[] | null {
    const free = seats.filter((s) => s.status === 'AVAILABLE' && s.type === 'standard');
    const idealRow = Math.ceil((Math.max(...seats.map((s) => s.row)) * 2) / 3);
    let bestBlock: string[] | null = null;
    let bestScore = Infinity;
    for (const first of free) {
      const block = Array.from({ length: count }, (_, k) =>
        free.find((s) => s.row === first.row && s.column === first.column + k),
      );
      if (block.some((s) => !s)) continue;
      const columns = seats.filter((s) => s.row === first.row).map((s) => s.column);
      const score =
        2 * Math.abs(first.row - idealRow) +
        Math.abs(first.column + (count - 1) / 2 - (Math.min(...columns) + Math.max(...columns)) / 2);
      if (score < bestScore) [bestScore, bestBlock] = [score, block.map((s) => s!.code)];
    }
    return bestBlock;
  }

  it('naive best available (read, pick, hold) on the same crowd: conflicts', async () => {
    const h = harnesses.alone;
    const { showtimeId } = await h.createShowtime({ layout });
    const tokens = await Promise.all(
      Array.from({ length: BUYERS }, (_, i) => h.tokenFor(unique(`naive-${i}`), showtimeId)),
    );
    const answers = await releasedTogether(BUYERS, async (i) => {
      const map = await h.call('GET', `/showtimes/${showtimeId}/seats`, { token: tokens[i] });
      const block = naiveBestBlock(map.json.seats, countFor(i));
      return h.call('POST', `/showtimes/${showtimeId}/holds`, { token: tokens[i], body: { seats: block } });
    });
    const conflicts = answers.filter((a) => a.status === 409 && a.json.error.code === 'SEATS_UNAVAILABLE').length;
    expect(conflicts).toBeGreaterThan(BUYERS / 4);
    // Even the naive way never shares a seat: the arbiter holds; it just makes buyers retry.
    const winners = answers.filter((a) => a.status === 201).map((a) => ({ seats: a.json.seats, together: true }));
    expect(bestHoldViolations(hall, winners)).toEqual([]);
  });

  it('the checker catches a shared seat, a split couple pair, a gap and two rows', () => {
    expect(
      bestHoldViolations(hall, [
        { seats: ['A1', 'A2'], together: true },
        { seats: ['A2', 'A3'], together: true },
      ]),
    ).toEqual(['seat A2 in holds 0 and 1']);
    expect(bestHoldViolations(hall, [{ seats: ['H2', 'H3'], together: true }])).toEqual([
      'hold 0 splits the couple pair H2+H1',
      'hold 0 splits the couple pair H3+H4',
    ]);
    expect(bestHoldViolations(hall, [{ seats: ['A1', 'A3'], together: true }])).toEqual(['hold 0 has a gap: A1,A3']);
    expect(bestHoldViolations(hall, [{ seats: ['A1', 'B2'], together: true }])).toEqual(['hold 0 spans rows: A1,B2']);
    expect(bestHoldViolations(hall, [{ seats: ['A1', 'B2'], together: false }])).toEqual([]);
  });
});
