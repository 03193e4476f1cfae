import { conflict, notFound, unprocessable } from './gateway-errors';
import type { SandboxConfig } from './config';
import { effectiveFaults, type EffectiveFaults, type EventType, type Faults } from './faults';
import {
  fingerprint,
  newId,
  paymentView,
  refundView,
  type FailureReason,
  type Payment,
  type PaymentView,
  type RefundView,
} from './model';
import type { CreatePaymentInput, RefundInput } from './schemas';
import type { PaymentStore } from './store';
import { continueTrace, parseTraceparent, traceparentOf } from '../../lib/trace-context';
import type { Clock, WebhookDispatcher } from './webhook-dispatcher';

export type PaymentServiceDeps = {
  store: PaymentStore;
  dispatcher: WebhookDispatcher;
  config: SandboxConfig;
  clock: Clock;
  globalFaults: () => Faults;
};

export type Replayable<T> = { status: 200 | 201; body: T; replayed: boolean };

/**
 * The gateway's rules: sessions, decisions, expiry, refunds and the events they send.
 * pending → succeeded | failed | expired; succeeded → refunded. Every decision is idempotent
 * (approving an approved payment is a no-op) and a conflicting one is a 409.
 */
export class PaymentService {
  constructor(private readonly deps: PaymentServiceDeps) {}

  create(
    idempotencyKey: string,
    input: CreatePaymentInput,
    traceparent: string | null = null,
  ): Replayable<PaymentView> {
    const { store, config, clock } = this.deps;
    const print = fingerprint(input);
    const previous = store.getCreateKey(idempotencyKey);
    if (previous) {
      if (previous.fingerprint !== print) {
        throw unprocessable('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request body');
      }
      return { status: 201, body: previous.response as PaymentView, replayed: true };
    }
    const now = clock.now();
    const expiresAtMs = Date.parse(input.expiresAt);
    if (!Number.isFinite(expiresAtMs)) throw unprocessable('VALIDATION_FAILED', 'expiresAt: not a real date');
    if (expiresAtMs <= now) throw unprocessable('EXPIRES_AT_IN_PAST', 'expiresAt must be in the future');
    if (expiresAtMs - now > config.maxSessionTtlMs) {
      throw unprocessable('EXPIRES_AT_TOO_FAR', `expiresAt must be within ${config.maxSessionTtlMs} ms from now`);
    }
    const payment: Payment = {
      id: newId('pay'),
      status: 'pending',
      amount: input.amount,
      currency: input.currency,
      reference: input.reference,
      returnUrl: input.returnUrl,
      metadata: { ...(input.metadata ?? {}) },
      expiresAtMs,
      createdAtMs: now,
      updatedAtMs: now,
      failureReason: null,
      refund: null,
      faults: input.faults ?? null,
      traceparent: parseTraceparent(traceparent) ? traceparent!.trim() : null,
      createKey: idempotencyKey,
      refundKeys: [],
    };
    const body = paymentView(payment, config.publicUrl);
    store.insert(payment, { paymentId: payment.id, fingerprint: print, response: body });
    return { status: 201, body, replayed: false };
  }

  /** A payment by id, expired first if its time is up (lazy expiry: no sweep needed to be right). */
  get(id: string): Payment {
    const payment = this.deps.store.get(id);
    if (!payment) throw notFound('PAYMENT_NOT_FOUND', `No payment ${id}`);
    this.expireIfDue(payment, this.deps.clock.now());
    return payment;
  }

  findByReference(reference: string): Payment[] {
    const now = this.deps.clock.now();
    const found = this.deps.store.findByReference(reference);
    for (const payment of found) this.expireIfDue(payment, now);
    return found;
  }

  /** Every session the sandbox still keeps, oldest first, a page at a time (see PaymentStore.list). */
  list(filter: { status?: string; after?: string; limit: number }): { data: Payment[]; hasMore: boolean } {
    const now = this.deps.clock.now();
    for (const payment of this.deps.store.pending()) this.expireIfDue(payment, now);
    return this.deps.store.list(filter);
  }

  approve(id: string): Payment {
    const payment = this.get(id);
    if (payment.status === 'succeeded' || payment.status === 'refunded') return payment;
    this.assertPending(payment);
    this.transition(payment, 'succeeded', null);
    this.emit(payment, 'payment.succeeded');
    return payment;
  }

