import { z } from 'zod';
import { SEAT_CODE } from '../seats/hold-service';

export const MAX_SEATS_PER_HALL = 2000;

export const venueSchema = z.object({
  name: z.string().trim().min(1).max(200),
  city: z.string().trim().max(200).default(''),
});

const seatSchema = z.object({
  code: z.string().regex(SEAT_CODE, 'expected a seat code such as "F5"'),
  row: z.number().int().min(1).max(200),
  rowLabel: z.string().min(1).max(4),
  column: z.number().int().min(1).max(200),
  label: z.string().min(1).max(32).optional(),
  type: z.enum(['standard', 'couple', 'accessible']).default('standard'),
  /** The fare class the seat is sold in (its price and quota per showtime). */
  fareClass: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{0,15}$/, 'expected a class code such as "STALLS"')
    .default('STANDARD'),
});

export const hallSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    seats: z.array(seatSchema).min(1).max(MAX_SEATS_PER_HALL),
    /** Best available aims at this row (docs/best-available.md); absent: two thirds of the way back. */
    idealRow: z.number().int().min(1).max(200).optional(),
  })
  .superRefine((hall, ctx) => {
    const codes = new Set<string>();
    const places = new Set<string>();
    hall.seats.forEach((seat, index) => {
      if (codes.has(seat.code))
        ctx.addIssue({ code: 'custom', path: ['seats', index, 'code'], message: `duplicate seat code ${seat.code}` });
      const place = `${seat.row}/${seat.column}`;
      if (places.has(place))
        ctx.addIssue({
          code: 'custom',
          path: ['seats', index],
          message: `two seats at row ${seat.row}, column ${seat.column}`,
        });
      codes.add(seat.code);
      places.add(place);
    });
  });

const instant = z.iso.datetime({ offset: true }).transform((value) => new Date(value));
const saleState = z.enum(['OPEN', 'PAUSED', 'CLOSED', 'SOLD_OUT']);
const showtimeFields = {
  title: z.string().trim().min(1).max(200),
  startsAt: instant,
  opensAt: instant,
  saleState,
  priceCents: z.number().int().min(0).max(10_000_000),
  currency: z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as "EUR"'),
  maxSeatsPerCustomer: z.number().int().min(1).max(50),
  holdTtlMs: z.number().int().min(1000).max(3_600_000),
  /** Best available aims at this row, over the hall's (docs/best-available.md); null: the hall's again. */
  idealRow: z.number().int().min(1).max(200).nullable(),
};

export const newShowtimeSchema = z
  .object({
    hallId: z.number().int().positive(),
    title: showtimeFields.title,
    startsAt: showtimeFields.startsAt,
    opensAt: showtimeFields.opensAt.optional(),
    saleState: saleState.default('OPEN'),
    priceCents: showtimeFields.priceCents,
    currency: showtimeFields.currency.default('EUR'),
    maxSeatsPerCustomer: showtimeFields.maxSeatsPerCustomer.default(8),
    holdTtlMs: showtimeFields.holdTtlMs.default(600_000),
    idealRow: showtimeFields.idealRow.optional(),
  })
  .transform((value) => ({ ...value, opensAt: value.opensAt ?? new Date() }))
  .refine((value) => value.opensAt < value.startsAt, { message: 'opensAt must be before startsAt', path: ['opensAt'] });

export const showtimeChangesSchema = z
  .object({
    title: showtimeFields.title,
    startsAt: showtimeFields.startsAt,
    opensAt: showtimeFields.opensAt,
    saleState: showtimeFields.saleState,
    priceCents: showtimeFields.priceCents,
    maxSeatsPerCustomer: showtimeFields.maxSeatsPerCustomer,
    holdTtlMs: showtimeFields.holdTtlMs,
    idealRow: showtimeFields.idealRow,
  })
  .partial()
  .refine((value) => Object.keys(value).length > 0, { message: 'change at least one field' });
