/**
 * The console's controls as pure rules: what a settings form change is, whether it is within
 * the bounds the operator API accepts (said in plain words), and how a change reads in the
 * confirmation and the "Applied" line.
 */
import { ADMIT_BURST_BOUNDS } from '../../../queue/src/admission-burst';
import { localTime } from '../core/format';

export interface RoomSettingsView {
  capacity: number;
  admitPerMinute: number;
  admitBurst?: number;
  sessionTtlSeconds: number;
  state: string;
  opensAt: string | null;
  adaptiveAdmission?: boolean;
  admitFloorPerMinute?: number;
  admitCeilingPerMinute?: number;
  inventoryMarginPercent?: number;
}

export interface RoomChange {
  capacity?: number;
  admitPerMinute?: number;
  admitBurst?: number;
  sessionTtlSeconds?: number;
  state?: 'open' | 'paused' | 'closed' | 'scheduled';
  opensAt?: string;
  adaptiveAdmission?: boolean;
  admitFloorPerMinute?: number;
  admitCeilingPerMinute?: number;
  inventoryMarginPercent?: number;
}

/** The operator API's bounds (queue/src/room-update.ts), with the words for each field. */
export const BOUNDS = {
  capacity: { min: 1, max: 1_000_000, words: 'Capacity' },
  admitPerMinute: { min: 1, max: 10_000_000, words: 'Admissions per minute' },
  admitBurst: { ...ADMIT_BURST_BOUNDS, words: 'Admissions at once' },
  sessionTtlSeconds: { min: 1, max: 86_400, words: 'Session length' },
} as const;

type SettingName = keyof typeof BOUNDS;

export function validateSettings(
  values: Record<SettingName, string>,
  current: RoomSettingsView | null,
): { ok: true; change: RoomChange } | { ok: false; message: string } {
  const change: RoomChange = {};
  for (const name of Object.keys(BOUNDS) as SettingName[]) {
    const { min, max, words } = BOUNDS[name];
    const text = values[name].trim();
    const value = Number(text);
    if (text === '' || !Number.isInteger(value) || value < min || value > max) {
      const unit = name === 'sessionTtlSeconds' ? ' seconds' : '';
      return { ok: false, message: `${words} must be a whole number from ${min.toLocaleString('en')} to ${max.toLocaleString('en')}${unit}.` };
    }
    if (!current || value !== current[name]) change[name] = value;
  }
  return { ok: true, change };
}

const WORDS: Record<keyof RoomChange, string> = {
  capacity: 'capacity',
  admitPerMinute: 'admissions per minute',
  admitBurst: 'admissions at once',
  sessionTtlSeconds: 'session length (s)',
  state: 'state',
  opensAt: 'opening time',
  adaptiveAdmission: 'follow the seat service',
  admitFloorPerMinute: 'floor per minute',
  admitCeilingPerMinute: 'ceiling per minute',
  inventoryMarginPercent: 'margin over seats left (%)',
};

/** "capacity from 50 to 80; state from open to paused" (or "capacity → 80" without a before). */
export function describeChange(change: RoomChange, before: RoomSettingsView | null): string {
  return (Object.keys(change) as (keyof RoomChange)[])
    .map((key) => {
      const show = (value: unknown) => (key === 'opensAt' ? (value ? localTime(new Date(String(value)), true) : 'none') : String(value));
      const after = show(change[key]);
      return before ? `${WORDS[key]} from ${show(before[key])} to ${after}` : `${WORDS[key]} → ${after}`;
    })
    .join('; ');
}

/** The sale's settings at the core: hold time and seats per customer. */
export const SALE_BOUNDS = {
  holdTtlSeconds: { min: 10, max: 3600, words: 'Time to pay' },
  maxSeatsPerCustomer: { min: 1, max: 50, words: 'Seats per customer' },
} as const;

export type SaleChange = Partial<Record<keyof typeof SALE_BOUNDS, number>>;

export function validateSale(
  values: Record<keyof typeof SALE_BOUNDS, string>,
  current: Record<keyof typeof SALE_BOUNDS, number>,
): { ok: true; change: SaleChange } | { ok: false; message: string } {
  const change: SaleChange = {};
  for (const name of Object.keys(SALE_BOUNDS) as (keyof typeof SALE_BOUNDS)[]) {
    const { min, max, words } = SALE_BOUNDS[name];
    const text = values[name].trim();
    const value = Number(text);
    if (text === '' || !Number.isInteger(value) || value < min || value > max) {
      return { ok: false, message: `${words} must be a whole number from ${min} to ${max}${name === 'holdTtlSeconds' ? ' seconds' : ''}.` };
    }
    if (value !== current[name]) change[name] = value;
  }
  return { ok: true, change };
}

export function describeSaleChange(change: SaleChange, before: Record<keyof typeof SALE_BOUNDS, number>): string {
  const words = { holdTtlSeconds: 'time to pay (s)', maxSeatsPerCustomer: 'seats per customer' };
  return (Object.keys(change) as (keyof SaleChange)[]).map((key) => `${words[key]} from ${before[key]} to ${change[key]}`).join('; ');
}
