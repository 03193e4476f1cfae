/**
 * seat_hold's partitions on the real PostgreSQL, on a database of their own: holds live in the
 * same blocks of showtime ids as their seats; holds written before their block existed wait in
 * DEFAULT and move in; a finished block is archived with its seats while payments and bookings
 * stay and still name their holds; the job detaches blocks while buyers hold, cancel and pay,
 * and gives a detach up within lock_timeout behind a long transaction.
 */
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RETENTION, maintainPartitions, readRetentionBacklog } from '../../src/jobs/retention';
import { releasedTogether, unique, type CoreHarness } from '../core-harness';
import type { PaymentHarness } from '../payment-harness';
import { BLOCK, blockName, openPartitionDatabase, showtimeWithId, type PartitionDatabase } from './partition-blocks';

let database: PartitionDatabase;
let sql: Sql;
let core: CoreHarness;
let payments: PaymentHarness;

beforeAll(async () => {
  database = await openPartitionDatabase('seat-hold-partitions');
  ({ sql, core, payments } = database);
});
afterAll(() => database?.close());

describe('seat_hold partitions (the same blocks as show_seat)', () => {
  const holdBlock = (low: number) => blockName('seat_hold', low);
  const seatBlock = (low: number) => blockName('show_seat', low);
  /** A 1x6 showtime under `id`, on sale; written before its blocks existed when `early`. */
  const showtimeAt = (id: number, early = false) =>
    showtimeWithId({ sql, core }, id, { columns: 6, blocks: early ? [] : ['show_seat', 'seat_hold'] });

  /** Sells two seats of the showtime (hold, payment, the gateway's webhook) and holds two more; returns the ids. */
  async function sell(showtimeId: number, tag: string) {
    const buyer = unique(tag);
    const hold = await core.hold(showtimeId, buyer, ['A1', 'A2']);
    expect(hold.status).toBe(201);
    const paymentId = await payments.fakePayment({ holdId: hold.json.holdId, showtimeId, customerId: buyer });
    expect(
      (await payments.postCallback(payments.signedCallback({ type: 'payment.succeeded', paymentId }))).status,
    ).toBe(200);
    expect(await payments.paymentState(paymentId)).toMatchObject({ payment: 'SUCCEEDED', booking: 'CONFIRMED' });
    const other = await core.hold(showtimeId, unique(tag), ['A3', 'A4']);
    expect(other.status).toBe(201);
    return { paidHold: hold.json.holdId as string, openHold: other.json.holdId as string, paymentId };
  }

  /** The showtime started long ago (its sale window moved back with it). */
  async function finish(showtimeId: number) {
    await sql`
      UPDATE showtime SET starts_at = now() - make_interval(days => ${DEFAULT_RETENTION.showSeatRetentionDays + 5}),
                          sale_opens_at = now() - make_interval(days => ${DEFAULT_RETENTION.showSeatRetentionDays + 15})
       WHERE id = ${showtimeId}`;
  }

  it("every hold lives in its showtime's block; payments and bookings must name a hold of their own showtime", async () => {
    const { showtimeId } = await core.createShowtime();
    const hold = await core.hold(showtimeId, unique('part'), ['A1']);
    expect(hold.status).toBe(201);
    const [row] = await sql<
      { part: string }[]
    >`SELECT tableoid::regclass::text AS part FROM seat_hold WHERE showtime_id = ${showtimeId}`;
    expect(row!.part).toBe(holdBlock(Math.floor(showtimeId / BLOCK) * BLOCK));
    // The check that replaced the foreign key: a real hold under another showtime is refused.
    const other = await core.createShowtime();
    await expect(
      payments.fakePayment({ holdId: hold.json.holdId, showtimeId: other.showtimeId, customerId: 'x' }),
    ).rejects.toMatchObject({ code: '23503', constraint_name: 'payment_hold_exists' });
    await expect(
      payments.fakePayment({ holdId: '00000000-0000-4000-8000-000000000000', showtimeId, customerId: 'x' }),
    ).rejects.toMatchObject({ code: '23503' });
  });

  it('holds written before their block existed wait in DEFAULT, sell normally, and the job moves them into the block', async () => {
    const id = 11 * BLOCK + 3;
    await sql`SELECT show_seat_ensure_partitions(${id})`;
    await showtimeAt(id, true);
    const sold = await sell(id, 'early-hold');
    expect((await readRetentionBacklog(sql)).seat_hold_default).toBe(2);
    await sql`SELECT seat_hold_ensure_partitions(${id})`;
    const rows = await sql<
      { part: string }[]
    >`SELECT DISTINCT tableoid::regclass::text AS part FROM seat_hold WHERE showtime_id = ${id}`;
    expect(rows.map((r) => r.part)).toEqual([holdBlock(11 * BLOCK)]);
    expect((await readRetentionBacklog(sql)).seat_hold_default).toBe(0);
    // The open hold still ends normally from its new partition.
    const token = await core.tokenFor(
      (await sql`SELECT customer_id FROM seat_hold WHERE showtime_id = ${id} AND id = ${sold.openHold}`)[0]!
        .customer_id,
      id,
    );
    expect((await core.call('DELETE', `/holds/${sold.openHold}`, { token })).status).toBe(204);
  });

  it("archives a finished block's holds with its seats; payments and bookings stay and still name them", async () => {
    const finished = 13 * BLOCK + 1;
    const upcoming = 14 * BLOCK + 1;
    await showtimeAt(finished);
    await showtimeAt(upcoming);
    await showtimeAt(16 * BLOCK + 1); // the newest block is never detached
    const old = await sell(finished, 'old-sale');
    const live = await sell(upcoming, 'live-sale');
    await finish(finished);
    await sql`ANALYZE seat_hold`;
    expect((await readRetentionBacklog(sql)).seat_hold).toBeGreaterThanOrEqual(2);

    const pass = await maintainPartitions(sql);
    expect(pass.detached).toEqual(expect.arrayContaining([holdBlock(13 * BLOCK), seatBlock(13 * BLOCK)]));
    expect(pass.detached).not.toContain(holdBlock(14 * BLOCK));
    const archived = await sql<{ id: string; status: string }[]>`
      SELECT id, status FROM ${sql('archive')}.${sql(holdBlock(13 * BLOCK))} WHERE showtime_id = ${finished} ORDER BY status`;
    expect(archived).toEqual([
      { id: old.openHold, status: 'ACTIVE' },
      { id: old.paidHold, status: 'CONFIRMED' },
    ]);
    const [left] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM seat_hold WHERE showtime_id = ${finished}`;
    expect(left!.n).toBe(0);
    // The money records are kept, and still join to their hold in the archive.
    const [kept] = await sql<{ booking: string; payment: string; seats: string[] }[]>`
      SELECT b.status AS booking, p.status AS payment, h.seat_codes AS seats
        FROM booking b JOIN payment p ON p.id = b.payment_id
        JOIN ${sql('archive')}.${sql(holdBlock(13 * BLOCK))} h ON h.showtime_id = b.showtime_id AND h.id = b.hold_id
       WHERE b.payment_id = ${old.paymentId}`;
    expect(kept).toEqual({ booking: 'CONFIRMED', payment: 'SUCCEEDED', seats: ['A1', 'A2'] });
    // The live block is untouched: its paid hold still reads as booked.
    const token = await core.tokenFor(
      (await sql`SELECT customer_id FROM booking WHERE payment_id = ${live.paymentId}`)[0]!.customer_id,
      upcoming,
    );
    const view = await core.call('GET', `/holds/${live.paidHold}`, { token });
    expect(view.status).toBe(200);
    expect(view.json.bookingId).toEqual(expect.any(String));
    expect((await readRetentionBacklog(sql)).seat_hold).toBe(0);
  });

  it('detaches a finished block per round while 32 buyers hold and cancel and two pay on a live showtime: no request fails', async () => {
    const rounds = 8;
    await showtimeAt(40 * BLOCK + 1); // the newest block
    const live = await core.createShowtime({ layout: { rows: 4, columns: 16 } });
    const paying = await core.createShowtime({ layout: { rows: 2, columns: 20 } });
    const seats = Array.from(
      { length: 64 },
      (_, i) => `${String.fromCharCode(65 + Math.floor(i / 16))}${(i % 16) + 1}`,
    );
    const statuses: number[] = [];
    // One sold showtime per block, all made first (the job detaches empty blocks below the newest).
    for (let round = 0; round < rounds; round++) {
      await showtimeAt((20 + round) * BLOCK + 1);
      await sell((20 + round) * BLOCK + 1, `round-${round}`);
    }
    for (let round = 0; round < rounds; round++) {
      await finish((20 + round) * BLOCK + 1);
      // The job and the buyers released together.
      const [pass, holds, paid] = await Promise.all([
        maintainPartitions(sql),
        releasedTogether(32, (i) => core.hold(live.showtimeId, `rr-${round}-${i}`, [seats[2 * i]!, seats[2 * i + 1]!])),
        releasedTogether(2, async (i) => {
          const buyer = `rp-${round}-${i}`;
          const code = round * 2 + i;
          const hold = await core.hold(paying.showtimeId, buyer, [
            `${String.fromCharCode(65 + Math.floor(code / 20))}${(code % 20) + 1}`,
          ]);
          if (hold.status !== 201) return hold.status;
          const paymentId = await payments.fakePayment({
            holdId: hold.json.holdId,
            showtimeId: paying.showtimeId,
            customerId: buyer,
          });
          const settled = await payments.postCallback(
            payments.signedCallback({ type: 'payment.succeeded', paymentId }),
          );
          return settled.status === 200 ? 201 : settled.status;
        }),
      ]);
      statuses.push(...holds.map((h) => h.status), ...paid);
      const cancels = await releasedTogether(
        32,
        async (i) =>
          (
            await core.call('DELETE', `/holds/${holds[i]!.json.holdId}`, {
              token: await core.tokenFor(`rr-${round}-${i}`, live.showtimeId),
            })
          ).status,
      );
      statuses.push(...cancels);
      // A pass that lost the lock race to the buyers (lock_timeout) retries, as the next run would.
      const detached = pass.ran ? pass.detached : (await maintainPartitions(sql)).detached;
      expect(detached).toContain(holdBlock((20 + round) * BLOCK));
    }
    expect(statuses.filter((status) => status !== 201 && status !== 204)).toEqual([]);
    const [row] = await sql<{ booked: number; in_default: number }[]>`
      SELECT count(*) FILTER (WHERE b.status = 'CONFIRMED')::int AS booked,
             (SELECT count(*) FROM seat_hold_default)::int AS in_default
        FROM booking b WHERE b.showtime_id = ${paying.showtimeId}`;
    expect(row).toEqual({ booked: rounds * 2, in_default: 0 });
    const [holdsLeft] = await sql<{ active: number }[]>`
      SELECT count(*) FILTER (WHERE status = 'ACTIVE')::int AS active FROM seat_hold WHERE showtime_id = ${live.showtimeId}`;
    expect(holdsLeft!.active).toBe(0);
  });
});

describe('seat_hold detach against a long transaction', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('the job gives its detach up within lock_timeout and holds keep flowing; a naive detach (no lock_timeout) stalls every hold behind it', async () => {
    const old = 60 * BLOCK + 1;
    await sql`SELECT show_seat_ensure_partitions(${62 * BLOCK + 1}), seat_hold_ensure_partitions(${62 * BLOCK + 1})`;
    // Both blocks exist (made ahead of 62's), so neither copy waits in DEFAULT.
    for (const id of [old, 62 * BLOCK + 1]) await showtimeWithId({ sql, core }, id, { columns: 4, blocks: [] });
    expect((await core.hold(old, unique('long'), ['A1'])).status).toBe(201);
    await sql`UPDATE showtime SET starts_at = now() - interval '40 days', sale_opens_at = now() - interval '50 days' WHERE id = ${old}`;
    const live = await core.createShowtime({ layout: { rows: 2, columns: 10 } });
    const hold = async (n: number) => {
      const started = Date.now();
      const answer = await core.hold(live.showtimeId, unique(`lt-${n}`), [`${n < 10 ? 'A' : 'B'}${(n % 10) + 1}`]);
      return { status: answer.status, ms: Date.now() - started };
    };

    // A report reading old holds, left open (a long transaction holds its lock on seat_hold).
    const reader = await sql.reserve();
    try {
      await reader`BEGIN`;
      await reader`SELECT count(*) FROM seat_hold WHERE showtime_id = ${old}`;

      // The job: its detach waits at most lock_timeout, gives up, and buyers never notice.
      const pass = await maintainPartitions(sql);
      expect(pass.ran).toBe(false);
      const during = await Promise.all([0, 1, 2, 3].map(hold));
      expect(during.map((h) => h.status)).toEqual([201, 201, 201, 201]);
      expect(Math.max(...during.map((h) => h.ms))).toBeLessThan(1_500);

      // Naive: the same detach with no lock_timeout queues behind the reader, and every hold queues behind it.
      const naive = sql.begin(async (tx) => {
        await tx`SET LOCAL lock_timeout = 0`;
        await tx.unsafe(`ALTER TABLE seat_hold DETACH PARTITION ${blockName('seat_hold', 60 * BLOCK)}`);
      });
      await sleep(300);
      const stalled = hold(4);
      expect(await Promise.race([stalled.then(() => 'answered'), sleep(1_500).then(() => 'stalled')])).toBe('stalled');
      await reader`ROLLBACK`;
      await naive;
      const after = await stalled;
      expect(after.ms).toBeGreaterThanOrEqual(1_500);
    } finally {
      reader.release();
    }
    // Put the block back for the tests after this one (the job would have archived it anyway).
    await sql.unsafe(
      `ALTER TABLE seat_hold ATTACH PARTITION ${blockName('seat_hold', 60 * BLOCK)} FOR VALUES FROM (${60 * BLOCK}) TO (${61 * BLOCK})`,
    );
  });
});
