import type { Sql } from 'postgres';
import { insertAudit, lockForAudit, type Operator } from '../audit/audit-log';
import { z } from 'zod';
import { conflict, notFound, unprocessable } from '../../../lib/errors';
import { toHttpError } from '../db/sql-errors';
import { FARE_CLASS_CODE } from './fare-service';
import {
  insertSeatedClass,
  lockFareClasses,
  lockSeatsOfClasses,
  moveSeatsToClass,
  recountOrRemoveSeatedClass,
  seatClassesOf,
} from './fare-repo';

/** PUT /admin/showtimes/:id/seat-classes: these seats are sold in that class from now on. */
export const seatClassChangeSchema = z
  .object({
    seats: z
      .array(z.string().regex(/^[A-Za-z0-9]{1,8}$/, 'a seat code such as F12'))
      .min(1)
      .max(1000),
    fareClass: z.string().regex(FARE_CLASS_CODE, '1-16 capital letters, digits or underscores, starting with a letter'),
  })
  .strict();

export type SeatClassChange = z.infer<typeof seatClassChangeSchema>;

const humanLabel = (code: string) => code.charAt(0) + code.slice(1).toLowerCase().replace(/_/g, ' ');

/**
 * Moves seats of one showtime to another seated class after the hall exists (the class is
 * created at the showtime's price when it is new; a class left without seats is removed). Rule:
 * only seats nobody holds or owns move. A HELD seat is refused even when its hold has lapsed
 * (the sweeper frees it within seconds): the counters move by trigger with each seat's state,
 * and a seat's class changes only while it counts in neither class.
 *
 * LOCK order as every writer: the class rows (class-code order, so two operator changes cannot
 * deadlock), then every seat of the classes involved in seat-code order (holds wait meanwhile),
 * then the counter rows, rebuilt from the seats (fare_recount_seated). Audited in the same
 * transaction, like the other operator changes.
 */
export function createSeatClassService(deps: { sql: Sql }) {
  const { sql } = deps;

  async function change(showtimeId: number, input: SeatClassChange, operator: Operator) {
    const seats = [...new Set(input.seats)].sort();
    try {
      return await sql.begin(async (tx) => {
        const audit = await lockForAudit(tx, showtimeId);
        if (!audit) throw notFound('SHOWTIME_NOT_FOUND', 'No such showtime');
        const current = await seatClassesOf(tx, showtimeId, seats);
        if (current.length !== seats.length) {
          const known = new Set(current.map((s) => s.seat_code));
          throw unprocessable('UNKNOWN_SEATS', "Some of these seats are not in this showtime's hall", {
            seats: seats.filter((s) => !known.has(s)),
          });
        }
        const classes = [...new Set([input.fareClass, ...current.map((s) => s.fare_class)])].sort();
        const locked = await lockFareClasses(tx, showtimeId, classes);
        const target = locked.find((c) => c.fare_class === input.fareClass);
        if (target && !target.seated) {
          throw unprocessable(
            'INVALID_FARE_CLASS',
            `${input.fareClass} is a general-admission class: it has places, not seats`,
            { fareClass: input.fareClass },
          );
        }
        if (!target) {
          await insertSeatedClass(tx, { showtimeId, fareClass: input.fareClass, label: humanLabel(input.fareClass) });
        }
        // LOCK: every seat of the classes involved, in seat-code order.
        const states = await lockSeatsOfClasses(tx, showtimeId, classes);
        const busy = states.filter((s) => seats.includes(s.seat_code) && s.status !== 'AVAILABLE');
        if (busy.length > 0) {
          throw conflict(
            'SEATS_UNAVAILABLE',
            'Some of these seats are held or sold: a seat changes class only while it is free',
            {
              seats: busy.map((s) => s.seat_code),
            },
          );
        }
        const moved = current.filter((s) => s.fare_class !== input.fareClass);
        if (moved.length > 0) {
          await moveSeatsToClass(tx, { showtimeId, fareClass: input.fareClass, seats: moved.map((s) => s.seat_code) });
          // WRITE: each class's bucket rows from its seats; classes left without seats go.
          for (const fareClass of classes) await recountOrRemoveSeatedClass(tx, showtimeId, fareClass);
          await insertAudit(
            tx,
            {
              showtimeId,
              operator,
              action: 'fare.seats',
              before: { seats: moved.map((s) => ({ seat: s.seat_code, fareClass: s.fare_class })) },
              after: { seats: moved.map((s) => s.seat_code), fareClass: input.fareClass, created: !target },
            },
            audit.version,
          );
        }
        return {
          showtimeId,
          fareClass: input.fareClass,
          seats,
          moved: moved.map((s) => s.seat_code),
          created: !target && moved.length > 0,
        };
      });
    } catch (error) {
      throw toHttpError(error);
    }
  }

  return { change };
}

export type SeatClassService = ReturnType<typeof createSeatClassService>;
