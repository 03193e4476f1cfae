/**
 * Retention on the real PostgreSQL, on a database of its own (the job detaches partitions and
 * deletes rows across the whole table): months created ahead and detached after their
 * retention, holds going on unharmed while the job runs, show_seat blocks made ahead and
 * archived, webhook events trimmed, outbox rows the relay has not published never deleted, the
 * backlog on /metrics. seat_hold's blocks: seat-hold-partitions.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import postgres, { type Sql } from 'postgres';
import { Registry } from 'prom-client';
import { registerBacklogGauges } from '../../src/metrics';
import { purgePublishedOutbox } from '../../src/jobs/sweeper';
import {
  DEFAULT_RETENTION,
  maintainPartitions,
  purgeOldWebhookEvents,
  readRetentionBacklog,
  registerRetentionGauges,
  runRetention,
} from '../../src/jobs/retention';
import { releasedTogether, unique, type CoreHarness } from '../core-harness';
import type { PaymentHarness } from '../payment-harness';
import { BLOCK, blockName, openPartitionDatabase, showtimeWithId, type PartitionDatabase } from './partition-blocks';

let database: PartitionDatabase;
let sql: Sql;
let core: CoreHarness;
let payments: PaymentHarness;

beforeAll(async () => {
  database = await openPartitionDatabase('retention');
  ({ sql, core, payments } = database);
});
afterAll(() => database?.close());

const monthName = (date: Date) =>
  `state_transition_y${date.getUTCFullYear()}m${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
const monthsFromNow = (months: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, 1));
};

async function attachedPartitions(): Promise<string[]> {
  const rows = await sql<{ name: string }[]>`
    SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'state_transition'::regclass ORDER BY 1`;
  return rows.map((row) => row.name);
}

describe('state_transition partitions', () => {
  it('the job creates the coming months ahead of time, and a second pass changes nothing', async () => {
    // Take the furthest month away, as if the job had not run for a while.
    const furthest = monthName(monthsFromNow(DEFAULT_RETENTION.partitionsAheadMonths));
    await sql.unsafe(`DROP TABLE IF EXISTS ${furthest}`);
    expect(await attachedPartitions()).not.toContain(furthest);

    const pass = await maintainPartitions(sql);
    expect(pass).toMatchObject({ ran: true });
    expect(pass.created).toBeGreaterThanOrEqual(1);
    const attached = await attachedPartitions();
    for (let ahead = 0; ahead <= DEFAULT_RETENTION.partitionsAheadMonths; ahead++)
      expect(attached).toContain(monthName(monthsFromNow(ahead)));
    expect(attached).toContain('state_transition_default');
    expect(await maintainPartitions(sql)).toEqual({ ran: true, created: 0, detached: [] });
    expect((await readRetentionBacklog(sql)).state_transition_ahead).toBe(DEFAULT_RETENTION.partitionsAheadMonths);
  });

  it('detaches months past their retention into the archive schema, rows and all, and keeps the rest', async () => {
    const old = monthsFromNow(-(DEFAULT_RETENTION.transitionRetentionMonths + 2));
    const kept = monthsFromNow(-(DEFAULT_RETENTION.transitionRetentionMonths - 1));
    await sql`SELECT state_transition_ensure_partitions(${old}, ${monthsFromNow(2 - DEFAULT_RETENTION.transitionRetentionMonths)})`;
    const entity = unique('old');
    await sql`
      INSERT INTO state_transition (entity_type, entity_id, to_state, cause, at)
      SELECT 'hold', ${entity}, 'ACTIVE', 'history', ${old}::timestamptz + make_interval(mins => n) FROM generate_series(1, 500) AS n`;
    await sql`
      INSERT INTO state_transition (entity_type, entity_id, to_state, cause, at)
      VALUES ('hold', ${entity}, 'ACTIVE', 'recent enough', ${kept}::timestamptz + interval '1 day')`;
    await sql`ANALYZE state_transition`;
    const backlog = await readRetentionBacklog(sql);
    expect(backlog.state_transition).toBeGreaterThanOrEqual(500);

    const pass = await maintainPartitions(sql);
    expect(pass.detached).toContain(monthName(old));
    expect(pass.detached).not.toContain(monthName(kept));
    const [archived] = await sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM ${sql('archive')}.${sql(monthName(old))} WHERE entity_id = ${entity}`;
    expect(archived!.n).toBe(500);
    const remaining = await sql<{ cause: string }[]>`SELECT cause FROM state_transition WHERE entity_id = ${entity}`;
    expect(remaining.map((row) => row.cause)).toEqual(['recent enough']);
    expect((await readRetentionBacklog(sql)).state_transition).toBe(0);
    // An archived month is not created again by the next pass.
    await sql`SELECT state_transition_ensure_partitions(${old}, ${monthsFromNow(0)})`;
    expect(await attachedPartitions()).not.toContain(monthName(old));
  });

  it('two instances running the job at once: one does the work, neither fails', async () => {
    await sql.unsafe(`DROP TABLE IF EXISTS ${monthName(monthsFromNow(DEFAULT_RETENTION.partitionsAheadMonths))}`);
    const passes = await releasedTogether(4, () => maintainPartitions(sql));
    expect(passes.reduce((sum, pass) => sum + pass.created, 0)).toBe(1);
    expect(passes.filter((pass) => pass.ran).length).toBeGreaterThanOrEqual(1);
    expect(await attachedPartitions()).toContain(monthName(monthsFromNow(DEFAULT_RETENTION.partitionsAheadMonths)));
  });

  it('holds, cancels and bookings keep working while partitions of both tables are created and detached', async () => {
    const { showtimeId } = await core.createShowtime({ layout: { rows: 4, columns: 16 } });
    const sold = await core.createShowtime({ layout: { rows: 4, columns: 26 } });
    const seats = Array.from(
      { length: 64 },
      (_, i) => `${String.fromCharCode(65 + Math.floor(i / 16))}${(i % 16) + 1}`,
    );
    const rounds = 25;
    let stop = false;
    let jobPasses = 0;
    // Real DDL on every pass, as the job does it: a month ahead dropped and recreated, an old month
    // made and detached, a show_seat block attached and detached (parent locks each time).
    const churn = (async () => {
      for (let i = 0; !stop; i++) {
        await sql.unsafe(`DROP TABLE IF EXISTS ${monthName(monthsFromNow(DEFAULT_RETENTION.partitionsAheadMonths))}`);
        const ancient = new Date(Date.UTC(2000 + (i % 20), 0, 1));
        await sql.unsafe(`DROP TABLE IF EXISTS archive.${monthName(ancient)}`);
        await sql`SELECT state_transition_ensure_partitions(${ancient}, ${new Date(ancient.getTime() + 86_400_000)})`.catch(
          () => {},
        );
        await maintainPartitions(sql);
        const far = `show_seat_b9${String(i).padStart(11, '0')}`;
        const low = 900_000_000_000 + i * 10_000;
        await sql
          .begin(async (tx) => {
            await tx`SET LOCAL lock_timeout = '200ms'`;
            await tx.unsafe(`CREATE TABLE ${far} PARTITION OF show_seat FOR VALUES FROM (${low}) TO (${low + 10_000})`);
          })
          .catch(() => {});
        await sql
          .begin(async (tx) => {
            await tx`SET LOCAL lock_timeout = '200ms'`;
            await tx.unsafe(`ALTER TABLE show_seat DETACH PARTITION ${far}`);
            await tx.unsafe(`DROP TABLE ${far}`);
          })
          .catch(() => {});
        jobPasses++;
      }
    })();
    const statuses: number[] = [];
    const paid: { holdId: string; customer: string }[] = [];
    for (let round = 0; round < rounds; round++) {
      // 32 buyers released together, two seats each: all must win, then all cancel; meanwhile two
      // other buyers hold seats of another showtime and pay for them.
      const buyers = releasedTogether(2, async (i) => {
        const customer = `ret-pay-${round}-${i}`;
        const code = (n: number) => `${String.fromCharCode(65 + Math.floor(n / 26))}${(n % 26) + 1}`;
        const hold = await core.hold(sold.showtimeId, customer, [code(round * 4 + 2 * i), code(round * 4 + 2 * i + 1)]);
        statuses.push(hold.status);
        if (hold.status !== 201) return;
        const checkout = await payments.checkout(sold.showtimeId, customer, hold.json.holdId);
        statuses.push(checkout.status);
        if (checkout.status !== 201) return;
        statuses.push(
          (await payments.sandboxApi('POST', `/v1/payments/${checkout.json.paymentId}/approve`)).status === 200
            ? 201
            : 500,
        );
        paid.push({ holdId: hold.json.holdId, customer });
      });
      const holds = await releasedTogether(32, (i) =>
        core.hold(showtimeId, `ret-${round}-${i}`, [seats[2 * i]!, seats[2 * i + 1]!]),
      );
      statuses.push(...holds.map((h) => h.status));
      const cancels = await releasedTogether(32, async (i) => {
        const hold = holds[i]!;
        if (hold.status !== 201) return hold.status;
        return (
          await core.call('DELETE', `/holds/${hold.json.holdId}`, {
            token: await core.tokenFor(`ret-${round}-${i}`, showtimeId),
          })
        ).status;
      });
      statuses.push(...cancels);
      await buyers;
    }
    stop = true;
    await churn;
    // A far block whose detach timed out under load is left attached: take it away now.
    const leftovers = await sql<{ name: string }[]>`
      SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'show_seat'::regclass AND c.relname LIKE 'show_seat_b9%'`;
    for (const { name } of leftovers)
      await sql.unsafe(`ALTER TABLE show_seat DETACH PARTITION ${name}; DROP TABLE ${name}`);
    expect(jobPasses).toBeGreaterThan(1);
    expect(statuses.filter((status) => status !== 201 && status !== 204)).toEqual([]);
    expect(paid).toHaveLength(rounds * 2);
    // The webhooks arrive on their own schedule: every payment ends in a confirmed booking.
    const deadline = Date.now() + 30_000;
    let confirmed = 0;
    while (Date.now() < deadline) {
      const [count] = await sql<{ confirmed: number }[]>`
        SELECT count(*)::int AS confirmed FROM booking WHERE showtime_id = ${sold.showtimeId} AND status = 'CONFIRMED'`;
      confirmed = count!.confirmed;
      if (confirmed === paid.length) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(confirmed).toBe(rounds * 2);
    const [row] = await sql<{ n: number; in_default: number }[]>`
      SELECT count(*)::int AS n, count(*) FILTER (WHERE t.tableoid = 'state_transition_default'::regclass)::int AS in_default
        FROM state_transition t JOIN seat_hold h ON h.id::text = t.entity_id
       WHERE t.entity_type = 'hold' AND h.showtime_id = ${showtimeId}`;
    expect(row).toEqual({ n: rounds * 32 * 2, in_default: 0 });
    const [seatsRow] = await sql<{ booked: number; in_default: number }[]>`
      SELECT count(*) FILTER (WHERE status = 'BOOKED')::int AS booked,
             count(*) FILTER (WHERE tableoid = 'show_seat_default'::regclass)::int AS in_default
        FROM show_seat WHERE showtime_id = ${sold.showtimeId}`;
    expect(seatsRow).toEqual({ booked: rounds * 4, in_default: 0 });
  });
});

describe('show_seat partitions (blocks of showtime ids)', () => {
  const blockNameOf = (low: number) => blockName('show_seat', low);
  /** A 1x5 showtime under `id`, starting in `startsInDays`; written before its block existed when `early`. */
  const showtimeAt = (id: number, startsInDays: number, early = false) =>
    showtimeWithId({ sql, core }, id, { columns: 5, startsInDays, blocks: early ? [] : ['show_seat'] });

  it('every seat of every showtime lives in its block, none in the default partition', async () => {
    const { showtimeId } = await core.createShowtime();
    const [row] = await sql<{ parts: string[]; in_default: number }[]>`
      SELECT array_agg(DISTINCT tableoid::regclass::text) AS parts,
             count(*) FILTER (WHERE tableoid = 'show_seat_default'::regclass)::int AS in_default
        FROM show_seat WHERE showtime_id = ${showtimeId}`;
    expect(row).toEqual({ parts: [blockNameOf(Math.floor(showtimeId / BLOCK) * BLOCK)], in_default: 0 });
  });

  it('seats written before their block existed wait in DEFAULT, holds work on them, and the job moves them into the block', async () => {
    const id = 5 * BLOCK + 7;
    await showtimeAt(id, 3, true);
    const [before] = await sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM show_seat_default WHERE showtime_id = ${id}`;
    expect(before!.n).toBe(5);
    expect((await readRetentionBacklog(sql)).show_seat_default).toBe(5);
    expect((await core.hold(id, unique('early'), ['A1', 'A2'])).status).toBe(201);
    await sql`SELECT show_seat_ensure_partitions(${id})`;
    const [after] = await sql<{ n: number; held: number; part: string }[]>`
      SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'HELD')::int AS held, min(tableoid::regclass::text) AS part
        FROM show_seat WHERE showtime_id = ${id}`;
    expect(after).toEqual({ n: 5, held: 2, part: blockNameOf(5 * BLOCK) });
    expect((await readRetentionBacklog(sql)).show_seat_default).toBe(0);
  });

  it('detaches a block once all its showtimes started long ago, never one with a showtime to come or the newest block', async () => {
    await showtimeAt(3 * BLOCK + 1, -(DEFAULT_RETENTION.showSeatRetentionDays + 5));
    await showtimeAt(4 * BLOCK + 1, -(DEFAULT_RETENTION.showSeatRetentionDays - 5));
    await showtimeAt(6 * BLOCK + 1, 30);
    await sql`ANALYZE show_seat`;
    expect((await readRetentionBacklog(sql)).show_seat).toBeGreaterThanOrEqual(5);

    const pass = await maintainPartitions(sql);
    expect(pass.detached).toContain(blockNameOf(3 * BLOCK));
    expect(pass.detached).not.toContain(blockNameOf(0));
    expect(pass.detached).not.toContain(blockNameOf(4 * BLOCK));
    expect(pass.detached).not.toContain(blockNameOf(6 * BLOCK));
    const [archived] = await sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM ${sql('archive')}.${sql(blockNameOf(3 * BLOCK))} WHERE showtime_id = ${3 * BLOCK + 1}`;
    expect(archived!.n).toBe(5);
    const [left] = await sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM show_seat WHERE showtime_id = ${3 * BLOCK + 1}`;
    expect(left!.n).toBe(0);
    // Blocks after the newest showtime's were created ahead of it.
    const attached = await sql<{ name: string }[]>`
      SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'show_seat'::regclass`;
    expect(attached.map((r) => r.name)).toEqual(
      expect.arrayContaining([blockNameOf(6 * BLOCK), blockNameOf(7 * BLOCK), blockNameOf(8 * BLOCK)]),
    );
    expect((await readRetentionBacklog(sql)).show_seat_ahead).toBe(DEFAULT_RETENTION.showSeatBlocksAhead);
  });
});

describe('row retention', () => {
  it('deletes webhook events past their retention and keeps recent ones', async () => {
    const tag = unique('evt');
    await sql`
      INSERT INTO payment_event (event_id, payment_id, type, outcome, received_at)
      SELECT ${tag} || '-old-' || n, 'pay_x', 'payment.succeeded', 'applied', now() - interval '31 days' FROM generate_series(1, 120) AS n`;
    await sql`
      INSERT INTO payment_event (event_id, payment_id, type, outcome, received_at)
      SELECT ${tag} || '-new-' || n, 'pay_x', 'payment.succeeded', 'applied', now() - interval '29 days' FROM generate_series(1, 30) AS n`;
    expect((await readRetentionBacklog(sql)).payment_event).toBeGreaterThanOrEqual(120);
    // Small batches, as many instances would take them.
    const settings = { ...DEFAULT_RETENTION, deleteBatchSize: 50 };
    const removed = await Promise.all([purgeOldWebhookEvents(sql, settings), purgeOldWebhookEvents(sql, settings)]);
    expect(removed.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    await runRetention(sql, settings);
    const left = await sql<
      { event_id: string }[]
    >`SELECT event_id FROM payment_event WHERE event_id LIKE ${`${tag}-%`}`;
    expect(left.length).toBe(30);
    expect(left.every((row) => row.event_id.includes('-new-'))).toBe(true);
    expect((await readRetentionBacklog(sql)).payment_event).toBe(0);
  });

  it('never deletes an outbox row the relay has not published, however old', async () => {
    const { showtimeId } = await core.createShowtime();
    await sql`
      INSERT INTO outbox (type, showtime_id, payload, created_at, published_at)
      SELECT 'SeatsReleased', ${showtimeId}, jsonb_build_object('n', n), now() - interval '30 days',
             CASE WHEN n % 2 = 0 THEN now() - interval '29 days' END
        FROM generate_series(1, 40) AS n`;
    expect((await readRetentionBacklog(sql)).outbox).toBeGreaterThanOrEqual(20);
    while ((await purgePublishedOutbox(sql)) > 0);
    await runRetention(sql);
    const rows = await sql<
      { published: boolean }[]
    >`SELECT published_at IS NOT NULL AS published FROM outbox WHERE showtime_id = ${showtimeId}`;
    expect(rows.length).toBe(20);
    expect(rows.every((row) => !row.published)).toBe(true);
    expect((await readRetentionBacklog(sql)).outbox).toBe(0);
  });

  it('reports the backlog on /metrics', async () => {
    await sql`
      INSERT INTO idempotency_key (customer_id, key, request_hash, state, created_at, expires_at)
      SELECT ${unique('c')}, 'k' || n, 'h', 'IN_FLIGHT', now() - interval '2 days', now() - interval '1 day' FROM generate_series(1, 7) AS n`;
    const registry = new Registry();
    registerRetentionGauges(registry, sql);
    const text = await registry.metrics();
    expect(text).toMatch(/^core_retention_backlog_rows\{table="idempotency_key"\} ([7-9]|\d\d+)$/m);
    expect(text).toMatch(/^core_retention_backlog_rows\{table="outbox"\} \d+$/m);
    expect(text).toMatch(/^core_retention_backlog_rows\{table="payment_event"\} \d+$/m);
    expect(text).toMatch(/^core_retention_backlog_rows\{table="state_transition"\} \d+$/m);
    expect(text).toMatch(/^core_retention_backlog_rows\{table="show_seat"\} \d+$/m);
    expect(text).toMatch(/^core_retention_backlog_rows\{table="seat_hold"\} \d+$/m);
    expect(text).toMatch(/^core_partition_default_rows\{table="seat_hold"\} 0$/m);
    expect(text).toMatch(
      new RegExp(`^core_partitions_ahead\\{table="seat_hold"\\} ${DEFAULT_RETENTION.showSeatBlocksAhead}$`, 'm'),
    );
    expect(text).toMatch(/^core_partition_default_rows\{table="state_transition"\} 0$/m);
    expect(text).toMatch(/^core_partition_default_rows\{table="show_seat"\} 0$/m);
    expect(text).toMatch(
      new RegExp(
        `^core_partitions_ahead\\{table="state_transition"\\} ${DEFAULT_RETENTION.partitionsAheadMonths}$`,
        'm',
      ),
    );
    expect(text).toMatch(
      new RegExp(`^core_partitions_ahead\\{table="show_seat"\\} ${DEFAULT_RETENTION.showSeatBlocksAhead}$`, 'm'),
    );
  });

  it('reports the age of the oldest unpublished event and pending payment, and whether the database answered', async () => {
    const registry = new Registry();
    registerBacklogGauges(registry, sql);
    const text = await registry.metrics();
    // The outbox test above left unpublished rows 30 days old.
    const age = Number(/^core_outbox_oldest_unpublished_age_seconds (\S+)$/m.exec(text)?.[1]);
    expect(age).toBeGreaterThan(29 * 86_400);
    expect(text).toMatch(/^core_payments_oldest_pending_age_seconds \d+(\.\d+)?$/m);
    expect(text).toMatch(/^core_database_up 1$/m);

    const unreachable = postgres('postgres://postgres@127.0.0.1:1/none', {
      max: 1,
      connect_timeout: 1,
      onnotice: () => {},
    });
    const down = new Registry();
    registerBacklogGauges(down, unreachable);
    expect(await down.metrics()).toMatch(/^core_database_up 0$/m);
    await unreachable.end();
  });
});
