import type { Sql } from 'postgres';
import { insertAudit, lockForAudit, type Operator } from '../audit/audit-log';
import { z } from 'zod';
import { notFound, unprocessable } from '../../../lib/errors';
import { toHttpError } from '../db/sql-errors';
import {
  configurePlaces,
  insertPlacesClass,
  listFareClasses,
  lockFareClass,
  setSeatedBuckets,
  showtimeExists,
  updateFareClassLabelAndPrice,
  type FareClassRow,
} from './fare-repo';

export const FARE_CLASS_CODE = /^[A-Z][A-Z0-9_]{0,15}$/;
export const MAX_BUCKETS = 64;
export const MAX_CLASS_CAPACITY = 1_000_000;

/** PUT /admin/showtimes/:id/fares/:fareClass. Seated classes come from the hall's seats. */
export const fareClassChangeSchema = z
  .object({
    label: z.string().trim().min(1).max(64),
    /** null: the showtime's price. */
    priceCents: z.number().int().min(0).max(10_000_000).nullable(),
    capacity: z.number().int().min(0).max(MAX_CLASS_CAPACITY),
    overbookLimit: z.number().int().min(0).max(MAX_CLASS_CAPACITY),
    buckets: z.number().int().min(1).max(MAX_BUCKETS),
  })
  .partial()
  .strict()
  .refine((value) => Object.keys(value).length > 0, { message: 'change at least one field' });

export type FareClassChange = z.infer<typeof fareClassChangeSchema>;

export function fareClassView(row: FareClassRow) {
  return {
    fareClass: row.fare_class,
    label: row.label,
    priceCents: row.price_cents,
    ownPrice: row.own_price,
    seated: row.seated,
    buckets: row.buckets,
    capacity: row.capacity,
    overbookLimit: row.overbook_limit,
    sold: row.sold,
    held: row.held_live,
    heldLapsed: row.held - row.held_live,
    available: row.available,
  };
}

const humanLabel = (code: string) => code.charAt(0) + code.slice(1).toLowerCase().replace(/_/g, ' ');

/**
 * The operator's side of fare classes: prices, labels and bucket counts for every class; capacity
 * and the overbooking limit for general admission only (a seated class's capacity is its seats,
 * and a seat number is never promised twice). One transaction per change, the class row locked.
 */
export function createFareService(deps: { sql: Sql }) {
  const { sql } = deps;

  async function list(showtimeId: number) {
    if (!(await showtimeExists(sql, showtimeId))) throw notFound('SHOWTIME_NOT_FOUND', 'No such showtime');
    return (await listFareClasses(sql, showtimeId)).map(fareClassView);
  }

  async function change(showtimeId: number, fareClass: string, input: FareClassChange, operator: Operator) {
    if (!FARE_CLASS_CODE.test(fareClass)) {
      throw unprocessable(
        'INVALID_FARE_CLASS',
        'A class code is 1-16 capital letters, digits or underscores, starting with a letter',
      );
    }
    try {
      const created = await sql.begin(async (tx) => {
        const locked = await lockForAudit(tx, showtimeId);
        if (!locked) throw notFound('SHOWTIME_NOT_FOUND', 'No such showtime');
        let current = await lockFareClass(tx, showtimeId, fareClass);
        let isNew = false;
        if (!current) {
          if (input.capacity === undefined) {
            throw unprocessable('CAPACITY_REQUIRED', 'A new general-admission class needs its capacity');
          }
          await insertPlacesClass(tx, {
            showtimeId,
            fareClass,
            label: input.label ?? humanLabel(fareClass),
            priceCents: input.priceCents ?? null,
          });
          current = (await lockFareClass(tx, showtimeId, fareClass))!;
          isNew = true;
        }
        const before = (await listFareClasses(tx, showtimeId)).find((row) => row.fare_class === fareClass)!;
        if (current.seated && (input.capacity !== undefined || input.overbookLimit !== undefined)) {
          throw unprocessable(
            'SEATED_CLASS_CAPACITY',
            'A seated class sells its seats: its capacity is its seat count and it cannot be overbooked',
            {
              fareClass,
            },
          );
        }
        if (input.label !== undefined || input.priceCents !== undefined) {
          await updateFareClassLabelAndPrice(tx, {
            showtimeId,
            fareClass,
            label: input.label,
            priceCents: input.priceCents,
          });
        }
        if (current.seated) {
          if (input.buckets !== undefined && input.buckets !== current.buckets) {
            await setSeatedBuckets(tx, { showtimeId, fareClass, buckets: input.buckets });
          }
        } else if (
          isNew ||
          input.capacity !== undefined ||
          input.overbookLimit !== undefined ||
          input.buckets !== undefined
        ) {
          await configurePlaces(tx, {
            showtimeId,
            fareClass,
            capacity: input.capacity ?? before.capacity,
            overbookLimit: input.overbookLimit ?? before.overbook_limit,
            buckets: input.buckets ?? current.buckets,
          });
        }
        const after = (await listFareClasses(tx, showtimeId)).find((row) => row.fare_class === fareClass)!;
        await insertAudit(
          tx,
          {
            showtimeId,
            operator,
            action: isNew ? 'fare.create' : 'fare.update',
            before: isNew ? null : settingsOf(before),
            after: settingsOf(after),
          },
          locked.version,
        );
        return isNew;
      });
      const view = (await list(showtimeId)).find((row) => row.fareClass === fareClass)!;
      return { created, fareClass: view };
    } catch (error) {
      throw toHttpError(error);
    }
  }

  return { list, change };
}

function settingsOf(row: FareClassRow) {
  return {
    fareClass: row.fare_class,
    label: row.label,
    priceCents: row.own_price ? row.price_cents : null,
    capacity: row.capacity,
    overbookLimit: row.overbook_limit,
    buckets: row.buckets,
  };
}

export type FareService = ReturnType<typeof createFareService>;
