import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../lib/errors';
import { createCoreBulkhead, type BulkheadSlot, type CoreBulkheadOptions } from './core-bulkhead';

const gone = () => new AppError('CLIENT_CLOSED_REQUEST', 'gone');

function bulkhead(overrides: Partial<CoreBulkheadOptions> = {}) {
  let clock = 0;
  const shed: string[] = [];
  const made = createCoreBulkhead({
    maxInFlight: 2,
    maxWaitMs: 1_000,
    perCallerInFlight: 0,
    initialLatencyMs: 10,
    retryAfterSeconds: 2,
    onShed: (reason) => shed.push(reason),
    now: () => clock,
    ...overrides,
  });
  return { made, shed, advance: (ms: number) => (clock += ms) };
}

const statusOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'granted',
    (error: AppError) => `${error.status} ${error.code}`,
  );

describe('core bulkhead', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('queues the call beyond the slots and hands freed slots on first come, first served', async () => {
    const { made } = bulkhead();
    const first = await made.acquire(null, undefined, gone);
    await made.acquire(null, undefined, gone);
    const order: string[] = [];
    const third = made.acquire(null, undefined, gone).then((slot) => (order.push('third'), slot));
    const fourth = made.acquire(null, undefined, gone).then((slot) => (order.push('fourth'), slot));
    expect(made.waiting()).toBe(2);
    first.release();
    (await third).release();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
    expect(made.inFlight()).toBe(2);
    expect(made.waiting()).toBe(0);
  });

  it("refuses at once (503 BUSY) when the wait the core's latency predicts is longer than the bound", async () => {
    const { made, shed, advance } = bulkhead({ maxWaitMs: 100 });
    // Teach it a slow core: calls of 400 ms.
    for (let i = 0; i < 40; i++) {
      const slot = await made.acquire(null, undefined, gone);
      advance(400);
      slot.release();
    }
    expect(made.latencyMs()).toBeGreaterThan(300);
    await made.acquire(null, undefined, gone);
    await made.acquire(null, undefined, gone);
    expect(await statusOf(made.acquire(null, undefined, gone))).toBe('503 BUSY');
    expect(shed).toEqual(['core_bulkhead']);
  });

  it('refuses at once while the calls in flight have been running far longer than calls used to (a stalled core)', async () => {
    const { made, shed, advance } = bulkhead({ maxInFlight: 2, maxWaitMs: 1_000 });
    await made.acquire(null, undefined, gone);
    await made.acquire(null, undefined, gone);
    advance(5_000);
    expect(await statusOf(made.acquire(null, undefined, gone))).toBe('503 BUSY');
    expect(shed).toEqual(['core_bulkhead']);
  });

  it('lets the same call wait when the core is quick', async () => {
    const { made } = bulkhead({ maxWaitMs: 100 });
    const slot = await made.acquire(null, undefined, gone);
    await made.acquire(null, undefined, gone);
    const waiting = made.acquire(null, undefined, gone);
    slot.release();
    expect(await statusOf(waiting)).toBe('granted');
  });

  it('gives up on a waiter after the bound (503 BUSY) and skips it when a slot frees', async () => {
    const { made, shed } = bulkhead({ maxWaitMs: 500 });
    const slot = await made.acquire(null, undefined, gone);
    await made.acquire(null, undefined, gone);
    const late = statusOf(made.acquire(null, undefined, gone));
    vi.advanceTimersByTime(501);
    expect(await late).toBe('503 BUSY');
    expect(shed).toEqual(['core_queue_timeout']);
    const next = made.acquire(null, undefined, gone);
    slot.release();
    expect(await statusOf(next)).toBe('granted');
    expect(made.inFlight()).toBe(2);
  });

  it("drops a waiter whose client has gone, with the caller's error", async () => {
    const { made } = bulkhead();
    const slot = await made.acquire(null, undefined, gone);
    await made.acquire(null, undefined, gone);
    const controller = new AbortController();
    const left = statusOf(made.acquire('a', controller.signal, gone));
    const stays = made.acquire(null, undefined, gone);
    controller.abort();
    expect(await left).toBe('499 CLIENT_CLOSED_REQUEST');
    slot.release();
    expect(await statusOf(stays)).toBe('granted');
  });

  it("bounds one caller's calls (running and waiting) with 429, and nobody else's", async () => {
    const { made, shed } = bulkhead({ maxInFlight: 2, perCallerInFlight: 3 });
    const calls = Array.from({ length: 5 }, () => statusOf(made.acquire('greedy', undefined, gone)));
    const other = made.acquire('patient', undefined, gone);
    expect(made.waiting()).toBe(2);
    expect(await calls[3]).toBe('429 RATE_LIMITED');
    expect(await calls[4]).toBe('429 RATE_LIMITED');
    expect(shed).toEqual(['caller_in_flight', 'caller_in_flight']);
    vi.advanceTimersByTime(2_000);
    await Promise.all(calls);
    // 'patient' waited its turn behind greedy's one queued call and was refused only by the clock.
    expect(await statusOf(other)).toBe('503 BUSY');
  });

  it('gives a caller its allowance back as its calls end', async () => {
    const { made } = bulkhead({ maxInFlight: 10, perCallerInFlight: 1 });
    const slot = await made.acquire('a', undefined, gone);
    expect(await statusOf(made.acquire('a', undefined, gone))).toBe('429 RATE_LIMITED');
    slot.release();
    slot.release(); // a second release changes nothing
    expect(made.inFlight()).toBe(0);
    expect(await statusOf(made.acquire('a', undefined, gone))).toBe('granted');
  });

  it('the old bulkhead (no wait) refuses the call a queue would have served: the broken variant', async () => {
    const { made } = bulkhead({ maxWaitMs: 0 });
    const slots: BulkheadSlot[] = [
      await made.acquire(null, undefined, gone),
      await made.acquire(null, undefined, gone),
    ];
    const refused = statusOf(made.acquire(null, undefined, gone));
    slots[0]?.release();
    expect(await refused).toBe('503 BUSY');
  });
});
