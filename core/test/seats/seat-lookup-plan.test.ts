import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { isolatedDatabase } from '../../../test/support/env';
import { connectDatabase, type Db } from '../../src/db/connect';
import { endHold, holdSeats } from '../../src/seats/seat-repo';
import { confirmHold } from '../../src/payments/payment-repo';
import { randomUUID } from 'node:crypto';
import { createCoreHarness, unique, type CoreHarness } from '../core-harness';

/**
 * Ending a hold reads its own seats, not every held seat of the partition. The core runs generic
 * plans (connect.ts), planned once per connection with whatever statistics the tables had then:
 * at an opening, statistics taken before the crowd say almost nothing is held. A cancel that
 * found its seats by joining the hold's CTE got a hash join over a scan of every held seat's
 * index entry (dead ones included), so each cancel grew slower with every hold the partition
 * had seen. Counted in blocks this transaction read from show_seat and its indexes, which does
 * not depend on the machine's speed; the old statement, kept below, is shown to read them all.
 */
let db: { url: string; drop(): Promise<void> };
let sql: Sql;
let h: CoreHarness;
beforeAll(async () => {
  db = await isolatedDatabase('seatlookup');
  sql = connectDatabase(db.url, { max: 4, applicationName: 'test-seat-lookup' });
  h = await createCoreHarness(sql);
});
afterAll(async () => {
  await sql.end({ timeout: 1 });
  await db.drop();
});

/** The cancel as it was: seats locked and freed by joining the CTE that ended the hold. */
async function endHoldJoiningTheCte(tx: Db, args: { holdId: string; customerId: string; showtimeId: number }) {
  await tx`
    WITH ended AS (
      UPDATE seat_hold SET status = 'CANCELLED', status_cause = 'cancelled by customer', ended_at = now()
       WHERE id = ${args.holdId}::uuid AND customer_id = ${args.customerId}
         AND showtime_id = ${args.showtimeId} AND status = 'ACTIVE'
      RETURNING id, showtime_id, seat_codes
    ), locked AS (
      SELECT s.showtime_id, s.seat_code
        FROM show_seat s JOIN ended e ON s.showtime_id = e.showtime_id AND s.seat_code = ANY (e.seat_codes)
       ORDER BY s.showtime_id, s.seat_code
         FOR UPDATE OF s
    )
    UPDATE show_seat s SET status = 'AVAILABLE', hold_id = NULL, customer_id = NULL, hold_expires_at = NULL
      FROM locked l, ended e
     WHERE s.showtime_id = l.showtime_id AND s.seat_code = l.seat_code AND s.hold_id = e.id AND s.status = 'HELD'`;
}

/** Blocks this transaction has read from a partitioned table's partitions and their indexes. */
async function blocksRead(tx: Db, table: 'show_seat' | 'seat_hold'): Promise<number> {
  const [row] = await tx<{ blocks: number }[]>`
    SELECT coalesce(sum(pg_stat_get_xact_blocks_fetched(c.oid)), 0)::int AS blocks
      FROM pg_class c WHERE c.relname LIKE ${`${table.replace('_', '\\_')}%`} AND c.relkind IN ('r', 'i')`;
  return row!.blocks;
}

async function blocksToEnd(
  cancel: (tx: Db, args: { holdId: string; customerId: string; showtimeId: number; cause: string }) => Promise<unknown>,
  showtimeId: number,
): Promise<number> {
  const customerId = unique('buyer');
  const held = await h.hold(showtimeId, customerId, ['A1', 'A2']);
  expect(held.status, JSON.stringify(held.json)).toBe(201);
  const holdId = (held.json as { holdId: string }).holdId;
  return sql.begin(async (tx) => {
    const before = await blocksRead(tx, 'show_seat');
    await cancel(tx, { holdId, customerId, showtimeId, cause: 'cancelled by customer' });
    const after = await blocksRead(tx, 'show_seat');
    const [seats] = await tx<{ held: number }[]>`
      SELECT count(*)::int AS held FROM show_seat WHERE showtime_id = ${showtimeId} AND hold_id = ${holdId}::uuid`;
    expect(seats!.held, 'the cancel freed the seats').toBe(0);
    return after - before;
  }) as Promise<number>;
}

