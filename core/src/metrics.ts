import { Counter, Histogram, Registry } from 'prom-client';

/** The core's Prometheus metrics, on a registry of its own so several apps can share a process. */
export function createCoreMetrics(registry = new Registry()) {
  return {
    registry,
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
    holdRetries: new Counter({
      name: 'core_hold_retries_total',
      help: 'Hold attempts retried after a deadlock, serialization failure or lock timeout',
      registers: [registry],
    }),
  };
}

export type CoreMetrics = ReturnType<typeof createCoreMetrics>;
