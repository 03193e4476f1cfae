import postgres, { type Sql, type TransactionSql } from 'postgres';

export interface ConnectOptions {
  /** Pool size; PGlite behind a socket is one session and needs exactly 1. */
  max?: number;
  /** Name shown in pg_stat_activity, handy when several services share a server. */
  applicationName?: string;
  /** Generic plans by default (see below); benchmarks compare with PostgreSQL's own choice. */
  planCacheMode?: 'force_generic_plan' | 'auto' | 'force_custom_plan';
  /**
   * Sequential scans are off for the core (see below). Tools that read whole tables (the load
   * test's and fault suite's invariant checks) turn them back on: through an index, a whole
   * table is read many times slower.
   */
  sequentialScans?: boolean;
}

/**
 * postgres.js with the settings the arbiter relies on: UTC sessions, a lock timeout so a
 * stuck row lock turns into a retryable error instead of a hung buyer, and no notices in logs.
 */
export function connectDatabase(url: string, options: ConnectOptions = {}): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    // postgres.js waits up to 20 s between reconnects by default (3^failures / 100 s), so a
    // database back after a restart would stay unused for that long; cap the wait at ~1 s.
    backoff: (failures: number) => (0.5 + Math.random() / 2) * Math.min(0.05 * 2 ** failures, 1),
    connection: {
      application_name: options.applicationName ?? 'flash-sale-core',
      TimeZone: 'UTC',
      lock_timeout: 2000, // ms
      statement_timeout: 15_000, // ms
      // Every statement names its rows by id, so one plan serves all parameters. On the tables
      // partitioned by showtime (show_seat, seat_hold) PostgreSQL would otherwise keep re-planning
      // each execution (a custom plan prunes at plan time and looks cheaper than the generic one
      // that prunes at run time): that cost a third of the hold-read-cancel rate
      // (`npm run bench -- hold-partitions`: 0.70 of the plain table, 0.98 with this).
      plan_cache_mode: options.planCacheMode ?? 'force_generic_plan',
      // A generic plan is made once per connection and kept. Made while a table was small (a
      // new deployment, a new partition: statistics say empty until autovacuum returns), it
      // chose sequential scans and kept them as the table grew: every cancel read the whole
      // partition's holds, and a sale slowed round after round (`npm run bench -- holds`: 280
      // holds/s falling, 700 with this; core/test/seats/seat-lookup-plan.test.ts). Every
      // statement of the core has an index to go by; a table without one is still scanned.
      enable_seqscan: options.sequentialScans ? 'on' : 'off',
    },
    types: {
      // int8 (ids, count(*)) as numbers: they stay far below 2^53 and JSON has no bigint.
      int8AsNumber: {
        to: 20,
        from: [20],
        serialize: (value: number) => String(value),
        parse: (value: string) => Number(value),
      },
    },
  });
}

/** What repository functions take: the pool or an open transaction. */
export type Db = Sql | TransactionSql;