it('frees a hold by key while thousands of other seats in its partition are held', async () => {
  const { showtimeId } = await h.createShowtime({ layout: { rows: 4, columns: 10 } });
  const crowd: number[] = [];
  for (let i = 0; i < 6; i++) crowd.push((await h.createShowtime({ layout: { rows: 20, columns: 30 } })).showtimeId);
  // Statistics from before the opening: nothing held yet.
  await sql`ANALYZE show_seat`;
  // The opening: 3,600 seats of the other showtimes held, each under its own hold id.
  await sql`
    UPDATE show_seat SET status = 'HELD', hold_id = gen_random_uuid(), customer_id = 'crowd',
           hold_expires_at = now() + interval '10 minutes'
     WHERE showtime_id = ANY (${crowd}::bigint[])`;

  const byKey = await blocksToEnd(endHold, showtimeId);
  const joined = await blocksToEnd(endHoldJoiningTheCte, showtimeId);
  // Two seats: index and heap pages of those seats and the index entries the update writes
  // (about 40 here), whatever the crowd.
  expect(byKey, `the cancel read ${byKey} blocks of show_seat`).toBeLessThan(100);
  // The broken variant is caught: it walks the crowd's held seats (about 3,500 blocks here).
  expect(joined, `the joining cancel read ${joined} blocks`).toBeGreaterThan(10 * byKey);

  // The payment's confirmation books the seats with the same keyed lookup.
  const buyer = unique('payer');
  const held = await h.hold(showtimeId, buyer, ['B1', 'B2']);
  const holdId = (held.json as { holdId: string }).holdId;
  const confirming = await sql.begin(async (tx) => {
    const before = await blocksRead(tx, 'show_seat');
    const row = await confirmHold(tx, { holdId, showtimeId, bookingId: randomUUID(), paymentId: 'pay_plan' });
    return { row, blocks: (await blocksRead(tx, 'show_seat')) - before };
  });
  expect(confirming.row).toMatchObject({ confirmed: true, seat_count: 2, seats_booked: 2 });
  expect(confirming.blocks, `the confirmation read ${confirming.blocks} blocks`).toBeLessThan(100);
});

/**
 * A database of its own with two showtimes in one seat_hold partition (the buyer's and a crowd's),
 * autovacuum off there: its ANALYZE would re-plan mid-test and hide what a busy sale sees until
 * it runs. Statistics say seat_hold is empty, as after a deploy or on a new partition.
 */
async function saleOnAnEmptySeatHold(label: string, before?: (setup: Sql) => Promise<unknown>) {
  const fresh = await isolatedDatabase(label);
  const setup = connectDatabase(fresh.url, { max: 2, applicationName: `test-${label}` });
  const harness = await createCoreHarness(setup);
  const { showtimeId } = await harness.createShowtime({ layout: { rows: 2, columns: 10 } });
  const crowd = (await harness.createShowtime({ layout: { rows: 2, columns: 10 } })).showtimeId;
  const partitions = await setup<{ name: string }[]>`
    SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'seat_hold'::regclass`;
  for (const { name } of partitions) await setup`ALTER TABLE ${setup(name)} SET (autovacuum_enabled = false)`;
  await before?.(setup);
  await setup`ANALYZE seat_hold`;
  const connections: Sql[] = [];
  return {
    showtimeId,
    crowd,
    setup,
    /** A connection of the core's kind (its plans are kept); `SET …` statements run first. */
    async connection(...settings: string[]) {
      const db = connectDatabase(fresh.url, { max: 1, applicationName: `test-${label}-core` });
      connections.push(db);
      // postgres.js learns the array types on a connection's first query; sql.array needs them.
      await db`SELECT 1`;
      for (const setting of settings) await db.unsafe(setting);
      return db;
    },
    /** One buyer holds `seat` and cancels; the blocks of seat_hold the cancel read. */
    async cancelBlocks(db: Sql, seat: string): Promise<number> {
      const customerId = unique('buyer');
      const holdId = randomUUID();
      await holdSeats(db, { showtimeId, customerId, seatCodes: [seat], holdId });
      return db.begin(async (tx) => {
        const before = await blocksRead(tx, 'seat_hold');
        const ended = await endHold(tx, { holdId, customerId, showtimeId, cause: 'cancelled by customer' });
        expect(ended?.seats_freed).toBe(1);
        return (await blocksRead(tx, 'seat_hold')) - before;
      }) as Promise<number>;
    },
    async close() {
      await Promise.all([setup.end({ timeout: 1 }), ...connections.map((db) => db.end({ timeout: 1 }))]);
      await fresh.drop();
    },
  };
}

