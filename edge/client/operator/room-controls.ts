/**
 * The console's controls as pure rules: what a settings form change is, whether it is within
 * the bounds the operator API accepts (said in plain words), and how a change reads in the
 * confirmation and the "Applied" line.
 */
import {
  consoleGroup,
  operatorSettingByApiName,
  type ConsoleGroup,
  type OperatorApiValues,
} from '../../../lib/room-settings-registry';
import { localTime } from '../core/format';

/** The room's settings as the operator API shows them (queue/src/room-update.ts publicSettings). */
export type RoomSettingsView = Partial<OperatorApiValues> & { state: string; opensAt: string | null };

export type RoomChange = Partial<OperatorApiValues> & {
  state?: 'open' | 'paused' | 'closed' | 'scheduled';
  opensAt?: string;
};

/** What the console's inputs of one group hold: text for numbers, checked or not for flags. */
export type GroupValues = Record<string, string | boolean>;
export type Checked = { ok: true; change: RoomChange } | { ok: false; message: string };

/** "1,000,000" (the bounds as the operator reads them). */
const count = (value: number) => value.toLocaleString('en');

/**
 * The group's inputs checked against the operator API's bounds (the registry's), and what
 * differs from the room's current settings (everything, when they are not known yet).
 */
export function validateGroup(group: ConsoleGroup, values: GroupValues, current: RoomSettingsView | null): Checked {
  const change: Record<string, number | boolean> = {};
  const now = (current ?? {}) as Record<string, unknown>;
  for (const apiName of consoleGroup(group)) {
    const { spec } = operatorSettingByApiName(apiName)!;
    const raw = values[apiName];
    if (spec.kind === 'flag') {
      if (!current || raw !== now[apiName]) change[apiName] = raw === true;
      continue;
    }
    const { min, max } = spec.operator!;
    const text = String(raw ?? '').trim();
    const value = Number(text);
    if (text === '' || !Number.isInteger(value) || value < min || value > max) {
      const unit = spec.unit === 'seconds' ? ' seconds' : '';
      return { ok: false, message: `${spec.name} must be a whole number from ${count(min)} to ${count(max)}${unit}.` };
    }
    if (!current || value !== now[apiName]) change[apiName] = value;
  }
  return { ok: true, change: change as RoomChange };
}

/** The settings form: capacity, rate, burst, session length. */
export const validateSettings = (values: GroupValues, current: RoomSettingsView | null): Checked =>
  validateGroup('room', values, current);

const WORDS: Record<string, string> = { state: 'state', opensAt: 'opening time' };

/** A change's field in a sentence: the registry's words, or the state's and opening's. */
const wordsFor = (key: string) => WORDS[key] ?? operatorSettingByApiName(key)?.spec.words ?? key;

/** "capacity from 50 to 80; state from open to paused" (or "capacity → 80" without a before). */
export function describeChange(change: RoomChange, before: RoomSettingsView | null): string {
  return Object.keys(change)
    .map((key) => {
      const show = (value: unknown) =>
        key === 'opensAt' ? (value ? localTime(new Date(String(value)), true) : 'none') : String(value);
      const after = show((change as Record<string, unknown>)[key]);
      return before
        ? `${wordsFor(key)} from ${show((before as Record<string, unknown>)[key])} to ${after}`
        : `${wordsFor(key)} → ${after}`;
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
      return {
        ok: false,
        message: `${words} must be a whole number from ${min} to ${max}${name === 'holdTtlSeconds' ? ' seconds' : ''}.`,
      };
    }
    if (value !== current[name]) change[name] = value;
  }
  return { ok: true, change };
}

export function describeSaleChange(change: SaleChange, before: Record<keyof typeof SALE_BOUNDS, number>): string {
  const words = { holdTtlSeconds: 'time to pay (s)', maxSeatsPerCustomer: 'seats per customer' };
  return (Object.keys(change) as (keyof SaleChange)[])
    .map((key) => `${words[key]} from ${before[key]} to ${change[key]}`)
    .join('; ');
}
