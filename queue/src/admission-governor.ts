/**
 * The closed loop's driver: once a round (a second by default) it reads the core's health and
 * the seats left of every driven room in one request, takes one AIMD step per room
 * (admission-control.ts) from the state the room keeps, and writes the decision into the room
 * (govern-10.lua), where every admission step (ticker, polls, joins, any process) applies it.
 *
 * The loop's state lives in the room, so several governors (one per ticker process) share it:
 * growth is per elapsed time and cuts at most once per cut gap, whoever steps. A decision is
 * valid for `validForMs`; when no governor writes any more, rooms go back to the operator's rate.
 */
import {
  controlBounds,
  DEFAULT_HEALTH_LIMITS,
  DEFAULT_TUNING,
  inventoryCap,
  stepRate,
  type ControlTuning,
  type CoreHealth,
  type HealthLimits,
} from './admission-control';
import type { RoomEngine } from './room-engine';

/** Seats a room could still sell, and how many a buyer takes on average. */
export interface RoomInventory {
  /** Available plus held (a hold may lapse); places of general-admission classes included. */
  seatsLeft: number;
  seatsPerHold: number;
}

export interface HealthReport {
  health: CoreHealth;
  inventory: Map<string, RoomInventory>;
}

/** Reads the core's health for these showtimes; throws (or rejects) when the core does not answer. */
export type ReadCoreHealth = (showtimeIds: string[]) => Promise<HealthReport>;

export interface GovernorLogger {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
}

export interface AdmissionGovernorOptions {
  engine: RoomEngine;
  readHealth: ReadCoreHealth;
  everyMs?: number;
  /** How long a decision holds without a new one (default five rounds). */
  validForMs?: number;
  limits?: HealthLimits;
  tuning?: ControlTuning;
  logger?: GovernorLogger;
}

const DOWN: HealthReport = {
  health: { reachable: false, holdP95Ms: null, errorRate: 0, poolWaiting: 0 },
  inventory: new Map(),
};

export function createAdmissionGovernor(options: AdmissionGovernorOptions) {
  const { engine, readHealth, logger } = options;
  const everyMs = options.everyMs ?? 1_000;
  const validForMs = options.validForMs ?? everyMs * 5;
  const limits = options.limits ?? DEFAULT_HEALTH_LIMITS;
  const tuning = options.tuning ?? DEFAULT_TUNING;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running = false;
  let current: Promise<number> | null = null;
  let lastReason = new Map<string, string>();

  async function governRoom(showtimeId: string, report: HealthReport): Promise<boolean> {
    const read = await engine.snapshot(showtimeId);
    if (!read.ok) return false;
    const { settings, control, takenAtMs: nowMs } = read.snapshot;
    if (settings.adaptiveAdmission === 0) return false;
    // The room's own memory of the loop, unless it lapsed (then the loop starts again at the target).
    const previous =
      control?.live && control.ratePerMinute !== null && control.atMs !== null
        ? { ratePerMinute: control.ratePerMinute, atMs: control.atMs, cutAtMs: control.cutAtMs ?? 0 }
        : null;
    const step = stepRate(previous, report.health, controlBounds(settings), nowMs, limits, tuning);
    const inventory = report.inventory.get(showtimeId);
    const cap = inventory
      ? inventoryCap(inventory.seatsLeft, inventory.seatsPerHold, settings.inventoryMarginPercent)
      : -1;
    // The rate stays fractional (0.5 a minute is a real rate for a struggling core); the
    // scripts take every count, index and TTL they derive from it as an integer (room.lua
    // windowCap), and the property test in queue/test/room-numeric-settings.test.ts holds them to it.
    const written = await engine.govern(showtimeId, {
      ctlRate: Math.round(step.state.ratePerMinute * 100) / 100,
      ctlAtMs: step.state.atMs,
      ctlCutAtMs: step.state.cutAtMs,
      ctlUntilMs: nowMs + validForMs,
      ctlCap: cap,
      ctlReason: step.reason,
      ctlDetail: step.detail,
      ctlSeatsLeft: inventory ? inventory.seatsLeft : -1,
      ctlSeatsPerHold: inventory ? Math.round(inventory.seatsPerHold * 100) / 100 : -1,
    });
    if (written.ok && lastReason.get(showtimeId) !== step.reason) {
      logger?.info(
        { showtimeId, reason: step.reason, ratePerMinute: Math.round(step.state.ratePerMinute), detail: step.detail },
        'admission rate',
      );
    }
    lastReason.set(showtimeId, step.reason);
    return written.ok;
  }

  /** One round over every driven room; returns the rooms governed. */
  async function governAll(): Promise<number> {
    const rooms = await engine.listRooms();
    if (rooms.length === 0) return 0;
    const report = await readHealth(rooms).catch((error: unknown) => {
      logger?.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'core health not read: admitting nobody',
      );
      return DOWN;
    });
    const seen = new Map<string, string>();
    let governed = 0;
    for (const showtimeId of rooms) {
      try {
        if (await governRoom(showtimeId, report)) governed++;
        seen.set(showtimeId, lastReason.get(showtimeId) ?? '');
      } catch (error) {
        logger?.warn(
          { showtimeId, err: error instanceof Error ? error.message : String(error) },
          'governing a room failed',
        );
      }
    }
    lastReason = seen;
    return governed;
  }

  function schedule() {
    if (!running) return;
    timer = setTimeout(async () => {
      current = governAll().catch((error: unknown) => {
        logger?.warn({ err: error instanceof Error ? error.message : String(error) }, 'governor round failed');
        return 0;
      });
      await current;
      current = null;
      schedule();
    }, everyMs);
  }

  return {
    governAll,
    start() {
      if (running) return;
      running = true;
      schedule();
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      if (current) await current;
    },
  };
}

export type AdmissionGovernor = ReturnType<typeof createAdmissionGovernor>;

/** What the core's `GET /admin/admission-health` answers. */
export interface CoreHealthBody {
  holdP95Ms: number | null;
  errorRate: number;
  poolWaiting: number;
  showtimes: { showtimeId: number | string; seatsLeft: number; seatsPerHold: number }[];
}

export function healthReportOf(body: CoreHealthBody): HealthReport {
  return {
    health: { reachable: true, holdP95Ms: body.holdP95Ms, errorRate: body.errorRate, poolWaiting: body.poolWaiting },
    inventory: new Map(
      body.showtimes.map((s) => [String(s.showtimeId), { seatsLeft: s.seatsLeft, seatsPerHold: s.seatsPerHold }]),
    ),
  };
}

/** The core's health over HTTP (operator token, and the service token where the core asks for one). */
export function coreHealthReader(options: {
  coreUrl: string;
  adminToken: string;
  serviceToken?: string | null;
  timeoutMs?: number;
}): ReadCoreHealth {
  const headers: Record<string, string> = { authorization: `Bearer ${options.adminToken}`, accept: 'application/json' };
  if (options.serviceToken) headers['x-service-token'] = options.serviceToken;
  const base = options.coreUrl.replace(/\/+$/, '');
  return async (showtimeIds) => {
    const ids = showtimeIds.filter((id) => /^\d{1,18}$/.test(id)).slice(0, 500);
    const response = await fetch(`${base}/admin/admission-health?showtimes=${ids.join(',')}`, {
      headers,
      signal: AbortSignal.timeout(options.timeoutMs ?? 2_000),
    });
    if (!response.ok) throw new Error(`core answered ${response.status} for its health`);
    return healthReportOf((await response.json()) as CoreHealthBody);
  };
}
