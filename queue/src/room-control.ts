/**
 * What the closed loop wrote into a room (`ctl…` fields of the cfg hash, govern-10.lua) and
 * what it means now: the settings the admission step really uses (the twin of room.lua's
 * `governed`), and the effective rate with its reason, for operators and wait estimates.
 */
import { controlBounds, seatsLikelyGone } from './admission-control';
import type { RoomSettings } from './settings';

export interface RoomControl {
  /** The operator's switch (adaptiveAdmission). */
  adaptive: boolean;
  /** The loop's decision is still valid (a governor wrote it recently). */
  live: boolean;
  ratePerMinute: number | null;
  /** Most turns at once from the seats left (null: no cap known). */
  turnCap: number | null;
  reason: string | null;
  detail: string | null;
  seatsLeft: number | null;
  seatsPerHold: number | null;
  atMs: number | null;
  cutAtMs: number | null;
  untilMs: number | null;
}

const numberOrNull = (value: string | undefined): number | null => {
  if (value === undefined || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
};

/** Below 0 is written when a figure is not known. */
const capOf = (cap: number | null): number | null => (cap === null || cap < 0 ? null : cap);

export function controlFromHash(cfg: Map<string, string>, nowMs: number): RoomControl {
  const untilMs = numberOrNull(cfg.get('ctlUntilMs'));
  const adaptive = cfg.get('adaptiveAdmission') !== '0';
  return {
    adaptive,
    live: adaptive && untilMs !== null && untilMs > nowMs,
    ratePerMinute: numberOrNull(cfg.get('ctlRate')),
    turnCap: capOf(numberOrNull(cfg.get('ctlCap'))),
    reason: cfg.get('ctlReason') ?? null,
    detail: cfg.get('ctlDetail') ?? null,
    seatsLeft: capOf(numberOrNull(cfg.get('ctlSeatsLeft'))),
    seatsPerHold: capOf(numberOrNull(cfg.get('ctlSeatsPerHold'))),
    atMs: numberOrNull(cfg.get('ctlAtMs')),
    cutAtMs: numberOrNull(cfg.get('ctlCutAtMs')),
    untilMs,
  };
}

/** The settings the admission step uses while the loop's decision is live (room.lua `governed`). */
export function governedSettings(settings: RoomSettings, control: RoomControl | undefined): RoomSettings {
  if (!control?.live) return settings;
  const out = { ...settings };
  const rate = control.ratePerMinute;
  if (rate !== null && rate !== out.admitPerMinute) {
    out.admitBurst = rate <= 0 ? 0 : Math.max(1, Math.floor((out.admitBurst * rate) / out.admitPerMinute + 0.5));
    out.admitPerMinute = Math.max(0, rate);
  }
  if (control.turnCap !== null && control.turnCap < out.capacity) out.capacity = Math.max(0, control.turnCap);
  return out;
}

/** What the operator is shown: target against effective rate, and why. */
export interface AdmissionView {
  adaptive: boolean;
  targetPerMinute: number;
  floorPerMinute: number;
  ceilingPerMinute: number;
  effectiveAdmitPerMinute: number;
  reason: string;
  detail: string;
  seatsLeft: number | null;
  seatsPerHold: number | null;
  turnCap: number | null;
  /** Turns held now (admitted plus offered). */
  turnsHeld: number;
}

export function admissionView(
  settings: RoomSettings,
  control: RoomControl | undefined,
  turnsHeld: number,
): AdmissionView {
  const bounds = controlBounds(settings);
  const base = {
    adaptive: control?.adaptive ?? settings.adaptiveAdmission !== 0,
    targetPerMinute: bounds.targetPerMinute,
    floorPerMinute: bounds.floorPerMinute,
    ceilingPerMinute: bounds.ceilingPerMinute,
    seatsLeft: control?.live ? control.seatsLeft : null,
    seatsPerHold: control?.live ? control.seatsPerHold : null,
    turnCap: control?.live ? control.turnCap : null,
    turnsHeld,
  };
  if (!base.adaptive) {
    return {
      ...base,
      effectiveAdmitPerMinute: settings.admitPerMinute,
      reason: 'off',
      detail: 'the operator switched the loop off: the rate as set',
    };
  }
  if (!control?.live) {
    return {
      ...base,
      effectiveAdmitPerMinute: settings.admitPerMinute,
      reason: 'no_governor',
      detail: 'no governor has reported lately: the rate as set',
    };
  }
  const rate = Math.round(control.ratePerMinute ?? settings.admitPerMinute);
  if (control.turnCap !== null && turnsHeld >= control.turnCap) {
    const k = control.seatsPerHold === null ? '' : ` (about ${Math.round(control.seatsPerHold * 10) / 10} a buyer)`;
    return {
      ...base,
      effectiveAdmitPerMinute: 0,
      reason: 'seats_covered',
      detail: `${turnsHeld} buyers hold turns for the ${control.seatsLeft ?? 0} seats left${k}: nobody more until some leave`,
    };
  }
  return { ...base, effectiveAdmitPerMinute: rate, reason: control.reason ?? 'healthy', detail: control.detail ?? '' };
}

/**
 * What a buyer in line is told of the seats (the waiting page): how many are left (available
 * and held), and whether the buyers ahead are likely to take them all before this place's turn
 * (the sale is then effectively over for it, unless some leave without buying). Null while the
 * loop is off or has not reported the seats.
 */
export function seatOutlook(
  snapshot: { active: number; offered: number; control?: RoomControl },
  position: number | null,
): { seatsLeft: number; seatsLikelyGone: boolean } | null {
  const control = snapshot.control;
  if (!control?.live || control.seatsLeft === null) return null;
  const gone =
    control.seatsLeft <= 0 ||
    (position !== null &&
      control.turnCap !== null &&
      seatsLikelyGone(position, control.turnCap, snapshot.active + snapshot.offered));
  return { seatsLeft: control.seatsLeft, seatsLikelyGone: gone };
}
