import type { EventType } from './faults';
import type { WebhookEvent } from './model';

export type DeliveryStatus = 'pending' | 'delivering' | 'retrying' | 'delivered' | 'failed' | 'dropped';

/** What the sandbox remembers about one event's deliveries (shown by `GET /v1/events`). */
export type DeliveryRecord = {
  eventId: string;
  type: EventType;
  paymentId: string;
  status: DeliveryStatus;
  copies: number;
  deliveredCopies: number;
  failedCopies: number;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  event: WebhookEvent;
};

export function newRecord(event: WebhookEvent): DeliveryRecord {
  return {
    eventId: event.id,
    type: event.type,
    paymentId: event.data.paymentId,
    status: 'pending',
    copies: 0,
    deliveredCopies: 0,
    failedCopies: 0,
    attempts: 0,
    lastStatusCode: null,
    lastError: null,
    deliveredAt: null,
    event,
  };
}

/** Insertion-ordered and bounded: the oldest record goes first (its deliveries carry on). */
export class RecordLog {
  private readonly records = new Map<string, DeliveryRecord>();

  constructor(private readonly max: number) {}

  add(record: DeliveryRecord): void {
    while (this.records.size >= this.max) {
      const oldest = this.records.keys().next();
      if (oldest.done) break;
      this.records.delete(oldest.value);
    }
    this.records.set(record.eventId, record);
  }

  get(eventId: string): DeliveryRecord | undefined {
    return this.records.get(eventId);
  }

  /** Newest first. */
  list(filter: { paymentId?: string; type?: EventType; limit: number }): DeliveryRecord[] {
    const out: DeliveryRecord[] = [];
    const all = [...this.records.values()];
    for (let i = all.length - 1; i >= 0 && out.length < filter.limit; i -= 1) {
      const r = all[i]!;
      if (filter.paymentId !== undefined && r.paymentId !== filter.paymentId) continue;
      if (filter.type !== undefined && r.type !== filter.type) continue;
      out.push(r);
    }
    return out;
  }
}

/** A FIFO with O(1) shift, compacted now and then (a plain array's shift is O(n)). */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

/** Exponential backoff with "equal jitter": half fixed, half random, so it still grows. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random: () => number): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp / 2 + random() * (exp / 2));
}
