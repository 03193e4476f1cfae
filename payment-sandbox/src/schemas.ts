import type { Context } from 'hono';
import { z } from 'zod';
import { AppError } from '../../lib/errors';
import { badRequest } from './gateway-errors';
import { parseWith } from '../../lib/http';
import { parseSafeJson } from '../../lib/json-guard';
import { faultsSchema } from './faults';

/** The largest amount accepted, in minor units: far above any ticket, well inside 2^53. */
export const MAX_AMOUNT = 100_000_000_000;

export const createPaymentSchema = z.object({
  amount: z.number().int().positive().max(MAX_AMOUNT),
  // ISO 4217 alphabetic codes; lower case is accepted (Stripe style) and normalised.
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'expected a 3-letter ISO 4217 code')
    .transform((code) => code.toUpperCase()),
  reference: z.string().min(1).max(255),
  expiresAt: z.iso.datetime({ offset: true }),
  returnUrl: z.url({ protocol: /^https?$/ }).max(2048),
  metadata: z
    .record(z.string().min(1).max(40), z.string().max(500))
    .refine((m) => Object.keys(m).length <= 50, 'at most 50 metadata keys')
    .optional(),
  faults: faultsSchema.optional(),
});
export type CreatePaymentInput = z.infer<typeof createPaymentSchema>;

export const refundSchema = z.object({
  /** Optional: part of the payment (at most all of it); all of it when absent. */
  amount: z.number().int().positive().max(MAX_AMOUNT).optional(),
  reason: z.string().max(200).optional(),
});
export type RefundInput = z.infer<typeof refundSchema>;

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** `Idempotency-Key`: required on creates and refunds, 1-255 visible ASCII characters. */
export function requireIdempotencyKey(c: Context): string {
  const key = c.req.header('idempotency-key');
  if (key === undefined || key === '') {
    throw badRequest('IDEMPOTENCY_KEY_REQUIRED', 'Send an Idempotency-Key header');
  }
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw badRequest('IDEMPOTENCY_KEY_INVALID', 'Idempotency-Key must be 1-255 visible ASCII characters');
  }
  return key;
}

/**
 * Like readJsonBody, but an empty body counts as `{}` (a refund needs no body). A body that is
 * there must be JSON: 415 for another media type, 400 when it does not parse, 422 when wrong.
 */
export async function readOptionalJsonBody<T>(c: Context, schema: z.ZodType<T>): Promise<T> {
  const text = await c.req.text();
  if (text.trim() === '') return parseWith(schema, {});
  const contentType = c.req.header('content-type') ?? '';
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType)) {
    throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json');
  }
  return parseWith(schema, parseSafeJson(text));
}
