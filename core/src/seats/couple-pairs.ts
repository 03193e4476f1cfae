/**
 * The core refuses half a couple pair (lib/couple-pairs.ts has the rule the page follows too):
 * a buyer who asks for K1 without K2 gets 422 `COUPLE_SEATS_SPLIT` naming the missing half,
 * before any seat is touched. A showtime's hall does not change once it is on sale, so each
 * showtime's pairs are read once per process (a bounded map).
 */
import type { Sql } from 'postgres';
import { couplePartners, missingPartners } from '../../../lib/couple-pairs';
import { unprocessable } from '../../../lib/errors';
import { listCoupleSeats } from './seat-repo';

const SHOWTIMES_KEPT = 1_000;

export function createCouplePairs(sql: Sql) {
  const known = new Map<number, Promise<Map<string, string>>>();

  function partnersOf(showtimeId: number): Promise<Map<string, string>> {
    let partners = known.get(showtimeId);
    if (!partners) {
      partners = listCoupleSeats(sql, showtimeId).then((rows) =>
        couplePartners(rows.map((r) => ({ ...r, type: 'couple' }))),
      );
      if (known.size >= SHOWTIMES_KEPT) known.delete(known.keys().next().value!);
      known.set(showtimeId, partners);
      // A failed read is not remembered: the next hold reads again.
      partners.catch(() => known.delete(showtimeId));
    }
    return partners;
  }

  return {
    /** Throws 422 COUPLE_SEATS_SPLIT when `seats` holds one half of a pair without the other. */
    async assertWholePairs(showtimeId: number, seats: readonly string[]): Promise<void> {
      const missing = missingPartners(seats, await partnersOf(showtimeId));
      if (missing.length > 0) {
        throw unprocessable(
          'COUPLE_SEATS_SPLIT',
          `Couple seats are sold in pairs: ask for ${missing.join(', ')} as well`,
          { seats: missing },
        );
      }
    },
  };
}

export type CouplePairs = ReturnType<typeof createCouplePairs>;
