import { SIGNATURE_HEADER, signWebhook } from '../../lib/webhook-signature';
import type { WebhookDeliveryConfig } from './config';
import { backoffMs, Fifo, newRecord, RecordLog, type DeliveryRecord } from './delivery-record';
import { shouldDrop, type EffectiveFaults, type EventType } from './faults';
import type { WebhookEvent } from './model';

export type Clock = { now(): number };
export type Logger = {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
};
export type Scheduler = {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
};

export type DispatcherDeps = {
  url: string;
  secrets: string[];
  config: WebhookDeliveryConfig;
  maxEvents: number;
  fetch: typeof fetch;
  clock: Clock;
  random: () => number;
  logger: Logger;
  scheduler: Scheduler;
};

/** An event on its way: its serialised body is fixed once, so every copy and retry is identical. */
/** traceparent: sent with every copy and retry of the event (the payment's trace, see model.ts). */
type Item = { record: DeliveryRecord; rawBody: string; faults: EffectiveFaults; traceparent: string | null };
type Delivery = { item: Item; attempt: number; failRemaining: number; onFirstAttempt: (() => void) | null };
type Batch = { items: Item[]; timer: unknown };

export type DispatcherStats = {
  emitted: number;
  dropped: number;
  attempts: number;
  delivered: number;
  failedAttempts: number;
  givenUp: number;
  refused: number;
  inFlight: number;
  outstanding: number;
};

/**
 * Delivers signed webhooks at least once, with retries (exponential backoff with jitter) until
 * the merchant answers 2xx or `maxAttempts` is reached, and applies the fault switches: delay,
 * copies, reverse order, drop and failed attempts. Bounded: in-flight deliveries by
 * `concurrency`, waiting ones by `maxPendingDeliveries`, remembered records by `maxEvents`.
 */
export class WebhookDispatcher {
  private readonly log: RecordLog;
  private readonly ready = new Fifo<Delivery>();
  private readonly timers = new Set<unknown>();
  private readonly batches = new Map<string, Batch>();
  private readonly abort = new AbortController();
  private waiters: Array<() => void> = [];
  private inFlight = 0;
  /** Events not yet expanded plus deliveries not yet settled: zero means idle. */
  private outstanding = 0;
  private closed = false;
  private readonly counters = {
    emitted: 0,
    dropped: 0,
    attempts: 0,
    delivered: 0,
    failedAttempts: 0,
    givenUp: 0,
    refused: 0,
  };

  constructor(private readonly deps: DispatcherDeps) {
    this.log = new RecordLog(deps.maxEvents);
  }

  emit(event: WebhookEvent, faults: EffectiveFaults, traceparent: string | null = null): DeliveryRecord {
    const record = newRecord(event);
    this.log.add(record);
    this.counters.emitted += 1;
    if (this.closed) return record;
    if (shouldDrop(faults, event.type)) {
      record.status = 'dropped';
      this.counters.dropped += 1;
      this.deps.logger.info({ eventId: event.id, type: event.type }, 'webhook dropped (fault)');
      return record;
    }
    const item: Item = { record, rawBody: JSON.stringify(event), faults, traceparent };
    this.outstanding += 1;
    if (faults.webhookOrder === 'reverse') this.hold(item);
    else this.release(item, null);
    return record;
  }

  records(filter: { paymentId?: string; type?: EventType; limit?: number } = {}): DeliveryRecord[] {
    return this.log.list({ ...filter, limit: filter.limit ?? 100 });
  }

  stats(): DispatcherStats {
    return { ...this.counters, inFlight: this.inFlight, outstanding: this.outstanding };
  }

