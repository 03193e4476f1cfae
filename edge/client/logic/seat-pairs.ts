/**
 * Couple seats are sold as pairs: in a row, couple seats pair up in column order (the 1st
 * with the 2nd, the 3rd with the 4th…), so choosing one chooses both, and a pair with one
 * half gone cannot be chosen at all.
 */
export interface PairableSeat {
  code: string;
  row: number;
  column: number;
  type: string;
  status: string;
}

/** Map from each couple seat's code to its partner's code (a lone last seat has none). */
export function couplePartners(seats: readonly PairableSeat[]): Map<string, string> {
  const byRow = new Map<number, PairableSeat[]>();
  for (const seat of seats) {
    if (seat.type !== 'couple') continue;
    const row = byRow.get(seat.row) ?? [];
    row.push(seat);
    byRow.set(seat.row, row);
  }
  const partners = new Map<string, string>();
  for (const row of byRow.values()) {
    row.sort((a, b) => a.column - b.column);
    for (let i = 0; i + 1 < row.length; i += 2) {
      partners.set(row[i]!.code, row[i + 1]!.code);
      partners.set(row[i + 1]!.code, row[i]!.code);
    }
  }
  return partners;
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
  if (selected.includes(code)) return { ok: true, selected: selected.filter((c) => !codes.includes(c)), added: false, codes };
  if (codes.some((c) => statusOf(c) !== 'AVAILABLE')) return { ok: false, reason: 'partner_taken' };
  const next = [...selected, ...codes.filter((c) => !selected.includes(c))];
  if (next.length > limit) return { ok: false, reason: 'limit' };
  return { ok: true, selected: next, added: true, codes };
}
