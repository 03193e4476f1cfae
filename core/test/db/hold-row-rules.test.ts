import fc from 'fast-check';
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedDatabase } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { attemptRolledBack } from './rolled-back';

/**
 * A hold row's multi-column rules live in the hold's row trigger (guard_state_transition), not
 * in table CHECKs, which PostgreSQL re-parses for every statement that writes the table. They
 * must refuse exactly what the CHECKs refused, with the same error (check_violation, named),
 * on every insert and every update, status changed or not.
 *
 * The property compares the trigger's verdict on random rows with the CHECKs' own expressions
 * (as they stood, evaluated by the database on the same values). The broken variant drops the
 * trigger inside a rolled-back transaction: the same bad writes then go through, so each is
 * shown to be refused by the trigger and nothing else.
 */
let db: { url: string; drop(): Promise<void> };
let sql: Sql;
beforeAll(async () => {
  db = await isolatedDatabase('holdrules');
  sql = connectDatabase(db.url, { max: 2, applicationName: 'test-hold-rules' });
});
afterAll(async () => {
  await sql.end({ timeout: 1 });
  await db.drop();
});

/** The CHECKs dropped by migration 0022, word for word: the model the trigger must match. */
const FORMER_CHECKS = `
  (expires_at > created_at) IS NOT FALSE
  AND (((status)::text = 'ACTIVE'::text) = (ended_at IS NULL)) IS NOT FALSE
  AND ((quantity >= 1) AND (quantity <= 50)) IS NOT FALSE
  AND ((((fare_class IS NULL) AND (quantity IS NULL) AND ((cardinality(seat_codes) >= 1) AND (cardinality(seat_codes) <= 50)))
       OR ((fare_class IS NOT NULL) AND (quantity IS NOT NULL) AND (cardinality(seat_codes) = 0)))) IS NOT FALSE`;

interface HoldRow {
  status: 'ACTIVE' | 'CANCELLED' | 'EXPIRED' | 'CONFIRMED';
  ended: boolean;
  expiresInSeconds: number;
  fareClass: string | null;
  quantity: number | null;
  seats: number;
}

const holdRow = fc.record({
  status: fc.constantFrom('ACTIVE', 'CANCELLED', 'EXPIRED', 'CONFIRMED'),
  ended: fc.boolean(),
  expiresInSeconds: fc.integer({ min: -60, max: 600 }),
  fareClass: fc.option(fc.constant('STANDARD'), { nil: null }),
  quantity: fc.option(fc.integer({ min: -1, max: 52 }), { nil: null }),
  seats: fc.constantFrom(0, 1, 2, 50, 51),
}) as fc.Arbitrary<HoldRow>;

const seatCodes = (n: number) => Array.from({ length: n }, (_, i) => `A${i + 1}`);

function insertHold(tx: Sql, row: HoldRow) {
  return tx`
    INSERT INTO seat_hold (id, showtime_id, customer_id, seat_codes, status, created_at, expires_at, ended_at, fare_class, quantity)
    VALUES (gen_random_uuid(), 1, 'c', ${seatCodes(row.seats)}::varchar[], ${row.status}, now(),
            now() + make_interval(secs => ${row.expiresInSeconds}), CASE WHEN ${row.ended} THEN now() END,
            ${row.fareClass}, ${row.quantity})
    RETURNING id`;
}

async function formerChecksAllow(row: HoldRow): Promise<boolean> {
  const [result] = await sql.unsafe(
    `SELECT ${FORMER_CHECKS} AS allowed
       FROM (SELECT $1::varchar[] AS seat_codes, $2::text AS status, now() AS created_at,
                    now() + make_interval(secs => $3::int) AS expires_at, CASE WHEN $4::boolean THEN now() END AS ended_at,
                    $5::text AS fare_class, $6::int AS quantity) AS r`,
    [seatCodes(row.seats), row.status, row.expiresInSeconds, row.ended, row.fareClass, row.quantity],
  );
  return result!.allowed as boolean;
}

const attempt = (write: (tx: Sql) => Promise<unknown>, before?: (tx: Sql) => Promise<unknown>) =>
  attemptRolledBack(sql, write, before);

const dropTrigger = (tx: Sql) => tx`DROP TRIGGER seat_hold_state ON seat_hold`;
const activeSeats: HoldRow = {
  status: 'ACTIVE',
  ended: false,
  expiresInSeconds: 600,
  fareClass: null,
  quantity: null,
  seats: 2,
};

const badWrites = [
  {
    rule: 'seat_hold_expires_after_creation',
    write: (tx: Sql) => insertHold(tx, { ...activeSeats, expiresInSeconds: -1 }),
  },
  {
    rule: 'seat_hold_ended_unless_active',
    write: (tx: Sql) => insertHold(tx, { ...activeSeats, ended: true }),
  },
  {
    rule: 'seat_hold_seats_or_places',
    write: (tx: Sql) => insertHold(tx, { ...activeSeats, seats: 51 }),
  },
  {
    rule: 'seat_hold_seats_or_places',
    write: (tx: Sql) => insertHold(tx, { ...activeSeats, fareClass: 'STANDARD', quantity: 2 }),
  },
  {
    // An update that leaves the status alone must not slip past: ended while still ACTIVE.
    rule: 'seat_hold_ended_unless_active',
    write: async (tx: Sql) => {
      const [hold] = await insertHold(tx, activeSeats);
      await tx`UPDATE seat_hold SET ended_at = now() WHERE id = ${hold!.id as string}`;
    },
  },
];

describe('a hold row breaking a rule', () => {
  it.each(badWrites)('is refused with check_violation named $rule', async ({ rule, write }) => {
    expect(await attempt(write)).toMatchObject({ refused: true, code: '23514', constraint: rule });
  });

  it.each(badWrites)('broken variant: without the trigger, the $rule write goes through', async ({ write }) => {
    expect(await attempt(write, dropTrigger)).toEqual({ refused: false });
  });
});

describe('the trigger refuses exactly what the former CHECKs refused', () => {
  it('on random rows (inserted)', async () => {
    await fc.assert(
      fc.asyncProperty(holdRow, async (row) => {
        const outcome = await attempt((tx) => insertHold(tx, row));
        expect(outcome.refused ? outcome.code : 'stored').toBe((await formerChecksAllow(row)) ? 'stored' : '23514');
      }),
      { numRuns: 150 },
    );
  });

  it('on random rows (an allowed hold updated into them)', async () => {
    await fc.assert(
      fc.asyncProperty(holdRow, async (row) => {
        const outcome = await attempt(async (tx) => {
          const [hold] = await insertHold(tx, activeSeats);
          // A move the state machine refuses would hide the rule: ACTIVE stays ACTIVE here, or
          // goes to a state it may go to.
          await tx`
            UPDATE seat_hold
               SET status = ${row.status}, ended_at = CASE WHEN ${row.ended} THEN now() END,
                   expires_at = created_at + make_interval(secs => ${row.expiresInSeconds}),
                   fare_class = ${row.fareClass}, quantity = ${row.quantity}, seat_codes = ${seatCodes(row.seats)}::varchar[]
             WHERE id = ${hold!.id as string}`;
        });
        expect(outcome.refused ? outcome.code : 'stored').toBe((await formerChecksAllow(row)) ? 'stored' : '23514');
      }),
      { numRuns: 150 },
    );
  });
});
