/**
 * What every best-available hold must be, checked from the outside: no seat in two live holds,
 * `together` holds adjacent in one row, no couple pair split. Returns the violations (empty: all
 * good), so a test can show each check catching a broken set of holds (best-available.test.ts).
 */
import { couplePartners } from '../../../lib/couple-pairs';

export interface HallSeat {
  code: string;
  row: number;
  column: number;
  type: string;
}

export function bestHoldViolations(
  hall: readonly HallSeat[],
  holds: readonly { seats: string[]; together: boolean }[],
): string[] {
  const byCode = new Map(hall.map((seat) => [seat.code, seat]));
  const partners = couplePartners(hall);
  const owner = new Map<string, number>();
  const violations: string[] = [];
  holds.forEach((hold, index) => {
    for (const code of hold.seats) {
      const before = owner.get(code);
      if (before !== undefined) violations.push(`seat ${code} in holds ${before} and ${index}`);
      owner.set(code, index);
      const partner = partners.get(code);
      if (partner !== undefined && !hold.seats.includes(partner))
        violations.push(`hold ${index} splits the couple pair ${code}+${partner}`);
    }
    if (!hold.together) return;
    const seats = hold.seats.map((code) => byCode.get(code)!).sort((a, b) => a.column - b.column);
    if (new Set(seats.map((seat) => seat.row)).size !== 1)
      violations.push(`hold ${index} spans rows: ${hold.seats.join(',')}`);
    else if (seats.some((seat, i) => i > 0 && seat.column !== seats[i - 1]!.column + 1))
      violations.push(`hold ${index} has a gap: ${hold.seats.join(',')}`);
  });
  return violations;
}
