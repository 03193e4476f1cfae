import { AppError } from '../../../lib/errors';
import { traceparentOf, type TraceContext } from '../../../lib/trace-context';

/** What the core needs from a payment gateway (the sandbox in development and tests). */
export interface GatewayPayment {
  id: string;
  status: 'pending' | 'succeeded' | 'failed' | 'expired' | 'refunded';
  amount: number;
  currency: string;
  reference: string;
  checkoutUrl: string;
  expiresAt: string;
  failureReason?: string | null;
}

export interface GatewayRefund {
  id: string;
  paymentId: string;
  amount: number;
  status: string;
}

export interface PaymentGateway {
  createPayment(
    input: {
      idempotencyKey: string;
      amountCents: number;
      currency: string;
      reference: string;
      expiresAt: Date;
      returnUrl: string;
      metadata?: Record<string, string>;
    },
    options?: { trace?: TraceContext | null },
  ): Promise<GatewayPayment>;
  getPayment(paymentId: string): Promise<GatewayPayment | null>;
  /** A full refund, or `amountCents` of it (a cancellation under a partial refund policy). */
  refund(
    paymentId: string,
    idempotencyKey: string,
    reason: string,
    amountCents?: number | null,
  ): Promise<GatewayRefund>;
}

export const gatewayUnavailable = (cause?: unknown) =>
  new AppError('PAYMENT_GATEWAY_UNAVAILABLE', 'The payment provider is not answering; try again shortly', {
    retryAfterSeconds: 2,
    cause,
  });

/**
 * HTTP client for the gateway's API: bearer key, a timeout on every call, and every failure
 * that is not a definite answer (network error, timeout, 5xx) reported as 503 so callers retry.
 */
export function createGatewayClient(options: {
  baseUrl: string;
  apiKey: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}): PaymentGateway {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 5000;
  const base = options.baseUrl.replace(/\/+$/, '');

  async function call<T>(
    method: string,
    path: string,
    init: { body?: unknown; idempotencyKey?: string; trace?: TraceContext | null } = {},
  ): Promise<{ status: number; json: T }> {
    let response: Response;
    // A call made while serving a request joins its trace, the core's span as the parent; the
    // caller hands the trace over (http/request-context.ts says why not an AsyncLocalStorage).
    const trace = init.trace ?? null;
    try {
      response = await doFetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${options.apiKey}`,
          ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(init.idempotencyKey ? { 'idempotency-key': init.idempotencyKey } : {}),
          ...(trace ? { traceparent: traceparentOf(trace) } : {}),
        },
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw gatewayUnavailable(error);
    }
    if (response.status >= 500) throw gatewayUnavailable(new Error(`gateway answered ${response.status}`));
    const json = (await response.json().catch(() => null)) as T;
    return { status: response.status, json };
  }

  return {
    async createPayment(input, options) {
      const { status, json } = await call<GatewayPayment & { error?: { code: string; message: string } }>(
        'POST',
        '/v1/payments',
        {
          idempotencyKey: input.idempotencyKey,
          trace: options?.trace ?? null,
          body: {
            amount: input.amountCents,
            currency: input.currency,
            reference: input.reference,
            expiresAt: input.expiresAt.toISOString(),
            returnUrl: input.returnUrl,
            metadata: input.metadata,
          },
        },
      );
      if (status !== 201 && status !== 200) {
        throw new AppError(
          'PAYMENT_GATEWAY_REFUSED',
          `The payment provider refused the session: ${json?.error?.message ?? status}`,
        );
      }
      return json;
    },
    async getPayment(paymentId) {
      const { status, json } = await call<GatewayPayment>('GET', `/v1/payments/${encodeURIComponent(paymentId)}`);
      if (status === 404) return null;
      if (status !== 200) throw gatewayUnavailable(new Error(`gateway answered ${status}`));
      return json;
    },
    async refund(paymentId, idempotencyKey, reason, amountCents) {
      const { status, json } = await call<GatewayRefund & { error?: { code: string; message: string } }>(
        'POST',
        `/v1/payments/${encodeURIComponent(paymentId)}/refunds`,
        { idempotencyKey, body: amountCents ? { reason, amount: amountCents } : { reason } },
      );
      if (status !== 201 && status !== 200) {
        throw new AppError('PAYMENT_GATEWAY_REFUSED', `Refund refused: ${json?.error?.code ?? status}`);
      }
      return json;
    },
  };
}
