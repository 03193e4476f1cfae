import { parseSafeJson } from '../../../lib/json-guard';
import { Hono } from 'hono';
import type { Sql } from 'postgres';
import { z } from 'zod';
import { AppError, unauthorized, unprocessable } from '../../../lib/errors';
import { parseWith, requireJsonContentType } from '../../../lib/http';
import { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER, verifyWebhookSignature } from '../../../lib/webhook-signature';
import { traceLogFields } from '../../../lib/trace-context';
import type { RequestContextVariables } from '../http/request-context';
import { settlePayment, type GatewayOutcome } from './settlement';

const webhookSchema = z.object({
  id: z.string().min(1).max(255),
  type: z.string().min(1).max(100),
  created: z.number().int(),
  data: z.object({
    paymentId: z.string().min(1).max(255),
    amount: z.number().int().optional(),
    currency: z.string().length(3).optional(),
    reference: z.string().max(255).optional(),
  }),
});

const OUTCOMES: Record<string, GatewayOutcome> = {
  'payment.succeeded': 'succeeded',
  'payment.failed': 'failed',
  'refund.succeeded': 'refunded',
};

/**
 * POST /payments/callback: the gateway's webhook. The signature is checked on the raw bytes
 * (constant-time, 300 s tolerance, any of the configured secrets during a rotation) before the
 * body is parsed. Every duplicate and every event we have nothing to do for is answered 2xx,
 * so the gateway stops retrying; only "not yet" (unknown payment, busy database) asks for a retry.
 */
export function paymentCallbackRoutes(deps: { sql: Sql; webhookSecrets: string[]; nowMs?: () => number }) {
  const app = new Hono<{ Variables: RequestContextVariables }>();
  const now = deps.nowMs ?? Date.now;

  app.post('/payments/callback', async (c) => {
    const rawBody = await c.req.text();
    const verdict = verifyWebhookSignature(
      rawBody,
      c.req.header(SIGNATURE_HEADER),
      deps.webhookSecrets,
      Math.floor(now() / 1000),
      DEFAULT_TOLERANCE_SECONDS,
    );
    if (!verdict.ok) throw unauthorized('INVALID_SIGNATURE', `Webhook signature refused: ${verdict.reason}`);
    requireJsonContentType(c);
    const parsed = parseSafeJson(rawBody);
    const event = parseWith(webhookSchema, parsed);
    const outcome = OUTCOMES[event.type];
    if (!outcome) return c.json({ received: true, outcome: 'ignored', reason: `unhandled event type ${event.type}` });
    // Money moves only with the amount and currency stated, so they can be checked against
    // the checkout; an event without them is refused, never settled unchecked.
    if (event.data.amount === undefined || event.data.currency === undefined) {
      throw unprocessable('AMOUNT_REQUIRED', `A ${event.type} event must state data.amount and data.currency`);
    }
    try {
      const result = await settlePayment(deps.sql, {
        paymentId: event.data.paymentId,
        outcome,
        eventId: event.id,
        eventType: event.type,
        amountCents: event.data.amount,
        currency: event.data.currency,
        cause: `webhook ${event.type} ${event.id}`,
      });
      // The gateway sends the checkout's traceparent back with its events: this line joins the
      // purchase's trace (the request-context middleware continued it under the core's span).
      const trace = c.get('trace');
      c.get('log')?.info(
        {
          requestId: c.get('requestId'),
          ...(trace ? traceLogFields(trace) : {}),
          eventId: event.id,
          eventType: event.type,
          paymentId: event.data.paymentId,
          outcome: result.kind,
        },
        'payment event settled',
      );
      return c.json({ received: true, outcome: result.kind });
    } catch (error) {
      if (error instanceof AppError) throw error;
      // The gateway retries until acknowledged: a database hiccup must ask for a redelivery.
      c.get('log')?.error({ err: error, eventId: event.id, requestId: c.get('requestId') }, 'payment callback failed');
      throw new AppError('BUSY', 'Could not record the event now; deliver it again', {
        retryAfterSeconds: 2,
        cause: error,
      });
    }
  });

  return app;
}
