/**
 * The closed loop between the waiting room and the seat service, as pure functions: how fast
 * to admit (AIMD on the core's health: halve when it struggles, add a little each second when
 * it copes), and how many buyers may hold a turn at once given the seats left.
 *
 * The governor (admission-governor.ts) feeds these with the core's health and writes the
 * result into each room; the admission step in Redis (lua/includes/room.lua) applies it.
 */

/** The core's recent health, as its `/admin/admission-health` reports it. */
export interface CoreHealth {
  /** False: the core (or its database) did not answer. */
  reachable: boolean;
  /** 95th percentile of hold latency over the core's recent window; null: no holds seen. */
  holdP95Ms: number | null;
  /** Share of the core's recent answers that were 5xx (0..1). */
  errorRate: number;
  /** Requests waiting for a database connection (in flight beyond the pool). */
  poolWaiting: number;
}

/** Where "struggling" starts. */
export interface HealthLimits {
  holdP95Ms: number;
  errorRate: number;
  poolWaiting: number;
}

export const DEFAULT_HEALTH_LIMITS: HealthLimits = { holdP95Ms: 800, errorRate: 0.05, poolWaiting: 4 };

export interface ControlTuning {
  /** Multiplicative decrease: the rate is multiplied by this when the core struggles. */
  cutFactor: number;
  /** At most one cut per this long: the health window still holds the last cut's cause. */
  cutGapMs: number;
  /** Additive increase: this share of the ceiling per second while the core copes. */
  growSharePerSecond: number;
  /** Longest step taken at once (a governor that paused must not jump). */
  maxStepMs: number;
}

export const DEFAULT_TUNING: ControlTuning = {
  cutFactor: 0.5,
  cutGapMs: 1_000,
  growSharePerSecond: 0.05,
  maxStepMs: 5_000,
};

/** The operator's range for one room. */
export interface ControlBounds {
  /** What the operator set (admitPerMinute): where the loop starts. */
  targetPerMinute: number;
  floorPerMinute: number;
  ceilingPerMinute: number;
}

/** Floor 0 means a tenth of the target; ceiling 0 means the target. */
export function controlBounds(settings: {
  admitPerMinute: number;
  admitFloorPerMinute: number;
  admitCeilingPerMinute: number;
}): ControlBounds {
  const target = settings.admitPerMinute;
  const ceiling = settings.admitCeilingPerMinute > 0 ? settings.admitCeilingPerMinute : target;
  const floor = Math.min(
    ceiling,
    settings.admitFloorPerMinute > 0 ? settings.admitFloorPerMinute : Math.max(1, Math.round(target / 10)),
  );
  return { targetPerMinute: target, floorPerMinute: floor, ceilingPerMinute: ceiling };
}

/** What the loop remembers between steps (kept in the room, so several governors share it). */
export interface ControlState {
  ratePerMinute: number;
  atMs: number;
  /** When the rate was last cut (0: never). */
  cutAtMs: number;
}

export type ControlReason = 'core_down' | 'slow_holds' | 'core_errors' | 'pool_waiters' | 'recovering' | 'healthy';

export interface ControlStep {
  state: ControlState;
  reason: ControlReason;
  /** For people: the figure behind the reason. */
  detail: string;
}

const round = (value: number) => Math.round(value * 100) / 100;

/** The first limit the core's health breaks, with the figure, or null when it copes. */
export function struggle(
  health: CoreHealth,
  limits: HealthLimits = DEFAULT_HEALTH_LIMITS,
): { reason: ControlReason; detail: string } | null {
  if (health.errorRate > limits.errorRate) {
    return {
      reason: 'core_errors',
      detail: `${round(health.errorRate * 100)} % of the core's answers were errors (limit ${round(limits.errorRate * 100)} %)`,
    };
  }
  if (health.poolWaiting > limits.poolWaiting) {
    return {
      reason: 'pool_waiters',
      detail: `${health.poolWaiting} requests waiting for a database connection (limit ${limits.poolWaiting})`,
    };
  }
  if (health.holdP95Ms !== null && health.holdP95Ms > limits.holdP95Ms) {
    return {
      reason: 'slow_holds',
      detail: `holds take ${Math.round(health.holdP95Ms)} ms (p95; limit ${limits.holdP95Ms} ms)`,
    };
  }
  return null;
}

/**
 * One step of the loop. Core down: 0 (nobody is admitted into an error page). Struggling:
 * the rate is cut by `cutFactor`, at most once per `cutGapMs`, never below the floor. Coping:
 * the rate grows by `growSharePerSecond` of the ceiling per second, up to the ceiling; after an
 * outage it starts again from the floor.
 */
export function stepRate(
  previous: ControlState | null,
  health: CoreHealth,
  bounds: ControlBounds,
  nowMs: number,
  limits: HealthLimits = DEFAULT_HEALTH_LIMITS,
  tuning: ControlTuning = DEFAULT_TUNING,
): ControlStep {
  const { floorPerMinute: floor, ceilingPerMinute: ceiling } = bounds;
  const clamp = (rate: number) => Math.min(ceiling, Math.max(floor, rate));
  const start = previous ?? {
    ratePerMinute: clamp(bounds.targetPerMinute),
    atMs: nowMs,
    cutAtMs: nowMs - tuning.cutGapMs,
  };
  if (!health.reachable) {
    return {
      state: { ratePerMinute: 0, atMs: nowMs, cutAtMs: nowMs },
      reason: 'core_down',
      detail: 'the seat service is not answering',
    };
  }
  const trouble = struggle(health, limits);
  if (trouble) {
    const due = nowMs - start.cutAtMs >= tuning.cutGapMs;
    const rate = due ? clamp(start.ratePerMinute * tuning.cutFactor) : clamp(start.ratePerMinute);
    return { state: { ratePerMinute: rate, atMs: nowMs, cutAtMs: due ? nowMs : start.cutAtMs }, ...trouble };
  }
  const stepMs = Math.min(tuning.maxStepMs, Math.max(0, nowMs - start.atMs));
  const grown = clamp(start.ratePerMinute + (ceiling * tuning.growSharePerSecond * stepMs) / 1000);
  const atCeiling = grown >= ceiling;
  return {
    state: { ratePerMinute: grown, atMs: nowMs, cutAtMs: start.cutAtMs },
    reason: atCeiling ? 'healthy' : 'recovering',
    detail: atCeiling
      ? 'the seat service copes: admitting at the ceiling'
      : 'the seat service copes again: the rate grows back slowly',
  };
}

/**
 * Most buyers that may hold a turn at once with `seatsLeft` (available, plus held that may
 * lapse) and `seatsPerHold` taken per buyer on average: S / k × (1 + margin).
 */
export function inventoryCap(seatsLeft: number, seatsPerHold: number, marginPercent: number): number {
  if (seatsLeft <= 0) return 0;
  return Math.ceil((seatsLeft / Math.max(1, seatsPerHold)) * (1 + Math.max(0, marginPercent) / 100) - 1e-9);
}

/** A buyer at `position` in line is unlikely to find a seat: the seats left go to those ahead. */
export function seatsLikelyGone(position: number, cap: number, turnsHeld: number): boolean {
  return position > Math.max(0, cap - turnsHeld);
}
