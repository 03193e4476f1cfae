import { Gauge, type Registry } from 'prom-client';
import type { Sql } from 'postgres';

/**
 * Retention: the tables that only grow are kept to what someone may still need.
 *
 * - state_transition is partitioned by month (migrations/0007_operations_retention.sql): this job
 *   creates the coming months ahead of time and detaches months past their retention into the
 *   `archive` schema, to be dumped and dropped by an operator.
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
  webhookEventRetentionDays: number;
  /** Published outbox rows are kept this long by the sweeper; reported here as backlog. */
  outboxRetention: string;
  deleteBatchSize: number;
}

export const DEFAULT_RETENTION: RetentionSettings = {
  transitionRetentionMonths: 13,
  partitionsAheadMonths: 3,
  webhookEventRetentionDays: 30,
  outboxRetention: '1 day',
  deleteBatchSize: 5000,
};

const PARTITION_LOCK = 'state_transition_partitions';

export interface PartitionPass {
  /** False when another instance held the maintenance lock or a table lock was not granted in time. */
  ran: boolean;
  created: number;
  detached: string[];
}

/** Creates the months ahead and detaches the months past retention, in one short transaction. */
export async function maintainTransitionPartitions(sql: Sql, settings: RetentionSettings = DEFAULT_RETENTION): Promise<PartitionPass> {
  try {
    return await sql.begin(async (tx) => {
      const [lock] = await tx<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtextextended(${PARTITION_LOCK}, 0)) AS ok`;
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
      return { ran: true, created: made!.created, detached: detached.map((row) => row.name) };
    });
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') return { ran: false, created: 0, detached: [] };
    throw error;
  }
}

/** Deletes webhook events past their retention, one batch; returns how many went. */
export async function purgeOldWebhookEvents(sql: Sql, settings: RetentionSettings = DEFAULT_RETENTION): Promise<number> {
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
  const partitions = await maintainTransitionPartitions(sql, settings);
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
  state_transition: number;
  /** Rows that landed in the DEFAULT partition: the job fell behind creating months. */
  state_transition_default: number;
  /** Whole months that exist ahead of the current one. */
  partitions_ahead: number;
}

/** What is past its retention and still there, read at each scrape. */
export async function readRetentionBacklog(sql: Sql, settings: RetentionSettings = DEFAULT_RETENTION): Promise<RetentionBacklog> {
  const [row] = await sql<RetentionBacklog[]>`
    WITH parts AS (
      SELECT c.relname, c.reltuples,
             make_timestamptz(substr(c.relname, 19, 4)::int, substr(c.relname, 24, 2)::int, 1, 0, 0, 0, 'UTC') AS month_start
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'state_transition'::regclass AND c.relname ~ '^state_transition_y[0-9]{4}m[0-9]{2}$'
    )
    SELECT
      (SELECT count(*) FROM outbox WHERE published_at < now() - ${settings.outboxRetention}::interval)::int AS outbox,
      (SELECT count(*) FROM idempotency_key WHERE expires_at <= now())::int AS idempotency_key,
      (SELECT count(*) FROM payment_event
        WHERE received_at < now() - make_interval(days => ${settings.webhookEventRetentionDays}))::int AS payment_event,
      -- Estimated from the planner's statistics: counting months of history at every scrape would cost more than it tells.
      (SELECT coalesce(sum(greatest(reltuples, 0)), 0) FROM parts
        WHERE month_start + interval '1 month'
              <= date_trunc('month', now(), 'UTC') - make_interval(months => ${settings.transitionRetentionMonths}))::int AS state_transition,
      (SELECT count(*) FROM state_transition_default)::int AS state_transition_default,
      (SELECT count(*) FROM parts WHERE month_start > date_trunc('month', now(), 'UTC'))::int AS partitions_ahead`;
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
    help: 'Rows past their retention and not yet removed, by table (state_transition estimated)',
    labelNames: ['table'] as const,
    registers: [registry],
    async collect() {
      const backlog = await read();
      for (const table of ['outbox', 'idempotency_key', 'payment_event', 'state_transition'] as const) {
        this.set({ table }, backlog?.[table] ?? 0);
      }
    },
  });
  new Gauge({
    name: 'core_state_transition_default_rows',
    help: 'state_transition rows in the DEFAULT partition (the month had no partition yet)',
    registers: [registry],
    async collect() {
      this.set((await read())?.state_transition_default ?? 0);
    },
  });
  new Gauge({
    name: 'core_state_transition_partitions_ahead',
    help: 'Monthly state_transition partitions created ahead of the current month',
    registers: [registry],
    async collect() {
      const backlog = await read();
      // Unknown (database unreachable) reads as healthy here; core_database_up reports that.
      this.set(backlog?.partitions_ahead ?? DEFAULT_RETENTION.partitionsAheadMonths);
    },
  });
}