  /** Resolves once nothing is buffered, delayed, queued, in flight or waiting to retry. */
  idle(): Promise<void> {
    if (this.outstanding === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Stops everything: timers cleared, in-flight requests aborted, nothing more is sent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    for (const timer of this.timers) this.deps.scheduler.clearTimeout(timer);
    this.timers.clear();
    this.batches.clear();
    this.ready.clear();
    this.outstanding = 0;
    this.wake();
  }

  // Out of order: events wait in a batch (per payment for session faults, else shared) and
  // leave newest first, each one only after the first attempt of the one before it, so the
  // merchant really sees the later event first.
  private hold(item: Item): void {
    const { faults } = item;
    const key = faults.reorderScope === 'payment' ? `payment:${item.record.paymentId}` : 'global';
    let batch = this.batches.get(key);
    if (!batch) {
      const created: Batch = { items: [], timer: null };
      created.timer = this.later(faults.reorderWindowMs, () => this.flush(key, created));
      this.batches.set(key, (batch = created));
    }
    batch.items.push(item);
    if (batch.items.length >= faults.reorderBatchSize) this.flush(key, batch);
  }

  private flush(key: string, batch: Batch): void {
    if (this.batches.get(key) !== batch) return;
    this.batches.delete(key);
    this.cancel(batch.timer);
    const newestFirst = [...batch.items].reverse();
    const next = (): void => {
      const item = newestFirst.shift();
      if (item) this.release(item, next);
    };
    next();
  }

  private release(item: Item, onFirstAttempt: (() => void) | null): void {
    const delay = item.faults.webhookDelayMs;
    if (delay > 0) this.later(delay, () => this.expand(item, onFirstAttempt));
    else this.expand(item, onFirstAttempt);
  }

  private expand(item: Item, onFirstAttempt: (() => void) | null): void {
    const copies = item.faults.webhookCopies;
    const { record } = item;
    this.outstanding -= 1;
    if (this.outstanding + copies > this.deps.config.maxPendingDeliveries) {
      record.status = 'failed';
      record.lastError = 'delivery queue full';
      this.counters.refused += 1;
      this.deps.logger.warn({ eventId: record.eventId }, 'webhook refused: delivery queue full');
      this.wake();
      onFirstAttempt?.();
      return;
    }
    record.copies = copies;
    let firstAttemptsLeft = copies;
    const afterFirst = onFirstAttempt
      ? () => {
          firstAttemptsLeft -= 1;
          if (firstAttemptsLeft === 0) onFirstAttempt();
        }
      : null;
    for (let i = 0; i < copies; i += 1) {
      this.ready.push({ item, attempt: 0, failRemaining: item.faults.webhookFailAttempts, onFirstAttempt: afterFirst });
    }
    this.outstanding += copies;
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.inFlight < this.deps.config.concurrency && this.ready.length > 0) {
      const delivery = this.ready.shift()!;
      this.inFlight += 1;
      void this.attempt(delivery).finally(() => {
        this.inFlight -= 1;
        this.pump();
      });
    }
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const { record, rawBody, traceparent } = delivery.item;
    const { config } = this.deps;
    delivery.attempt += 1;
    record.attempts += 1;
    record.status = 'delivering';
    this.counters.attempts += 1;
    let statusCode: number | null = null;
    let error: string | null = null;
    if (delivery.failRemaining > 0) {
      delivery.failRemaining -= 1;
      error = 'simulated failure (webhookFailAttempts)';
    } else {
      try {
        const response = await this.send(rawBody, traceparent);
        statusCode = response.status;
        if (!response.ok) error = `merchant answered ${response.status}`;
      } catch (caught) {
        error = describeError(caught);
      }
    }
    if (this.closed) return;
    record.lastStatusCode = statusCode;
    record.lastError = error;
    if (delivery.attempt === 1) delivery.onFirstAttempt?.();

    if (error === null) {
      record.deliveredCopies += 1;
      record.deliveredAt = new Date(this.deps.clock.now()).toISOString();
      this.counters.delivered += 1;
      this.settle(record);
      return;
    }
    this.counters.failedAttempts += 1;
    if (delivery.attempt >= config.maxAttempts) {
      record.failedCopies += 1;
      this.counters.givenUp += 1;
      this.deps.logger.warn({ eventId: record.eventId, attempts: delivery.attempt, error }, 'webhook given up');
      this.settle(record);
      return;
    }
    record.status = 'retrying';
    const wait = backoffMs(delivery.attempt, config.baseDelayMs, config.maxDelayMs, this.deps.random);
    this.later(wait, () => {
      this.ready.push(delivery);
      this.pump();
    });
  }

  private async send(rawBody: string, traceparent: string | null): Promise<Response> {
    const { config, secrets, url, clock } = this.deps;
    const timestamp = Math.floor(clock.now() / 1000);
    const response = await this.deps.fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': config.userAgent,
        [SIGNATURE_HEADER]: signWebhook(rawBody, secrets, timestamp),
        ...(traceparent ? { traceparent } : {}),
      },
      body: rawBody,
      redirect: 'manual',
      signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(config.timeoutMs)]),
    });
    // Free the connection: the merchant's answer body is never needed.
    await response.body?.cancel().catch(() => undefined);
    return response;
  }

  private settle(record: DeliveryRecord): void {
    if (record.deliveredCopies + record.failedCopies >= record.copies) {
      record.status = record.failedCopies > 0 ? 'failed' : 'delivered';
    }
    this.outstanding -= 1;
    this.wake();
  }

  private wake(): void {
    if (this.outstanding > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  private later(ms: number, fn: () => void): unknown {
    if (this.closed) return null;
    const handle = this.deps.scheduler.setTimeout(() => {
      this.timers.delete(handle);
      if (!this.closed) fn();
    }, ms);
    this.timers.add(handle);
    return handle;
  }

  private cancel(handle: unknown): void {
    if (handle === null) return;
    this.deps.scheduler.clearTimeout(handle);
    this.timers.delete(handle);
  }
}

/** `fetch failed` says little; the cause (ECONNREFUSED, a timeout) says what happened. */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const detail = cause?.code ?? cause?.message;
  return detail ? `${error.message}: ${String(detail)}` : error.message;
}
