/**
 * The fares console's rules, pure: a class change read from the form and checked against the
 * bounds the operator API accepts (said in plain words), prices typed as money, the refund
 * policy's steps checked and said as a sentence, and a typed list of seats.
 */

/** A class as GET /api/admin/showtimes/:id/fares lists it. */
export interface FareClassView {
  fareClass: string;
  label: string;
  priceCents: number;
  ownPrice: boolean;
  seated: boolean;
  buckets: number;
  capacity: number;
  overbookLimit: number;
  sold: number;
  held: number;
  heldLapsed: number;
  available: number;
}

export interface FareChange {
  label?: string;
  priceCents?: number | null;
  capacity?: number;
  overbookLimit?: number;
  buckets?: number;
}

export interface RefundTier {
  beforeStartMinutes: number;
  percent: number;
}

/** The operator API's bounds (core/src/fares/fare-service.ts). */
export const FARE_BOUNDS = {
  capacity: { min: 0, max: 1_000_000, words: 'Places' },
  overbookLimit: { min: 0, max: 1_000_000, words: 'Overbooking limit' },
  buckets: { min: 1, max: 64, words: 'Counter rows' },
} as const;
export const MAX_PRICE_CENTS = 10_000_000;
export const FARE_CODE = /^[A-Z][A-Z0-9_]{0,15}$/;
export const MAX_POLICY_STEPS = 10;
const MAX_POLICY_HOURS = 8_760;

type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

/** "12.50", "12,50", "12" → cents; "" → null (the showing's price). */
export function parsePrice(text: string): Checked<number | null> {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, value: null };
  const match = /^(\d{1,6})(?:[.,](\d{1,2}))?$/.exec(trimmed);
  if (!match)
    return { ok: false, message: "Price must be an amount such as 12.50, or empty for the showing's own price." };
  const cents = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  if (cents > MAX_PRICE_CENTS)
    return { ok: false, message: `Price can be at most ${(MAX_PRICE_CENTS / 100).toLocaleString('en')}.` };
  return { ok: true, value: cents };
}

export const priceText = (cents: number) => (cents / 100).toFixed(2);

function wholeNumber(text: string, bound: { min: number; max: number; words: string }): Checked<number> {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (trimmed === '' || !Number.isInteger(value) || value < bound.min || value > bound.max) {
    return {
      ok: false,
      message: `${bound.words} must be a whole number from ${bound.min.toLocaleString('en')} to ${bound.max.toLocaleString('en')}.`,
    };
  }
  return { ok: true, value };
}

export interface FareFormValues {
  label: string;
  price: string;
  capacity: string;
  overbookLimit: string;
  buckets: string;
}

/**
 * What the form changes of `current` (null: a new standing area). Seated classes keep their
 * capacity (the seats) and cannot be overbooked: a seat number is never promised twice.
 */
export function validateFareChange(values: FareFormValues, current: FareClassView | null): Checked<FareChange> {
  const change: FareChange = {};
  const label = values.label.trim();
  if (label.length < 1 || label.length > 64)
    return { ok: false, message: 'Name must be 1 to 64 characters: the name buyers see, such as "Standing floor".' };
  if (!current || label !== current.label) change.label = label;
  const price = parsePrice(values.price);
  if (!price.ok) return price;
  const currentPrice = current ? (current.ownPrice ? current.priceCents : null) : null;
  if (!current ? price.value !== null : price.value !== currentPrice) change.priceCents = price.value;
  const buckets = wholeNumber(values.buckets, FARE_BOUNDS.buckets);
  if (!buckets.ok) return buckets;
  if (!current || buckets.value !== current.buckets) change.buckets = buckets.value;
  if (current?.seated) return { ok: true, value: change };
  const capacity = wholeNumber(values.capacity, FARE_BOUNDS.capacity);
  if (!capacity.ok) return capacity;
  const overbook = wholeNumber(values.overbookLimit, FARE_BOUNDS.overbookLimit);
  if (!overbook.ok) return overbook;
  if (current && capacity.value + overbook.value < current.sold + current.held) {
    return {
      ok: false,
      message: `${current.sold + current.held} places are already sold or held: places plus overbooking cannot go below that.`,
    };
  }
  if (!current || capacity.value !== current.capacity) change.capacity = capacity.value;
  if (!current || overbook.value !== current.overbookLimit) change.overbookLimit = overbook.value;
  return { ok: true, value: change };
}

