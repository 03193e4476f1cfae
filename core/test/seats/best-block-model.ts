/**
 * Best available "N together", worked out in TypeScript from the rules docs/best-available.md
 * states, with nothing shared with the SQL: the reference the database's choice is compared
 * with (hall-blocks.test.ts). Scores are doubled so every comparison is on integers.
 */
import { couplePartners } from '../../../lib/couple-pairs';
import type { HallSeat } from './best-invariants';

export function idealRowOf(hall: readonly HallSeat[]): number {
  return Math.ceil((Math.max(...hall.map((seat) => seat.row)) * 2) / 3);
}

/** The seats (sorted by code) of the best block of `count` free seats, or null when none is left. */
export function bestBlock(
  hall: readonly HallSeat[],
  free: ReadonlySet<string>,
  options: { count: number; accessible: boolean; idealRow: number },
): string[] | null {
  const { count, accessible, idealRow } = options;
  const partners = couplePartners(hall);
  const rows = new Map<number, HallSeat[]>();
  for (const seat of hall) rows.set(seat.row, [...(rows.get(seat.row) ?? []), seat]);
  let best: { score2: number; row: number; first: number; seats: string[] } | null = null;
  for (const [row, unsorted] of rows) {
    const seats = [...unsorted].sort((a, b) => a.column - b.column);
    const rowEnds = seats[0]!.column + seats[seats.length - 1]!.column;
    for (let start = 0; start + count <= seats.length; start++) {
      const block = seats.slice(start, start + count);
      const adjacent = block.every((seat, i) => i === 0 || seat.column === block[i - 1]!.column + 1);
      if (!adjacent) continue;
      const codes = new Set(block.map((seat) => seat.code));
      const cutsPair = block.some((seat) => {
        const partner = partners.get(seat.code);
        return partner !== undefined && !codes.has(partner);
      });
      const accessibleSeats = block.filter((seat) => seat.type === 'accessible').length;
      if (cutsPair || (accessible ? accessibleSeats === 0 : accessibleSeats > 0)) continue;
      if (!block.every((seat) => free.has(seat.code))) continue;
      const first = block[0]!.column;
      const last = block[block.length - 1]!.column;
      const couplePair =
        count === 2 && block.every((seat) => seat.type === 'couple') && partners.get(block[0]!.code) === block[1]!.code;
      const score2 = 4 * Math.abs(row - idealRow) + Math.abs(first + last - rowEnds) - (couplePair ? 6 : 0);
      const better =
        best === null ||
        score2 < best.score2 ||
        (score2 === best.score2 && (row < best.row || (row === best.row && first < best.first)));
      if (better) best = { score2, row, first, seats: [...codes].sort() };
    }
  }
  return best?.seats ?? null;
}
