import type { Payment } from './model';

export type CreateKeyRecord = { paymentId: string; fingerprint: string; response: unknown };
const MAX_REFUND_KEYS = 50;

export type RefundKeyRecord = { paymentId: string; fingerprint: string; status: 200 | 201 };

/**
 * Everything the sandbox knows, in memory (it is a sandbox). Bounded: past `maxPayments` the
 * oldest session goes, together with its idempotency keys and reference index entry, so a
 * load test cannot exhaust memory. A Map iterates in insertion order, which is age order.
 */
export class PaymentStore {
  private readonly payments = new Map<string, Payment>();
  private readonly byReference = new Map<string, Set<string>>();
  private readonly pendingIds = new Set<string>();
  private readonly createKeys = new Map<string, CreateKeyRecord>();
  private readonly refundKeys = new Map<string, RefundKeyRecord>();
  evicted = 0;

  constructor(private readonly maxPayments: number) {}

  get size(): number {
    return this.payments.size;
  }

  get(id: string): Payment | undefined {
    return this.payments.get(id);
  }

  insert(payment: Payment, createKey: CreateKeyRecord): void {
    while (this.payments.size >= this.maxPayments) this.evictOldest();
    this.payments.set(payment.id, payment);
    this.createKeys.set(payment.createKey, createKey);
    let ids = this.byReference.get(payment.reference);
    if (!ids) this.byReference.set(payment.reference, (ids = new Set()));
    ids.add(payment.id);
    if (payment.status === 'pending') this.pendingIds.add(payment.id);
  }

  /** Call after every status change so the expiry sweep only walks pending sessions. */
  statusChanged(payment: Payment): void {
    if (payment.status === 'pending') this.pendingIds.add(payment.id);
    else this.pendingIds.delete(payment.id);
  }

  findByReference(reference: string): Payment[] {
    const ids = this.byReference.get(reference);
    if (!ids) return [];
    return [...ids].map((id) => this.payments.get(id)).filter((p): p is Payment => p !== undefined);
  }

  /** Sessions oldest first, after the one with id `after` (a cursor), at most `limit`. */
  list(filter: { status?: string; after?: string; limit: number }): { data: Payment[]; hasMore: boolean } {
    const data: Payment[] = [];
    let started = filter.after === undefined;
    for (const payment of this.payments.values()) {
      if (!started) {
        started = payment.id === filter.after;
        continue;
      }
      if (filter.status && payment.status !== filter.status) continue;
      if (data.length === filter.limit) return { data, hasMore: true };
      data.push(payment);
    }
    return { data, hasMore: false };
  }

  pending(): Payment[] {
    return [...this.pendingIds].map((id) => this.payments.get(id)).filter((p): p is Payment => p !== undefined);
  }

  getCreateKey(key: string): CreateKeyRecord | undefined {
    return this.createKeys.get(key);
  }

  getRefundKey(key: string): RefundKeyRecord | undefined {
    return this.refundKeys.get(key);
  }

  /** At most `MAX_REFUND_KEYS` per payment, so replaying with fresh keys cannot grow memory. */
  putRefundKey(key: string, record: RefundKeyRecord): void {
    const payment = this.payments.get(record.paymentId);
    if (!payment || payment.refundKeys.length >= MAX_REFUND_KEYS) return;
    this.refundKeys.set(key, record);
    payment.refundKeys.push(key);
  }

  private evictOldest(): void {
    const oldest = this.payments.values().next();
    if (oldest.done) return;
    const payment = oldest.value;
    this.payments.delete(payment.id);
    this.pendingIds.delete(payment.id);
    if (this.createKeys.get(payment.createKey)?.paymentId === payment.id) this.createKeys.delete(payment.createKey);
    for (const key of payment.refundKeys) this.refundKeys.delete(key);
    const ids = this.byReference.get(payment.reference);
    ids?.delete(payment.id);
    if (ids && ids.size === 0) this.byReference.delete(payment.reference);
    this.evicted += 1;
  }
}
