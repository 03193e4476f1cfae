import { Gauge, type Registry } from 'prom-client';
import type { Sql } from 'postgres';

/**
 * Retention: the tables that only grow are kept to what someone may still need.
 *
 * - state_transition is partitioned by month, show_seat and seat_hold by the same blocks of
 *   showtime ids (migrations/0007_operations_retention.sql, 0011_seat_hold_partitions.sql; the
 *   partition functions, one generic helper among them, are in migrations/functions/): this
 *   job creates partitions ahead of time (the coming months; the blocks after the newest
 *   showtime's) and detaches those past their retention (months; blocks whose showtimes all
 *   started long enough ago: a block's seats and holds together) into the `archive` schema, to
 *   be dumped and dropped by an operator. Payments and bookings stay: they name their hold by
 *   (showtime, id), which the archived block still has.
 * - payment_event (webhook deduplication) rows are deleted after their retention: a gateway stops
 *   redelivering an event within days, and a redelivery is also settled by state, not only by id.
 * - The outbox (published rows only) and idempotency keys are purged by the sweeper
 *   (sweeper.ts); their backlog is reported here with the others.
 *
 * Safe on many instances at once: partition DDL runs under a transaction-scoped advisory lock
 * that other instances skip rather than wait for, with a short lock_timeout so holds writing
 * their transitions are never kept waiting longer than that; deletes are batched and idempotent.
 */
export interface RetentionSettings {
  /** Months of state_transition kept attached (the current month is always kept). */
  transitionRetentionMonths: number;
  /** Monthly partitions that exist ahead of the current one. */
  partitionsAheadMonths: number;
  /** A block of show_seat and seat_hold is detached once all its showtimes started this many days ago. */
  showSeatRetentionDays: number;
  /** show_seat and seat_hold blocks that exist after the one holding the newest showtime. */
  showSeatBlocksAhead: number;
  webhookEventRetentionDays: number;
  /** Published outbox rows are kept this long by the sweeper; reported here as backlog. */
  outboxRetention: string;
  deleteBatchSize: number;
}

export const DEFAULT_RETENTION: RetentionSettings = {
  transitionRetentionMonths: 13,
  partitionsAheadMonths: 3,
  showSeatRetentionDays: 30,
  showSeatBlocksAhead: 2,
  webhookEventRetentionDays: 30,
  outboxRetention: '1 day',
  deleteBatchSize: 5000,
};

const PARTITION_LOCK = 'partition_maintenance';

export interface PartitionPass {
  /** False when another instance held the maintenance lock or a table lock was not granted in time. */
  ran: boolean;
  created: number;
  detached: string[];
}

/**
 * Creates the partitions ahead and detaches those past retention, for state_transition,
 * show_seat and seat_hold, in one short transaction.
 */
export async function maintainPartitions(
  sql: Sql,
  settings: RetentionSettings = DEFAULT_RETENTION,
): Promise<PartitionPass> {
  try {
    return await sql.begin(async (tx) => {
      const [lock] = await tx<
        { ok: boolean }[]
      >`SELECT pg_try_advisory_xact_lock(hashtextextended(${PARTITION_LOCK}, 0)) AS ok`;
      if (!lock!.ok) return { ran: false, created: 0, detached: [] };
      // Creating or detaching a partition locks the parent briefly; a hold writing its
      // transition waits at most this long, and the pass is retried next time instead.
      await tx`SET LOCAL lock_timeout = '200ms'`;
      const [made] = await tx<{ created: number }[]>`
        SELECT state_transition_ensure_partitions(
                 date_trunc('month', now(), 'UTC'),
                 date_trunc('month', now(), 'UTC') + make_interval(months => ${settings.partitionsAheadMonths + 1})) AS created`;
      const detached = await tx<{ name: string }[]>`
        SELECT state_transition_detach_partitions(
                 date_trunc('month', now(), 'UTC') - make_interval(months => ${settings.transitionRetentionMonths})) AS name`;
      const [blocks] = await tx<{ created: number }[]>`
        SELECT show_seat_ensure_partitions(
                 coalesce((SELECT max(id) FROM showtime), 0) + ${settings.showSeatBlocksAhead} * show_seat_block_size()) AS created`;
      const finished = await tx<{ name: string }[]>`
        SELECT show_seat_detach_partitions(now() - make_interval(days => ${settings.showSeatRetentionDays})) AS name`;
      const [holdBlocks] = await tx<{ created: number }[]>`
        SELECT seat_hold_ensure_partitions(
                 coalesce((SELECT max(id) FROM showtime), 0) + ${settings.showSeatBlocksAhead} * show_seat_block_size()) AS created`;
      const finishedHolds = await tx<{ name: string }[]>`
        SELECT seat_hold_detach_partitions(now() - make_interval(days => ${settings.showSeatRetentionDays})) AS name`;
      return {
        ran: true,
        created: made!.created + blocks!.created + holdBlocks!.created,
        detached: [...detached, ...finished, ...finishedHolds].map((row) => row.name),
      };
    });
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') return { ran: false, created: 0, detached: [] };
    throw error;
  }
}