  decline(id: string): Payment {
    const payment = this.get(id);
    if (payment.status === 'failed') return payment;
    this.assertPending(payment);
    this.transition(payment, 'failed', 'declined');
    this.emit(payment, 'payment.failed', 'declined');
    return payment;
  }

  /**
   * One refund per payment, ever (all of it unless an amount is given). The same key replays the first answer; another key on
   * an already refunded payment gets that refund back (200) instead of a second one.
   */
  refund(id: string, idempotencyKey: string, input: RefundInput): Replayable<RefundView> {
    const { store, clock } = this.deps;
    const payment = this.get(id);
    const print = fingerprint({ paymentId: id, ...input });
    const previous = store.getRefundKey(idempotencyKey);
    if (previous) {
      if (previous.fingerprint !== print) {
        throw unprocessable('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different refund request');
      }
      return { status: previous.status, body: refundView(payment.refund!), replayed: true };
    }
    // One refund per payment, of all of it or of part (a cancellation under a partial policy).
    if (input.amount !== undefined && input.amount > payment.amount) {
      throw unprocessable('REFUND_EXCEEDS_PAYMENT', `A refund can return at most ${payment.amount}`);
    }
    if (payment.status === 'refunded' && payment.refund) {
      store.putRefundKey(idempotencyKey, { paymentId: id, fingerprint: print, status: 200 });
      return { status: 200, body: refundView(payment.refund), replayed: false };
    }
    if (payment.status !== 'succeeded') {
      throw conflict('PAYMENT_NOT_REFUNDABLE', `A ${payment.status} payment cannot be refunded`, {
        paymentStatus: payment.status,
      });
    }
    payment.refund = {
      id: newId('re'),
      paymentId: id,
      amount: input.amount ?? payment.amount,
      currency: payment.currency,
      createdAtMs: clock.now(),
    };
    this.transition(payment, 'refunded', null);
    store.putRefundKey(idempotencyKey, { paymentId: id, fingerprint: print, status: 201 });
    this.emit(payment, 'refund.succeeded');
    return { status: 201, body: refundView(payment.refund), replayed: false };
  }

  /** The sandbox's clock (the pay page counts down from it). */
  now(): number {
    return this.deps.clock.now();
  }

  setFaults(id: string, faults: Faults): Payment {
    const payment = this.get(id);
    payment.faults = faults;
    return payment;
  }

  faultsFor(payment: Payment | null): EffectiveFaults {
    return effectiveFaults(this.deps.globalFaults(), payment?.faults ?? null);
  }

  /** Expires every pending session whose time is up; returns how many. */
  sweepExpired(): number {
    const now = this.deps.clock.now();
    let expired = 0;
    for (const payment of this.deps.store.pending()) if (this.expireIfDue(payment, now)) expired += 1;
    return expired;
  }

  view(payment: Payment): PaymentView {
    return paymentView(payment, this.deps.config.publicUrl);
  }

  private expireIfDue(payment: Payment, now: number): boolean {
    if (payment.status !== 'pending' || now < payment.expiresAtMs) return false;
    this.transition(payment, 'expired', 'expired');
    this.emit(payment, 'payment.failed', 'expired');
    return true;
  }

  private assertPending(payment: Payment): void {
    if (payment.status === 'pending') return;
    const details = { paymentStatus: payment.status };
    if (payment.status === 'expired') throw conflict('PAYMENT_EXPIRED', 'This payment session has expired', details);
    throw conflict('PAYMENT_NOT_PENDING', `This payment is already ${payment.status}`, details);
  }

  private transition(payment: Payment, status: Payment['status'], reason: FailureReason | null): void {
    payment.status = status;
    if (reason) payment.failureReason = reason;
    payment.updatedAtMs = this.deps.clock.now();
    this.deps.store.statusChanged(payment);
  }

  private emit(payment: Payment, type: EventType, reason?: FailureReason): void {
    const data = {
      paymentId: payment.id,
      amount: payment.amount,
      currency: payment.currency,
      reference: payment.reference,
      reason,
    };
    const event = { id: newId('evt'), type, created: Math.floor(this.deps.clock.now() / 1000), data };
    // The sandbox's own span in the checkout's trace, parent of the merchant's handling.
    const trace = payment.traceparent ? traceparentOf(continueTrace(payment.traceparent)) : null;
    this.deps.dispatcher.emit(event, this.faultsFor(payment), trace);
  }
}