/**
 * The core's connections plan once (generic plans, connect.ts) and keep the plan: a plan made
 * while seat_hold was empty (a new database, a new partition, the first hold after a deploy)
 * read every hold of the partition, sequentially, for each hold and cancel after it, as the
 * table grew. Measured: a sale ran at 280 holds/s and fell round after round; with sequential
 * scans off for the core's sessions, 700. Here: a connection plans its hold and cancel on an
 * empty seat_hold, 20,000 holds arrive, then one more hold and cancel is counted in blocks.
 */
it('keeps reading holds by key after seat_hold grows under plans made while it was empty', async () => {
  const sale = await saleOnAnEmptySeatHold('emptyplans');
  try {
    const asCore = await sale.connection();
    const withSeqScans = await sale.connection('SET enable_seqscan = on'); // the planner's default
    await sale.cancelBlocks(asCore, 'A1'); // plans made on an empty table
    await sale.cancelBlocks(withSeqScans, 'A2');
    // An hour of selling: 20,000 holds in the same partition, ended (cancelled, lapsed or paid)
    // as most holds are.
    await sale.setup`
      INSERT INTO seat_hold (id, showtime_id, customer_id, seat_codes, expires_at, status, status_cause, ended_at)
      SELECT gen_random_uuid(), ${sale.crowd}, 'crowd-' || n, ARRAY['A1'], now() + interval '1 minute', 'CANCELLED', 'crowd', now()
        FROM generate_series(1, 20000) AS n`;
    const keyed = await sale.cancelBlocks(asCore, 'A3');
    const scanned = await sale.cancelBlocks(withSeqScans, 'A4');
    expect(keyed, `the core's cancel read ${keyed} blocks of seat_hold`).toBeLessThan(50);
    expect(scanned, `the cancel planned with sequential scans read ${scanned} blocks`).toBeGreaterThan(10 * keyed);
  } finally {
    await sale.close();
  }
});

/**
 * Without sequential scans, a plan made on an empty seat_hold must still not pick an index that
 * lists every live hold. The sweeper's index once did (expires_at WHERE status = 'ACTIVE', which
 * a cancel's "status = 'ACTIVE'" made a candidate); its predicate now names ended_at too, which
 * only the sweeper states (migration 0019). Measured with 20,000 live holds in the partition; the
 * old index, recreated, is the broken variant.
 */
async function cancelBlocksAmongLiveHolds(withTheOldSweeperIndex: boolean): Promise<number> {
  const sale = await saleOnAnEmptySeatHold('liveholds', (setup) =>
    withTheOldSweeperIndex
      ? setup`CREATE INDEX old_sweeper_idx ON seat_hold (expires_at) WHERE status = 'ACTIVE'`
      : Promise.resolve(),
  );
  try {
    const asCore = await sale.connection();
    await sale.cancelBlocks(asCore, 'A1'); // plans made on an empty table
    // The opening: 20,000 holds live at once in the same partition.
    await sale.setup`
      INSERT INTO seat_hold (id, showtime_id, customer_id, seat_codes, expires_at)
      SELECT gen_random_uuid(), ${sale.crowd}, 'crowd-' || n, ARRAY['A1'], now() + interval '10 minutes'
        FROM generate_series(1, 20000) AS n`;
    return await sale.cancelBlocks(asCore, 'A2');
  } finally {
    await sale.close();
  }
}

it('keeps a cancel on the primary key among 20,000 live holds, under plans made on an empty table', async () => {
  const keyed = await cancelBlocksAmongLiveHolds(false);
  const throughTheOldIndex = await cancelBlocksAmongLiveHolds(true);
  expect(keyed, `the cancel read ${keyed} blocks of seat_hold`).toBeLessThan(50);
  expect(throughTheOldIndex, `with the old sweeper index: ${throughTheOldIndex} blocks`).toBeGreaterThan(10 * keyed);
});