/** Deletes webhook events past their retention, one batch; returns how many went. */
export async function purgeOldWebhookEvents(
  sql: Sql,
  settings: RetentionSettings = DEFAULT_RETENTION,
): Promise<number> {
  const rows = await sql`
    DELETE FROM payment_event WHERE event_id IN (
      SELECT event_id FROM payment_event
       WHERE received_at < now() - make_interval(days => ${settings.webhookEventRetentionDays})
       LIMIT ${settings.deleteBatchSize})
    RETURNING 1`;
  return rows.length;
}

/** One retention pass: partitions, then webhook events until a short batch. */
export async function runRetention(sql: Sql, settings: RetentionSettings = DEFAULT_RETENTION): Promise<number> {
  const partitions = await maintainPartitions(sql, settings);
  let removed = 0;
  for (let batch = settings.deleteBatchSize; batch === settings.deleteBatchSize; removed += batch) {
    batch = await purgeOldWebhookEvents(sql, settings);
  }
  return removed + partitions.created + partitions.detached.length;
}

export interface RetentionBacklog {
  outbox: number;
  idempotency_key: number;
  payment_event: number;
  /** Rows in partitions due to be detached (estimated from the planner's statistics). */
  state_transition: number;
  show_seat: number;
  seat_hold: number;
  /** Rows that landed in a DEFAULT partition: the job fell behind creating partitions. */
  state_transition_default: number;
  show_seat_default: number;
  seat_hold_default: number;
  /** Whole months after the current one. */
  state_transition_ahead: number;
  /** Blocks after the one holding the newest showtime. */
  show_seat_ahead: number;
  seat_hold_ahead: number;
}

