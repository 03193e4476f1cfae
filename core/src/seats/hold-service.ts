import { randomUUID } from 'node:crypto';
import type { Sql } from 'postgres';
import { z } from 'zod';
import { conflict, forbidden, notFound, unprocessable } from '../../../lib/errors';
import type { AccessClaims } from '../../../lib/access-token';
import { isTransientDatabaseError, mapDatabaseError } from '../db/sql-errors';
import type { CoreMetrics } from '../metrics';
import { endHold, findHold, holdBestSeats, holdSeats, type HoldRow } from './seat-repo';
import { holdPlaces } from '../fares/fare-repo';
import type { GatePass, SeatGate } from '../gate/seat-gate';
import { SEAT_CODE } from '../../../lib/seat-code';

/** No showtime allows more than this per request; the showtime's own limit is checked in SQL. */
export const MAX_SEATS_PER_REQUEST = 50;
/** Re-exported for the core's modules that check seat codes; defined in lib for the API description too. */
export { SEAT_CODE };

const seatsHoldSchema = z.object({
  seats: z
    .array(z.string().regex(SEAT_CODE, 'expected a seat code such as "F5"'))
    .min(1, 'choose at least one seat')
    .max(MAX_SEATS_PER_REQUEST, `at most ${MAX_SEATS_PER_REQUEST} seats per request`),
});

/** General admission: a class without seat numbers and how many places in it. */
const placesHoldSchema = z.object({
  fareClass: z.string().regex(/^[A-Z][A-Z0-9_]{0,15}$/, 'expected a class code such as "GA_FLOOR"'),
  quantity: z
    .number()
    .int()
    .min(1, 'at least one place')
    .max(MAX_SEATS_PER_REQUEST, `at most ${MAX_SEATS_PER_REQUEST} places per request`),
});

/**
 * Best available: the core picks `count` seats, adjacent in one row when `together`
 * (docs/best-available.md). Accessible seats only when `accessible`; `fareClass` keeps the
 * choice to one seated class. The showtime's own per-customer limit is checked in SQL.
 */
const bestHoldSchema = z.object({
  count: z
    .number()
    .int()
    .min(1, 'at least one seat')
    .max(MAX_SEATS_PER_REQUEST, `at most ${MAX_SEATS_PER_REQUEST} seats per request`),
  together: z.boolean(),
  accessible: z.boolean().optional(),
  fareClass: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{0,15}$/, 'expected a class code such as "STALLS"')
    .optional(),
});

/**
 * Seats (`{"seats":["F5","F6"]}`), places of a general-admission class
 * (`{"fareClass":"GA_FLOOR","quantity":2}`), or best available (`{"count":2,"together":true}`).
 */
export const holdRequestSchema = z.union([seatsHoldSchema, placesHoldSchema, bestHoldSchema]);
export type HoldRequest = z.infer<typeof holdRequestSchema>;

/**
 * The body nearly every hold sends, `{"seats":["F5"]}` with valid codes, checked without zod
 * (its union of three objects cost a hold more than routing it): returns what
 * holdRequestSchema returns for it (the seats branch is tried first, other keys are stripped),
 * or null for anything else, which the schema then judges and explains.
 */
export function acceptSeatsHold(raw: unknown): HoldRequest | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const seats = (raw as { seats?: unknown }).seats;
  if (!Array.isArray(seats) || seats.length < 1 || seats.length > MAX_SEATS_PER_REQUEST) return null;
  for (const seat of seats) if (typeof seat !== 'string' || !SEAT_CODE.test(seat)) return null;
  return { seats: [...(seats as string[])] };
}

export interface HoldView {
  holdId: string;
  showtimeId: number;
  status: 'ACTIVE' | 'EXPIRED' | 'CANCELLED' | 'CONFIRMED';
  seats: string[];
  expiresAt: string;
  createdAt: string;
  bookingId?: string;
  /** General-admission holds: the class and how many places. */
  fareClass?: string;
  quantity?: number;
}

const ATTEMPTS = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Hold rules around the arbiter: input is normalised (sorted, duplicates refused) before any
 * write, a deadlock or lock timeout is retried a bounded number of times with jitter, and only
 * then is the buyer told the service is busy (503 with Retry-After).
 */