/** The change in words, for the confirmation ("price 12.00 → 15.00, places 50 → 60"). */
export function describeFareChange(
  change: FareChange,
  current: FareClassView | null,
  showPrice: (cents: number) => string,
): string {
  const parts: string[] = [];
  const from = (value: string) => (current ? `${value} → ` : '');
  if (change.label !== undefined) parts.push(`name ${current ? `"${current.label}" → ` : ''}"${change.label}"`);
  if (change.priceCents !== undefined) {
    parts.push(
      `price ${current ? from(showPrice(current.priceCents)) : ''}${change.priceCents === null ? "the showing's price" : showPrice(change.priceCents)}`,
    );
  }
  if (change.capacity !== undefined)
    parts.push(`places ${current ? from(String(current.capacity)) : ''}${change.capacity}`);
  if (change.overbookLimit !== undefined)
    parts.push(`overbooking ${current ? from(String(current.overbookLimit)) : ''}${change.overbookLimit}`);
  if (change.buckets !== undefined)
    parts.push(`counter rows ${current ? from(String(current.buckets)) : ''}${change.buckets}`);
  return parts.join(', ');
}

/** Policy steps typed as hours and percent; empty rows are ignored. */
export function validatePolicy(rows: { hours: string; percent: string }[]): Checked<RefundTier[]> {
  const tiers: RefundTier[] = [];
  for (const [index, row] of rows.entries()) {
    if (row.hours.trim() === '' && row.percent.trim() === '') continue;
    const step = `Step ${index + 1}`;
    const hours = Number(row.hours.trim().replace(',', '.'));
    if (row.hours.trim() === '' || !Number.isFinite(hours) || hours < 0 || hours > MAX_POLICY_HOURS) {
      return {
        ok: false,
        message: `${step}: the time before the start must be a number of hours from 0 to ${MAX_POLICY_HOURS.toLocaleString('en')}.`,
      };
    }
    const minutes = Math.round(hours * 60);
    if (Math.abs(minutes - hours * 60) > 1e-6)
      return { ok: false, message: `${step}: give the time in whole minutes (for example 1.5 hours, not 1.505).` };
    const percent = Number(row.percent.trim());
    if (row.percent.trim() === '' || !Number.isInteger(percent) || percent < 0 || percent > 100) {
      return { ok: false, message: `${step}: the refund must be a whole percent from 0 to 100.` };
    }
    tiers.push({ beforeStartMinutes: minutes, percent });
  }
  if (tiers.length > MAX_POLICY_STEPS) return { ok: false, message: `A policy has at most ${MAX_POLICY_STEPS} steps.` };
  tiers.sort((a, b) => b.beforeStartMinutes - a.beforeStartMinutes);
  for (let i = 1; i < tiers.length; i++) {
    if (tiers[i]!.beforeStartMinutes === tiers[i - 1]!.beforeStartMinutes) {
      return {
        ok: false,
        message: `Two steps start ${hoursText(tiers[i]!.beforeStartMinutes)} before the showing: keep one.`,
      };
    }
    if (tiers[i]!.percent > tiers[i - 1]!.percent) {
      return {
        ok: false,
        message: `Cancelling ${hoursText(tiers[i]!.beforeStartMinutes)} before would give back more (${tiers[i]!.percent} %) than cancelling earlier (${tiers[i - 1]!.percent} %): a later cancellation cannot get more back.`,
      };
    }
  }
  return { ok: true, value: tiers };
}

export function hoursText(minutes: number): string {
  if (minutes === 0) return 'right up to the start';
  if (minutes % 60 === 0) return `${minutes / 60} ${minutes === 60 ? 'hour' : 'hours'}`;
  return `${(minutes / 60).toFixed(2).replace(/0$/, '')} hours`;
}

/** "Full refund until 24 hours before the start; 50 % until 2 hours before; nothing after." */
export function describePolicy(tiers: RefundTier[]): string {
  const sorted = [...tiers].sort((a, b) => b.beforeStartMinutes - a.beforeStartMinutes).filter((t) => t.percent > 0);
  if (sorted.length === 0) return 'No refund: cancelled bookings give nothing back.';
  const parts = sorted.map((t) => {
    const what = t.percent === 100 ? 'full refund' : `${t.percent} % back`;
    return t.beforeStartMinutes === 0
      ? `${what} until the start`
      : `${what} until ${hoursText(t.beforeStartMinutes)} before the start`;
  });
  const sentence = parts.join('; ');
  const last = sorted[sorted.length - 1]!;
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}${last.beforeStartMinutes > 0 ? '; nothing after' : ''}. No cancellation once the showing has started.`;
}

/** "A1, a2 A3" → ["A1", "A2", "A3"]. */
export function parseSeatList(text: string): Checked<string[]> {
  const seats = text
    .split(/[\s,;]+/)
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean);
  if (seats.length === 0) return { ok: false, message: 'Type the seats to move, such as A1, A2, A3.' };
  const bad = seats.find((s) => !/^[A-Z0-9]{1,8}$/.test(s));
  if (bad)
    return {
      ok: false,
      message: `"${bad}" is not a seat code: seat codes are a row letter and a number, such as F12.`,
    };
  if (seats.length > 1000) return { ok: false, message: 'Move at most 1,000 seats at once.' };
  return { ok: true, value: [...new Set(seats)] };
}
