import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Sql } from 'postgres';
import { createHealthWindow, type HealthWindow } from './admission/health-window';

/** The core's Prometheus metrics, on a registry of its own so several apps can share a process. */
export function createCoreMetrics(registry = new Registry()) {
  const metrics = {
    registry,
    /** Recent hold latency, 5xx share and requests in flight, for the waiting room's closed loop (admission/). */
    admissionHealth: createHealthWindow(),
    httpRequestDuration: new Histogram({
      name: 'core_http_request_duration_seconds',
      help: 'Core HTTP request latency by route and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    holdsCreated: new Counter({
      name: 'core_holds_created_total',
      help: 'Holds created (all seats taken under one hold id)',
      registers: [registry],
    }),
    holdSeatsCreated: new Counter({
      name: 'core_hold_seats_total',
      help: 'Seats taken by successful holds',
      registers: [registry],
    }),
    holdConflicts: new Counter({
      name: 'core_hold_conflicts_total',
      help: 'Holds refused because a seat was taken (409)',
      registers: [registry],
    }),
    holdRefusals: new Counter({
      name: 'core_hold_refusals_total',
      help: 'Holds refused for any other reason, by error code',
      labelNames: ['code'] as const,
      registers: [registry],
    }),
    holdDatabaseAttempts: new Counter({
      name: 'core_hold_database_attempts_total',
      help: 'hold_seats calls (retries included): with the seat gate on, most refusals never reach the database',
      registers: [registry],
    }),
    holdRetries: new Counter({
      name: 'core_hold_retries_total',
      help: 'Hold attempts retried after a deadlock, serialization failure or lock timeout',
      registers: [registry],
    }),
    admissionUnchecked: new Counter({
      name: 'core_admission_unchecked_total',
      help: 'Purchases let through without an admission decision: room store down, or a turn Redis lost',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    admissionRefused: new Counter({
      name: 'core_admission_refused_total',
      help: 'Purchases refused by the core itself: turn ended (410) or token bucket empty (429)',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
  };
  registerAdmissionHealthGauges(metrics);
  return metrics;
}

export type CoreMetrics = ReturnType<typeof createCoreMetrics>;

/** What the waiting room's closed loop steers by, also for Prometheus (admission/health-window.ts). */
function registerAdmissionHealthGauges(metrics: { registry: Registry; admissionHealth: HealthWindow }) {
  const { registry, admissionHealth } = metrics;
  const gauge = (name: string, help: string, value: (reading: ReturnType<typeof admissionHealth.read>) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(value(admissionHealth.read()));
      },
    });
  gauge(
    'core_admission_hold_p95_seconds',
    'Hold latency p95 over the last seconds, holds still running counted at their age (0 when none)',
    (r) => (r.holdP95Ms ?? 0) / 1000,
  );
  gauge('core_admission_error_ratio', 'Share of 5xx answers over the last seconds', (r) => r.errorRate);
  gauge(
    'core_admission_pool_waiting',
    'Requests in flight beyond the database pool (waiting for a connection)',
    (r) => r.poolWaiting,
  );
}

/**
 * What the background jobs leave behind, read from the database at each scrape: events not
 * yet published, refunds owed (and those that keep failing: the gateway refuses them and a
 * person must look), payments still pending. Growing numbers mean a job is stuck or down.
 */
export function registerBacklogGauges(registry: Registry, sql: Sql) {
  let pending: Promise<Record<string, number>> | null = null;
  // One query per scrape, shared by the four gauges.
  const read = () =>
    (pending ??= sql<{ outbox: number; refunds: number; failing: number; payments: number }[]>`
      SELECT (SELECT count(*) FROM outbox WHERE published_at IS NULL)::int AS outbox,
             (SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0) FROM outbox WHERE published_at IS NULL)::float8 AS outbox_age,
             (SELECT count(*) FROM refund_command WHERE state = 'PENDING')::int AS refunds,
             (SELECT count(*) FROM refund_command WHERE state = 'PENDING' AND attempts >= 3)::int AS failing,
             (SELECT count(*) FROM payment WHERE status = 'PENDING')::int AS payments,
             (SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0) FROM payment WHERE status = 'PENDING')::float8 AS payment_age`
      .then(([row]): Record<string, number> => ({ ...(row as unknown as Record<string, number>), database_up: 1 }))
      .finally(() => setTimeout(() => (pending = null), 0)));
  const gauge = (name: string, help: string, field: string) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        // A failed read leaves every backlog at 0 and database_up at 0, which is what the alert watches.
        this.set((await read().catch(() => ({}) as Record<string, number>))[field] ?? 0);
      },
    });
  gauge('core_outbox_unpublished', 'Outbox events not yet published to the stream', 'outbox');
  gauge('core_refunds_pending', 'Refund commands not yet executed at the gateway', 'refunds');
  gauge('core_refunds_failing', 'Refund commands that failed three times or more (needs a person)', 'failing');
  gauge('core_payments_pending', 'Payments waiting for the gateway (callback or reconciler)', 'payments');
  // Ages, not counts, are what tell a stalled job from a busy one: a counted backlog is normal under load.
  gauge(
    'core_outbox_oldest_unpublished_age_seconds',
    'Age of the oldest event not yet published (0 when none)',
    'outbox_age',
  );
  gauge(
    'core_payments_oldest_pending_age_seconds',
    'Age of the oldest payment still pending (0 when none)',
    'payment_age',
  );
  gauge('core_database_up', '1 when the scrape could read the database, 0 when it could not', 'database_up');
}
