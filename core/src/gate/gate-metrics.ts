import { Counter, type Registry } from 'prom-client';

/** The seat gate's metrics, on the core's registry. */
export function createSeatGateMetrics(registry: Registry) {
  return {
    decisions: new Counter({
      name: 'core_seat_gate_decisions_total',
      help: 'Seat gate answers before the database: claimed, taken, over_limit, unknown_seats, not_built',
      labelNames: ['decision'] as const,
      registers: [registry],
    }),
    skipped: new Counter({
      name: 'core_seat_gate_skipped_total',
      help: 'Holds that went to the database without the gate: store_down (Redis did not answer), not_built, unknown_seats',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    released: new Counter({
      name: 'core_seat_gate_released_total',
      help: 'Gate claims undone because the database said no',
      registers: [registry],
    }),
    releaseFailed: new Counter({
      name: 'core_seat_gate_release_failed_total',
      help: 'Gate claims that could not be undone (they lapse with the hold time or at the next check)',
      registers: [registry],
    }),
    repairs: new Counter({
      name: 'core_seat_gate_repairs_total',
      help: 'Refused seats whose database state was written into the gate after the database said no',
      registers: [registry],
    }),
    corrections: new Counter({
      name: 'core_seat_gate_corrections_total',
      help: 'Seats on which the gate disagreed with the database and was corrected, by what found it',
      labelNames: ['why'] as const,
      registers: [registry],
    }),
    syncs: new Counter({
      name: 'core_seat_gate_syncs_total',
      help: 'Gate builds and checks against the database, by cause',
      labelNames: ['why'] as const,
      registers: [registry],
    }),
    checkFailed: new Counter({
      name: 'core_seat_gate_check_failed_total',
      help: 'Periodic gate checks that failed (Redis or the database away)',
      registers: [registry],
    }),
    events: new Counter({
      name: 'core_seat_gate_events_total',
      help: 'Booking events applied to the gate: applied, duplicate, not_built',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
  };
}

export type SeatGateMetrics = ReturnType<typeof createSeatGateMetrics>;