export function createHoldService(deps: { sql: Sql; metrics: CoreMetrics; gate?: SeatGate | null }) {
  const { sql, metrics } = deps;
  const gate = deps.gate ?? null;

  async function createHold(input: { showtimeId: number; customerId: string; seats: string[] }) {
    const sorted = [...input.seats].sort();
    const duplicates = sorted.filter((code, index) => index > 0 && sorted[index - 1] === code);
    if (duplicates.length > 0) {
      throw unprocessable('DUPLICATE_SEATS', 'Each seat may be asked for once', { seats: [...new Set(duplicates)] });
    }
    const holdId = randomUUID();
    // The seat gate (when on) answers a taken seat or a customer past the limit from Redis and
    // lets one attempt at a time through to the database, which still decides (gate/seat-gate.ts).
    let pass: GatePass | null = null;
    try {
      pass = gate
        ? await gate.admit({ showtimeId: input.showtimeId, customerId: input.customerId, holdId, seats: sorted })
        : null;
    } catch (refusal) {
      const code = (refusal as { code?: string }).code;
      if (code === 'SEATS_UNAVAILABLE') metrics.holdConflicts.inc();
      else if (typeof code === 'string') metrics.holdRefusals.inc({ code });
      throw refusal;
    }
    for (let attempt = 1; ; attempt++) {
      try {
        metrics.holdDatabaseAttempts.inc();
        const row = await holdSeats(sql, {
          showtimeId: input.showtimeId,
          customerId: input.customerId,
          seatCodes: sorted,
          holdId,
        });
        metrics.holdsCreated.inc();
        metrics.holdSeatsCreated.inc(row.seat_codes.length);
        return { holdId: row.hold_id, expiresAt: row.expires_at.toISOString(), seats: row.seat_codes };
      } catch (error) {
        if (isTransientDatabaseError(error) && attempt < ATTEMPTS) {
          metrics.holdRetries.inc();
          await sleep(5 + Math.random() * 20 * attempt);
          continue;
        }
        const mapped = mapDatabaseError(error) as { code?: string; details?: { seats?: unknown } };
        if (mapped.code === 'SEATS_UNAVAILABLE') metrics.holdConflicts.inc();
        else if (typeof mapped.code === 'string') metrics.holdRefusals.inc({ code: mapped.code });
        if (gate && pass) {
          const refusedSeats = Array.isArray(mapped.details?.seats) ? mapped.details.seats.map(String) : [];
          await gate.refused({
            showtimeId: input.showtimeId,
            holdId,
            seats: sorted,
            pass,
            code: mapped.code,
            refusedSeats,
          });
        }
        throw mapped;
      }
    }
  }

  /**
   * Best available: the database chooses and holds in one statement, skipping seats other
   * buyers are locking (hold_best_seats). The seat gate cannot claim seats nobody has named
   * yet, so it is not asked first; it learns the chosen seats at once, and from the event.
   */
  async function createBestHold(input: {
    showtimeId: number;
    customerId: string;
    count: number;
    together: boolean;
    accessible?: boolean;
    fareClass?: string;
  }) {
    const holdId = randomUUID();
    for (let attempt = 1; ; attempt++) {
      try {
        metrics.holdDatabaseAttempts.inc();
        const row = await holdBestSeats(sql, {
          showtimeId: input.showtimeId,
          customerId: input.customerId,
          count: input.count,
          together: input.together,
          accessible: input.accessible ?? false,
          fareClass: input.fareClass ?? null,
          holdId,
        });
        metrics.holdsCreated.inc();
        metrics.holdSeatsCreated.inc(row.seat_codes.length);
        if (gate)
          await gate.holdCreated(input.showtimeId, {
            holdId,
            customerId: input.customerId,
            seats: row.seat_codes,
            expiresAtMs: row.expires_at.getTime(),
          });
        return { holdId: row.hold_id, expiresAt: row.expires_at.toISOString(), seats: row.seat_codes };
      } catch (error) {
        if (isTransientDatabaseError(error) && attempt < ATTEMPTS) {
          metrics.holdRetries.inc();
          await sleep(5 + Math.random() * 20 * attempt);
          continue;
        }
        const mapped = mapDatabaseError(error) as { code?: string };
        if (mapped.code === 'SEATS_UNAVAILABLE' || mapped.code === 'NO_SEATS_TOGETHER') metrics.holdConflicts.inc();
        else if (typeof mapped.code === 'string') metrics.holdRefusals.inc({ code: mapped.code });
        throw mapped;
      }
    }
  }

  /** A general-admission hold: same retry and error rules as seats (hold_places in SQL). */
  async function createPlacesHold(input: {
    showtimeId: number;
    customerId: string;
    fareClass: string;
    quantity: number;
  }) {
    const holdId = randomUUID();
    for (let attempt = 1; ; attempt++) {
      try {
        const row = await holdPlaces(sql, { ...input, holdId });
        metrics.holdsCreated.inc();
        metrics.holdSeatsCreated.inc(row.quantity);
        return {
          holdId: row.hold_id,
          expiresAt: row.expires_at.toISOString(),
          seats: [] as string[],
          fareClass: row.fare_class,
          quantity: row.quantity,
        };
      } catch (error) {
        if (isTransientDatabaseError(error) && attempt < ATTEMPTS) {
          metrics.holdRetries.inc();
          await sleep(5 + Math.random() * 20 * attempt);
          continue;
        }
        const mapped = mapDatabaseError(error) as { code?: string };
        if (mapped.code === 'PLACES_UNAVAILABLE') metrics.holdConflicts.inc();
        else if (typeof mapped.code === 'string') metrics.holdRefusals.inc({ code: mapped.code });
        throw mapped;
      }
    }
  }

  /**
   * Loads a hold that the token's customer owns, for the showtime the token was issued for (a
   * hold of another showtime is not found under this token: holds are keyed by showtime).
   */
  async function loadOwnHold(holdId: string, access: AccessClaims): Promise<HoldRow> {
    const hold = await findHold(sql, holdId, access.showtimeId);
    if (!hold) throw notFound('HOLD_NOT_FOUND', 'No such hold');
    if (hold.customer_id !== access.customerId || hold.showtime_id !== access.showtimeId) {
      throw forbidden('NOT_YOUR_HOLD', 'This hold belongs to someone else');
    }
    return hold;
  }

  async function getHold(holdId: string, access: AccessClaims): Promise<HoldView> {
    return toView(await loadOwnHold(holdId, access));
  }

  /** Idempotent: cancelling an ended hold is a no-op; a confirmed one cannot be cancelled. */
  async function cancelHold(holdId: string, access: AccessClaims): Promise<void> {
    // Happy path first: one statement ends the buyer's own live hold. Only when it ends
    // nothing do we read the hold to say why (unknown, someone else's, already ended, paid).
    const ended = await endHold(sql, {
      holdId,
      customerId: access.customerId,
      showtimeId: access.showtimeId,
      cause: 'cancelled by customer',
    });
    if (ended) {
      if (gate) await gate.holdEnded(access.showtimeId, holdId, ended.seats);
      return;
    }
    const hold = await loadOwnHold(holdId, access);
    if (hold.status === 'CONFIRMED') {
      throw conflict('HOLD_CONFIRMED', 'This hold has been paid for; ask for a refund instead');
    }
  }

  return { createHold, createPlacesHold, createBestHold, getHold, cancelHold, loadOwnHold };
}

function toView(hold: HoldRow): HoldView {
  const status = hold.status === 'ACTIVE' && !hold.live ? 'EXPIRED' : hold.status;
  return {
    holdId: hold.id,
    showtimeId: hold.showtime_id,
    status,
    seats: hold.seat_codes,
    expiresAt: hold.expires_at.toISOString(),
    createdAt: hold.created_at.toISOString(),
    bookingId: hold.booking_id ?? undefined,
    ...(hold.fare_class ? { fareClass: hold.fare_class, quantity: hold.quantity ?? undefined } : {}),
  };
}

export type HoldService = ReturnType<typeof createHoldService>;
