/**
 * Prometheus text exposition without prom-client: the app also runs in workerd, where
 * prom-client's Node dependencies are not available. Counters and gauges with labels are
 * all the edge needs; a hot path pays one Map lookup per increment.
 */
type Labels = Record<string, string>;

interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  values: Map<string, { labels: Labels; value: number }>;
}

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

function labelKey(labels: Labels): string {
  return Object.keys(labels)
    .sort()
    .map((key) => `${key}="${escapeLabel(labels[key]!)}"`)
    .join(',');
}

export function createMetricsRegistry() {
  const families: Family[] = [];

  function family(name: string, help: string, type: Family['type']) {
    const entry: Family = { name, help, type, values: new Map() };
    families.push(entry);
    const update = (labels: Labels, apply: (current: number) => number) => {
      const key = labelKey(labels);
      const slot = entry.values.get(key);
      if (slot) slot.value = apply(slot.value);
      else entry.values.set(key, { labels, value: apply(0) });
    };
    return {
      inc: (labels: Labels = {}, by = 1) => update(labels, (current) => current + by),
      /** One label set bound once: its key is built here, not on every increment (hot paths). */
      child(labels: Labels) {
        const key = labelKey(labels);
        return {
          inc(by = 1) {
            const slot = entry.values.get(key);
            if (slot) slot.value += by;
            else entry.values.set(key, { labels, value: by });
          },
        };
      },
      set: (labels: Labels, value: number) => update(labels, () => value),
      get: (labels: Labels = {}) => entry.values.get(labelKey(labels))?.value ?? 0,
    };
  }

  return {
    counter: (name: string, help: string) => family(name, help, 'counter'),
    gauge: (name: string, help: string) => family(name, help, 'gauge'),
    contentType: 'text/plain; version=0.0.4; charset=utf-8',
    render(): string {
      const lines: string[] = [];
      for (const f of families) {
        lines.push(`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} ${f.type}`);
        for (const [key, { value }] of f.values) lines.push(`${f.name}${key ? `{${key}}` : ''} ${value}`);
      }
      return `${lines.join('\n')}\n`;
    },
  };
}

/** The edge's metrics: admissions, queue traffic, limiter decisions and dependency health. */
export function createEdgeMetrics() {
  const registry = createMetricsRegistry();
  return {
    registry,
    httpRequests: registry.counter('edge_http_requests_total', 'Requests by route pattern, method and status'),
    queueJoins: registry.counter('edge_queue_joins_total', 'Join requests answered, by resulting state'),
    queuePolls: registry.counter('edge_queue_polls_total', 'Polls answered, by source (snapshot or redis)'),
    fastPolls: registry.counter(
      'edge_queue_polls_fast_total',
      'Snapshot polls answered on node:http without the Hono app (Node only)',
    ),
    fastJoins: registry.counter(
      'edge_queue_joins_fast_total',
      'Joins answered on node:http without the Hono app (Node only)',
    ),
    queueLeaves: registry.counter('edge_queue_leaves_total', 'Leave requests answered'),
    admissions: registry.counter('edge_admissions_total', 'Access tokens issued after a claimed admission'),
    limiterRejections: registry.counter('edge_limiter_rejections_total', 'Requests refused with 429, by limiter'),
    limiterFallbacks: registry.counter(
      'edge_limiter_fallback_total',
      'Bucket decisions taken by the local fallback limiter (Redis down)',
    ),
    redisErrors: registry.counter('edge_redis_errors_total', 'Store calls that failed, by operation'),
    coreErrors: registry.counter('edge_core_errors_total', 'Core calls that failed (network or timeout)'),
    roomRestores: registry.counter(
      'edge_room_restores_total',
      'Rooms written to Redis from the database by the sync (lost or older copies)',
    ),
    seatMapReads: registry.counter('edge_seat_map_reads_total', 'Seat-map reads by source (core, cache, stale)'),
    bookingEvents: registry.counter('edge_booking_events_total', 'Booking events applied to rooms, by type'),
    snapshotRefreshes: registry.counter('edge_room_snapshot_refreshes_total', 'Room snapshots read from Redis'),
    // Set from each snapshot this process reads, so alerts can tell a waiting line from a stalled one.
    roomWaiting: registry.gauge(
      'edge_room_waiting',
      'Buyers in line (pre-queue included) at the last snapshot, by showtime',
    ),
    roomActive: registry.gauge('edge_room_active', 'Admitted buyers holding a slot at the last snapshot, by showtime'),
    roomCapacity: registry.gauge('edge_room_capacity', 'Slots the operator allows at once, by showtime'),
    roomAdmitting: registry.gauge(
      'edge_room_admitting',
      '1 when the room is open and admits buyers, 0 when scheduled, paused or ended',
    ),
    // The closed loop (queue/src/admission-governor.ts): what the operator set against what admission runs at.
    roomAdmitTarget: registry.gauge(
      'edge_room_admit_target_per_minute',
      'Admissions per minute the operator set, by showtime',
    ),
    roomAdmitEffective: registry.gauge(
      'edge_room_admit_effective_per_minute',
      "Admissions per minute the room runs at: the closed loop's rate, 0 while the seats left are covered, by showtime",
    ),
    // Load shedding (net/load-shedding.ts and the core client's bulkhead).
    shedRequests: registry.counter(
      'edge_shed_requests_total',
      'Requests not worked on, by reason: event_loop_lag (503 BUSY), core_bulkhead (503 BUSY), client_gone (the client left first)',
    ),
    eventLoopLag: registry.gauge(
      'edge_event_loop_lag_seconds',
      "Sustained event-loop lag: the lesser of the last two timer samples' delays (Node)",
    ),
    shedding: registry.gauge(
      'edge_shedding',
      '1 while the event-loop lag is above SHED_LAG_MS and costly requests are answered 503 (Node)',
    ),
    coreCallsInFlight: registry.gauge(
      'edge_core_calls_in_flight',
      'Calls to the core in flight in this process (bounded by CORE_CALLS_IN_FLIGHT)',
    ),
    roomSeatsLeft: registry.gauge(
      'edge_room_seats_left',
      'Seats not sold (available and held) as the closed loop last read them, by showtime',
    ),
  };
}

export type EdgeMetrics = ReturnType<typeof createEdgeMetrics>;