/** What is past its retention and still there, read at each scrape. */
export async function readRetentionBacklog(
  sql: Sql,
  settings: RetentionSettings = DEFAULT_RETENTION,
): Promise<RetentionBacklog> {
  const [row] = await sql<RetentionBacklog[]>`
    WITH months AS (
      SELECT c.reltuples,
             make_timestamptz(substr(c.relname, 19, 4)::int, substr(c.relname, 24, 2)::int, 1, 0, 0, 0, 'UTC') AS month_start
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'state_transition'::regclass AND c.relname ~ '^state_transition_y[0-9]{4}m[0-9]{2}$'
    ), blocks AS (
      SELECT substr(c.relname, 12)::bigint AS low
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'show_seat'::regclass AND c.relname ~ '^show_seat_b[0-9]{12}$'
    ), hold_blocks AS (
      SELECT substr(c.relname, 12)::bigint AS low
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'seat_hold'::regclass AND c.relname ~ '^seat_hold_b[0-9]{12}$'
    ), newest AS (SELECT coalesce(max(id), 0) AS id FROM showtime)
    SELECT
      (SELECT count(*) FROM outbox WHERE published_at < now() - ${settings.outboxRetention}::interval)::int AS outbox,
      (SELECT count(*) FROM idempotency_key WHERE expires_at <= now())::int AS idempotency_key,
      (SELECT count(*) FROM payment_event
        WHERE received_at < now() - make_interval(days => ${settings.webhookEventRetentionDays}))::int AS payment_event,
      -- Estimated: counting months of history at every scrape would cost more than it tells.
      (SELECT coalesce(sum(greatest(reltuples, 0)), 0) FROM months
        WHERE month_start + interval '1 month'
              <= date_trunc('month', now(), 'UTC') - make_interval(months => ${settings.transitionRetentionMonths}))::int AS state_transition,
      -- The blocks the job would archive now, by the rule it uses (showtime_block_partitions_finished).
      (SELECT coalesce(sum(greatest(c.reltuples, 0)), 0)
         FROM showtime_block_partitions_finished('show_seat', now() - make_interval(days => ${settings.showSeatRetentionDays})) f
         JOIN pg_class c ON c.oid = f.partition_name::regclass)::int AS show_seat,
      (SELECT coalesce(sum(greatest(c.reltuples, 0)), 0)
         FROM showtime_block_partitions_finished('seat_hold', now() - make_interval(days => ${settings.showSeatRetentionDays})) f
         JOIN pg_class c ON c.oid = f.partition_name::regclass)::int AS seat_hold,
      (SELECT count(*) FROM state_transition_default)::int AS state_transition_default,
      (SELECT count(*) FROM show_seat_default)::int AS show_seat_default,
      (SELECT count(*) FROM seat_hold_default)::int AS seat_hold_default,
      (SELECT count(*) FROM months WHERE month_start > date_trunc('month', now(), 'UTC'))::int AS state_transition_ahead,
      (SELECT count(*) FROM blocks b, newest n WHERE b.low > n.id)::int AS show_seat_ahead,
      (SELECT count(*) FROM hold_blocks b, newest n WHERE b.low > n.id)::int AS seat_hold_ahead`;
  return row!;
}

/** The backlog gauges on /metrics: one query per scrape, shared by every series. */
export function registerRetentionGauges(registry: Registry, sql: Sql, settings: RetentionSettings = DEFAULT_RETENTION) {
  let pending: Promise<RetentionBacklog | null> | null = null;
  const read = () =>
    (pending ??= readRetentionBacklog(sql, settings)
      .catch(() => null)
      .finally(() => setTimeout(() => (pending = null), 0)));
  new Gauge({
    name: 'core_retention_backlog_rows',
    help: 'Rows past their retention and not yet removed, by table (partitioned tables estimated)',
    labelNames: ['table'] as const,
    registers: [registry],
    async collect() {
      const backlog = await read();
      for (const table of [
        'outbox',
        'idempotency_key',
        'payment_event',
        'state_transition',
        'show_seat',
        'seat_hold',
      ] as const) {
        this.set({ table }, backlog?.[table] ?? 0);
      }
    },
  });
  new Gauge({
    name: 'core_partition_default_rows',
    help: 'Rows in a DEFAULT partition, by table (their partition had not been created in time)',
    labelNames: ['table'] as const,
    registers: [registry],
    async collect() {
      const backlog = await read();
      this.set({ table: 'state_transition' }, backlog?.state_transition_default ?? 0);
      this.set({ table: 'show_seat' }, backlog?.show_seat_default ?? 0);
      this.set({ table: 'seat_hold' }, backlog?.seat_hold_default ?? 0);
    },
  });
  new Gauge({
    name: 'core_partitions_ahead',
    help: 'Partitions created ahead, by table (state_transition: months after this one; show_seat, seat_hold: blocks after the newest showtime)',
    labelNames: ['table'] as const,
    registers: [registry],
    async collect() {
      const backlog = await read();
      // Unknown (database unreachable) reads as healthy here; core_database_up reports that.
      this.set(
        { table: 'state_transition' },
        backlog?.state_transition_ahead ?? DEFAULT_RETENTION.partitionsAheadMonths,
      );
      this.set({ table: 'show_seat' }, backlog?.show_seat_ahead ?? DEFAULT_RETENTION.showSeatBlocksAhead);
      this.set({ table: 'seat_hold' }, backlog?.seat_hold_ahead ?? DEFAULT_RETENTION.showSeatBlocksAhead);
    },
  });
}
