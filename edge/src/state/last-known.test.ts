import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../lib/errors';
import { createLastKnown } from './last-known';

/** A load the test ends by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('last known answer', () => {
  let clock = 1_000_000;
  beforeEach(() => {
    vi.useFakeTimers();
    clock = 1_000_000;
  });
  afterEach(() => vi.useRealTimers());
  const known = () => createLastKnown<string>({ budgetMs: 150, now: () => clock });

  it('answers fresh when the load ends within the budget', async () => {
    const cache = known();
    const read = await cache.read('1', async () => 'v1');
    expect(read).toEqual({ value: 'v1', fresh: true, answeredAtMs: clock, staleSinceMs: null, reason: null });
  });

  it('answers the last value after the budget while the load hangs, saying since when; the hung load updates it when it ends', async () => {
    const cache = known();
    await cache.read('1', async () => 'v1');
    const answeredAt = clock;
    clock += 5_000;
    const slow = deferred<string>();
    const read = cache.read('1', () => slow.promise);
    await vi.advanceTimersByTimeAsync(150);
    expect(await read).toEqual({
      value: 'v1',
      fresh: false,
      answeredAtMs: answeredAt,
      staleSinceMs: clock,
      reason: 'slow',
    });

    // Asked again while the first load still hangs: no second load, still stale since the first read.
    const loads = vi.fn(async () => 'never');
    const again = cache.read('1', loads);
    clock += 1_000;
    await vi.advanceTimersByTimeAsync(150);
    expect((await again).staleSinceMs).toBe(clock - 1_000);
    expect(loads).not.toHaveBeenCalled();

    slow.resolve('v2');
    await vi.advanceTimersByTimeAsync(0);
    expect(cache.peek('1')).toMatchObject({ value: 'v2', fresh: true, staleSinceMs: null });
  });

  it('answers null and stale when the dependency never answered in this process', async () => {
    const cache = known();
    const read = cache.read('1', () => new Promise<string>(() => {}));
    await vi.advanceTimersByTimeAsync(150);
    expect(await read).toEqual({ value: null, fresh: false, answeredAtMs: null, staleSinceMs: clock, reason: 'slow' });
  });

  it('answers the last value when the load fails, and passes a 4xx refusal on', async () => {
    const cache = known();
    await cache.read('1', async () => 'v1');
    const failed = await cache.read('1', async () => {
      throw new Error('connection refused');
    });
    expect(failed).toMatchObject({ value: 'v1', fresh: false, reason: 'unavailable' });
    await expect(
      cache.read('2', async () => {
        throw new AppError('SHOWTIME_NOT_FOUND', 'Unknown showtime');
      }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('a view that waits for the load (budget of a minute) does not answer while it hangs: the broken variant', async () => {
    const cache = createLastKnown<string>({ budgetMs: 60_000, now: () => clock });
    await cache.read('1', async () => 'v1');
    let answered = false;
    void cache.read('1', () => new Promise<string>(() => {})).then(() => (answered = true));
    await vi.advanceTimersByTimeAsync(14_000);
    expect(answered).toBe(false);
  });
});
