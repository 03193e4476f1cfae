/** Seats: nobody double-sold, the hall adds up, no hold outlives its expiry, no acknowledged write lost. */
import type { Sql } from 'postgres';
import { checkInvariants } from '../../loadtest/invariants';
import type { Check } from './check';

export interface SeatContext {
  sql: Sql;
  showtimeId: number;
  /** An ACTIVE hold this long past its expiry counts as stuck (the sweeper runs every second). */
  staleAfterSeconds: number;
  /** Holds and payments a buyer was told exist (201): they must still exist after any fault. */
  acknowledged: { holdIds: string[]; paymentIds: string[] };
}

export const seatCheck: Check<SeatContext> = {
  name: 'seats',
  async run({ sql, showtimeId, staleAfterSeconds, acknowledged }) {
    const { counts } = await checkInvariants(sql, { showtimeIds: [showtimeId] });
    const [row] = await sql<{ stuck: number; holds_kept: number; payments_kept: number }[]>`
      SELECT (SELECT count(*) FROM seat_hold WHERE showtime_id = ${showtimeId} AND status = 'ACTIVE'
                 AND expires_at < now() - ${`${staleAfterSeconds} seconds`}::interval)::int AS stuck,
             (SELECT count(*) FROM seat_hold WHERE id = ANY(${acknowledged.holdIds}::uuid[]))::int AS holds_kept,
             (SELECT count(*) FROM payment WHERE id = ANY(${acknowledged.paymentIds}::text[]))::int AS payments_kept`;
    return {
      oversoldSeats: counts.oversoldSeats,
      bookedSeatsWithoutBooking: counts.bookedSeatsWithoutBooking,
      bookingSeatsNotBooked: counts.bookingSeatsNotBooked,
      hallMismatches: counts.hallMismatches,
      holdsStuckPastExpiry: row!.stuck,
      acknowledgedHoldsLost: acknowledged.holdIds.length - row!.holds_kept,
      acknowledgedPaymentsLost: acknowledged.paymentIds.length - row!.payments_kept,
    };
  },
};
