/**
 * The console's view of the closed loop (queue/src/room-control.ts on the server): target
 * against effective rate and the reason in words, and the form that sets the loop's range or
 * switches it off for the room, checked against the operator API's bounds.
 */

/** What GET /api/admin/showtimes/:id/room (and its live events) say about admission: the server's own type. */
import type { AdmissionView } from '../../../queue/src/room-control';
import { duration } from '../core/format';
import { validateGroup, type Checked, type GroupValues, type RoomSettingsView } from './room-controls';

export type { AdmissionView };

export interface AdmissionSettingsView {
  adaptiveAdmission?: boolean;
  admitFloorPerMinute?: number;
  admitCeilingPerMinute?: number;
  inventoryMarginPercent?: number;
}

export type AdmissionChange = AdmissionSettingsView;

const HEADLINES: Record<string, string> = {
  healthy: 'Healthy: admitting at the ceiling',
  recovering: 'Recovering: the rate grows back slowly',
  slow_holds: 'Cut: holds are slow',
  core_errors: 'Cut: the seat service answers with errors',
  pool_waiters: 'Cut: requests wait for the database',
  core_down: 'Stopped: the seat service is not answering',
  seats_covered: 'Holding: the seats left are covered by buyers inside',
  off: 'Off for this room: admitting at the rate as set',
  no_governor: 'No controller reporting: admitting at the rate as set',
};

/** "Cut: holds are slow (holds take 2100 ms …)", for the reason line. */
/** The turn length the wait estimate goes by, and whose turns say so (the room's own, or recent sales'). */
export function turnWords(turnMs: unknown, from: unknown): string {
  if (typeof turnMs !== 'number' || !(turnMs > 0)) return 'not known yet';
  return `${duration(turnMs / 1000)} · ${from === 'history' ? 'from recent sales, until this room has its own' : "this room's turns"}`;
}

export function reasonWords(view: AdmissionView): string {
  const headline = HEADLINES[view.reason] ?? view.reason;
  return view.detail && !['off', 'no_governor', 'healthy'].includes(view.reason)
    ? `${headline} (${view.detail}).`
    : `${headline}.`;
}

/** The tiles: numbers, or "—" where nothing is known. */
export function admissionTiles(view: AdmissionView | null | undefined): Record<string, string> {
  const dash = (value: number | null | undefined) =>
    value === null || value === undefined ? '—' : value.toLocaleString('en');
  if (!view) return { admitTarget: '—', admitEffective: '—', seatsLeft: '—', turnCap: '—', admitRange: '—' };
  return {
    admitTarget: `${dash(view.targetPerMinute)} a minute`,
    admitEffective: `${dash(view.effectiveAdmitPerMinute)} a minute`,
    seatsLeft: view.seatsLeft === null ? '—' : `${dash(view.seatsLeft)} (about ${view.seatsPerHold ?? 1} a buyer)`,
    turnCap: view.turnCap === null ? '—' : `${dash(view.turnsHeld)} of ${dash(view.turnCap)}`,
    admitRange: view.adaptive ? `${dash(view.floorPerMinute)} to ${dash(view.ceilingPerMinute)} a minute` : 'off',
  };
}

/** The loop's switch and range, checked against the registry's bounds; the floor may not pass the ceiling. */
export function validateAdmission(values: GroupValues, current: AdmissionSettingsView | null): Checked {
  const checked = validateGroup('admission', values, current as RoomSettingsView | null);
  if (!checked.ok) return checked;
  const floor = Number(values.admitFloorPerMinute);
  const ceiling = Number(values.admitCeilingPerMinute);
  if (floor > 0 && ceiling > 0 && floor > ceiling)
    return { ok: false, message: 'The floor must not be above the ceiling.' };
  return checked;
}
