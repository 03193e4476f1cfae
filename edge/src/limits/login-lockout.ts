/**
 * Lockout per client address after repeated wrong admin tokens, for the console sign-in and
 * the admin API alike, counted in the shared guard store so every edge process agrees. Only
 * wrong tokens count; `attempts` wrong tokens are judged per window, and after them the
 * address is refused for the rest of the window even with the right token, so guessing costs
 * a window per few tries. While the shared store is down, an in-process count stands in (an
 * insurance limiter), so operators keep their API and /metrics during a Redis outage and
 * guessing is still limited per process.
 *
 * The decision on a wrong token is taken from the count its own INCR returned (one atomic
 * step in Redis, one synchronous step in memory), never from a count read earlier: with a
 * read-then-count, every guess sent in the same instant read the same "not locked yet", and
 * 19 of 20 concurrent guesses were judged instead of 10.
 */
import { AppError } from '../../../lib/errors';
import { createMemoryGuardStore, type GuardStore } from '../state/guard-store';

export const ADMIN_LOCKOUT_WINDOW_MS = 10 * 60_000;

export function createLoginLockout(options: { store: GuardStore; attempts: number; windowMs?: number }) {
  const windowMs = options.windowMs ?? ADMIN_LOCKOUT_WINDOW_MS;
  const key = (address: string) => `admin-fail:${address}`;
  const insurance = createMemoryGuardStore({ maxKeys: 10_000 });
  const withInsurance = <T>(run: (store: GuardStore) => Promise<T>) => run(options.store).catch(() => run(insurance));
  const lockedOut = () =>
    new AppError('LOCKED_OUT', 'Too many wrong admin tokens from this address; try again later', {
      retryAfterSeconds: Math.ceil(windowMs / 1000),
    });
  return {
    attempts: options.attempts,
    windowMs,
    lockedOut,
    /** True once the address has spent its `attempts` wrong tokens in this window. */
    async isLocked(address: string): Promise<boolean> {
      return (await withInsurance((store) => store.count(key(address)))) >= options.attempts;
    },
    /**
     * Counts one wrong token and decides on that count: within the allowance the caller
     * answers "wrong token"; past it this throws LOCKED_OUT (429 with Retry-After), however
     * many guesses passed isLocked together.
     */
    async recordFailure(address: string): Promise<void> {
      const count = await withInsurance((store) => store.hit(key(address), windowMs));
      if (count > options.attempts) throw lockedOut();
    },
  };
}

export type LoginLockout = ReturnType<typeof createLoginLockout>;
