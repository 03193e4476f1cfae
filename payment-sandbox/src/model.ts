import type { EventType, Faults } from './faults';

export type PaymentStatus = 'pending' | 'succeeded' | 'failed' | 'expired' | 'refunded';
export type FailureReason = 'declined' | 'expired';

export type Refund = {
  id: string;
  paymentId: string;
  amount: number;
  currency: string;
  createdAtMs: number;
};

export type Payment = {
  id: string;
  status: PaymentStatus;
  amount: number;
  currency: string;
  reference: string;
  returnUrl: string;
  metadata: Record<string, string>;
  expiresAtMs: number;
  createdAtMs: number;
  updatedAtMs: number;
  failureReason: FailureReason | null;
  refund: Refund | null;
  faults: Faults | null;
  /**
   * The W3C traceparent the checkout was created with (null without one): every webhook about
   * this payment continues that trace, so the merchant's handling joins the purchase's trace.
   */
  traceparent: string | null;
  /** Idempotency keys that point at this payment or its refund; dropped with it on eviction. */
  createKey: string;
  refundKeys: string[];
};

export type WebhookEvent = {
  id: string;
  type: EventType;
  created: number;
  data: { paymentId: string; amount: number; currency: string; reference: string; reason?: string };
};

/** `<prefix>_` + 24 random hex digits, from WebCrypto so it runs anywhere. */
export function newId(prefix: 'pay' | 're' | 'evt'): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `${prefix}_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function checkoutUrl(publicUrl: string, paymentId: string): string {
  return `${publicUrl}/pay/${paymentId}`;
}

export type RefundView = {
  id: string;
  paymentId: string;
  amount: number;
  currency: string;
  status: 'succeeded';
  createdAt: string;
};

export function refundView(refund: Refund): RefundView {
  return {
    id: refund.id,
    paymentId: refund.paymentId,
    amount: refund.amount,
    currency: refund.currency,
    status: 'succeeded',
    createdAt: iso(refund.createdAtMs),
  };
}

/** The payment as the API shows it (create response, query API, test endpoints). */
export function paymentView(payment: Payment, publicUrl: string) {
  return {
    id: payment.id,
    status: payment.status,
    amount: payment.amount,
    currency: payment.currency,
    reference: payment.reference,
    checkoutUrl: checkoutUrl(publicUrl, payment.id),
    expiresAt: iso(payment.expiresAtMs),
    createdAt: iso(payment.createdAtMs),
    updatedAt: iso(payment.updatedAtMs),
    returnUrl: payment.returnUrl,
    metadata: payment.metadata,
    failureReason: payment.failureReason,
    refund: payment.refund ? refundView(payment.refund) : null,
  };
}

export type PaymentView = ReturnType<typeof paymentView>;

/** What the buyer's return URL is told: a refunded payment had succeeded, an expired one failed. */
export function returnStatus(status: PaymentStatus): 'succeeded' | 'failed' | 'pending' {
  if (status === 'succeeded' || status === 'refunded') return 'succeeded';
  if (status === 'failed' || status === 'expired') return 'failed';
  return 'pending';
}

export function returnRedirectUrl(payment: Payment): string {
  const url = new URL(payment.returnUrl);
  url.searchParams.set('paymentId', payment.id);
  url.searchParams.set('status', returnStatus(payment.status));
  return url.toString();
}

/** Canonical JSON (sorted keys) of a validated request: the idempotency fingerprint. */
export function fingerprint(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}
