/**
 * Couple seats are sold as pairs. The one rule, for the page (which chooses both halves at
 * once) and the core (which refuses a hold with one half): in a row, couple seats pair up in
 * column order, the 1st with the 2nd, the 3rd with the 4th…; a lone last seat has no partner.
 */
export interface CoupleSeat {
  code: string;
  row: number;
  column: number;
  type: string;
}

/** Map from each couple seat's code to its partner's code. */
export function couplePartners(seats: readonly CoupleSeat[]): Map<string, string> {
  const byRow = new Map<number, CoupleSeat[]>();
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

/** The partners a request leaves out: one half of a pair asked for without the other (sorted). */
export function missingPartners(codes: readonly string[], partners: ReadonlyMap<string, string>): string[] {
  const asked = new Set(codes);
  const missing = new Set<string>();
  for (const code of asked) {
    const partner = partners.get(code);
    if (partner !== undefined && !asked.has(partner)) missing.add(partner);
  }
  return [...missing].sort();
}
