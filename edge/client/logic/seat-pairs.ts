/**
 * Couple seats are sold as pairs: in a row, couple seats pair up in column order (the 1st
 * with the 2nd, the 3rd with the 4th…; the rule is lib/couple-pairs.ts, which the core
 * enforces too), so choosing one chooses both, and a pair with one half gone cannot be
 * chosen at all.
 */
import { couplePartners } from '../../../lib/couple-pairs';

export { couplePartners };
export interface PairableSeat {
  code: string;
  row: number;
  column: number;
  type: string;
  status: string;
}

/** The seats one choice stands for: the seat, plus its partner for a couple seat. */
export function seatsForChoice(code: string, partners: ReadonlyMap<string, string>): string[] {
  const partner = partners.get(code);
  return partner ? [code, partner].sort() : [code];
}

export type ToggleOutcome =
  | { ok: true; selected: string[]; added: boolean; codes: string[] }
  | { ok: false; reason: 'unavailable' | 'partner_taken' | 'limit' };

/** Chooses or un-chooses a seat (and its partner) within the per-buyer limit. */
export function toggleSeat(
  code: string,
  selected: readonly string[],
  seats: readonly PairableSeat[],
  partners: ReadonlyMap<string, string>,
  limit: number,
): ToggleOutcome {
  const codes = seatsForChoice(code, partners);
  const statusOf = (c: string) => seats.find((s) => s.code === c)?.status;
  if (statusOf(code) !== 'AVAILABLE') return { ok: false, reason: 'unavailable' };
  if (selected.includes(code))
    return { ok: true, selected: selected.filter((c) => !codes.includes(c)), added: false, codes };
  if (codes.some((c) => statusOf(c) !== 'AVAILABLE')) return { ok: false, reason: 'partner_taken' };
  const next = [...selected, ...codes.filter((c) => !selected.includes(c))];
  if (next.length > limit) return { ok: false, reason: 'limit' };
  return { ok: true, selected: next, added: true, codes };
}
