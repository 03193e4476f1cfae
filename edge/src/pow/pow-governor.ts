/**
 * Adaptive proof-of-work difficulty. The operator sets a base difficulty and a ceiling per
 * room; between the two the edge raises the difficulty by itself while joins run above a
 * threshold, per showtime (a crowd, or a botnet) and per client address (one scraper), and
 * lowers it again as the counts fall. One extra bit doubles the expected work, so each
 * doubling of the rate over the threshold adds one bit (plus one for crossing it).
 *
 * Counts are per edge process, in memory (a join pays two Map updates): each process sees
 * its share of the traffic, which is what its thresholds are sized for.
 */
import { POW_OPERATOR_MAX_BITS } from '../../../queue/src/settings';

/**
 * The most work the edge ever asks: 2^18 hashes, a few seconds in a browser's Web Worker
 * (21 bits were measured at 52 s). The same bound as an operator may set
 * (queue/src/settings.ts); a stored room may hold more from before, so base and ceiling are
 * capped here too, and the gate and the console agree on the price.
 */
export const POW_GATE_MAX_BITS = POW_OPERATOR_MAX_BITS;

export interface PowGovernorOptions {
  /** Joins per second on one showtime (this process) before its difficulty rises. */
  showtimeJoinsPerSecond: number;
  /** Joins per minute from one address (this process) before that address's difficulty rises. */
  addressJoinsPerMinute: number;
  maxKeys?: number;
  now?: () => number;
}

export interface PowLevel {
  difficulty: number;
  base: number;
  ceiling: number;
  /** Why the difficulty is what it is, in words for the operator. */
  reason: string;
}

/** A rate over a sliding window made of the current and the previous fixed window. */
function createWindowCounter(windowMs: number, maxKeys: number, now: () => number) {
  const slots = new Map<string, { start: number; current: number; previous: number }>();
  const roll = (key: string, at: number) => {
    const start = Math.floor(at / windowMs) * windowMs;
    let slot = slots.get(key);
    if (!slot) {
      if (slots.size >= maxKeys) slots.delete(slots.keys().next().value as string);
      slot = { start, current: 0, previous: 0 };
      slots.set(key, slot);
    } else if (slot.start !== start) {
      slot.previous = start - slot.start === windowMs ? slot.current : 0;
      slot.current = 0;
      slot.start = start;
    }
    return slot;
  };
  return {
    add(key: string) {
      roll(key, now()).current += 1;
    },
    /** Events in the last window, weighting the previous fixed window by how much of it still counts. */
    rate(key: string): number {
      if (!slots.has(key)) return 0;
      const at = now();
      const slot = roll(key, at);
      const elapsed = (at - slot.start) / windowMs;
      return slot.current + slot.previous * (1 - elapsed);
    },
  };
}

const extraBits = (rate: number, threshold: number) =>
  rate > threshold ? Math.ceil(Math.log2(rate / threshold)) + 1 : 0;

export function createPowGovernor(options: PowGovernorOptions) {
  const now = options.now ?? Date.now;
  const maxKeys = options.maxKeys ?? 100_000;
  const showtimes = createWindowCounter(1_000, 10_000, now);
  const addresses = createWindowCounter(60_000, maxKeys, now);

  function level(showtimeId: string, address: string | null, asBase: number, asCeiling: number): PowLevel {
    const base = Math.min(asBase, POW_GATE_MAX_BITS);
    const ceiling = Math.min(asCeiling, POW_GATE_MAX_BITS);
    const top = Math.max(base, ceiling);
    if (top <= base)
      return {
        difficulty: base,
        base,
        ceiling,
        reason: base > 0 ? 'base difficulty (adaptive raising is off)' : 'off',
      };
    const showRate = showtimes.rate(showtimeId);
    const addressRate = address ? addresses.rate(`${showtimeId}\n${address}`) : 0;
    const byShowtime = extraBits(showRate, options.showtimeJoinsPerSecond);
    const byAddress = extraBits(addressRate, options.addressJoinsPerMinute);
    const difficulty = Math.min(top, base + Math.max(byShowtime, byAddress));
    if (difficulty === base) return { difficulty, base, ceiling, reason: base > 0 ? 'base difficulty' : 'off' };
    const capped = difficulty === top ? ' (at the ceiling)' : '';
    const reason =
      byShowtime >= byAddress
        ? `raised: ${Math.round(showRate)} joins/s on this showtime, above ${options.showtimeJoinsPerSecond}/s${capped}`
        : `raised for this address: ${Math.round(addressRate)} joins/min, above ${options.addressJoinsPerMinute}/min${capped}`;
    return { difficulty, base, ceiling, reason };
  }

  return {
    /** Counts one join attempt (with or without a solution). */
    observe(showtimeId: string, address: string | null) {
      showtimes.add(showtimeId);
      if (address) addresses.add(`${showtimeId}\n${address}`);
    },
    /** The difficulty this address must solve now. */
    level,
    /** The showtime-wide difficulty, for the console (addresses raised on their own are not in it). */
    showtimeLevel: (showtimeId: string, base: number, ceiling: number) => level(showtimeId, null, base, ceiling),
  };
}

export type PowGovernor = ReturnType<typeof createPowGovernor>;
