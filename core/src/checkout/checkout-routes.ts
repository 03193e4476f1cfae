import { parseSafeJson } from '../../../lib/json-guard';
import { Hono } from 'hono';
import type { Sql } from 'postgres';
import { z } from 'zod';
import { badRequest } from '../../../lib/errors';
import { parseWith, requireJsonContentType } from '../../../lib/http';
import type { VerifyAccessToken } from '../../../lib/access-token';
import type { AdmissionCheck } from '../http/admission';
import { requireAccessToken, type AccessVariables } from '../http/auth';
import type { RequestContextVariables } from '../http/request-context';
import { uuidParam } from '../http/params';
import type { CheckoutService } from './checkout-service';
import { requestFingerprint, runIdempotently } from './idempotency';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
export const checkoutSchema = z.object({ returnUrl: z.string().max(2000).optional() }).strict();

/** POST /holds/:holdId/checkout, with a required Idempotency-Key scoped to the customer. */
export function checkoutRoutes(deps: {
  sql: Sql;
  checkout: CheckoutService;
  verifyAccessToken: VerifyAccessToken;
  admission?: AdmissionCheck | null;
  /** This process's instance number on the keys it claims (claim-owner.ts). */
  claimOwner?: number | null;
}) {
  const app = new Hono<{ Variables: AccessVariables & Partial<Pick<RequestContextVariables, 'trace'>> }>();

  app.post('/holds/:holdId/checkout', requireAccessToken(deps.verifyAccessToken), async (c) => {
    const holdId = uuidParam(c.req.param('holdId'), 'HOLD_NOT_FOUND', 'hold');
    const key = c.req.header('idempotency-key');
    if (!key)
      throw badRequest(
        'IDEMPOTENCY_KEY_REQUIRED',
        'Send an Idempotency-Key header (a unique string per checkout attempt)',
      );
    if (!IDEMPOTENCY_KEY.test(key))
      throw badRequest('IDEMPOTENCY_KEY_INVALID', 'Idempotency-Key must be 1-255 visible ASCII characters');

    // The body is optional; when present it must be JSON (it is part of what the key protects).
    // Depth, NUL and lone surrogates are refused before any fingerprinting (lib/json-guard.ts).
    const text = await c.req.text();
    if (text.trim() !== '') requireJsonContentType(c);
    const raw: unknown = text.trim() === '' ? {} : parseSafeJson(text);
    // Validated before the key is taken: a refused request stores nothing, so the corrected
    // request may use the same key.
    const body = parseWith(checkoutSchema, raw);
    if (body.returnUrl) deps.checkout.checkReturnUrl(body.returnUrl);
    const access = c.get('access');
    await deps.admission?.(access);
    const result = await runIdempotently(
      deps.sql,
      { customerId: access.customerId, key, fingerprint: requestFingerprint('POST', c.req.path, raw) },
      async () => {
        const { existing, ...session } = await deps.checkout.checkout({
          holdId,
          access,
          idempotencyKey: key,
          trace: c.get('trace') ?? null,
          ...(body.returnUrl ? { returnUrl: body.returnUrl } : {}),
        });
        // 200: the hold's pending session, opened by an earlier checkout (one payable session per hold).
        return { status: existing ? 200 : 201, body: JSON.stringify(session) };
      },
      deps.claimOwner ?? null,
    );
    if (result.replayed) c.header('Idempotent-Replayed', 'true');
    c.header('Content-Type', 'application/json');
    return c.body(result.body, result.status as 200 | 201);
  });

  return app;
}
