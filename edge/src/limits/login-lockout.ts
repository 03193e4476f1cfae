/**
 * Lockout per client address after repeated wrong admin tokens, for the console sign-in and
 * the admin API alike, counted in the shared guard store so every edge process agrees. Only
 * wrong tokens count; an address past the limit is refused for the rest of the window even
 * with the right token, so guessing costs a window per few tries. While the shared store is
 * down, an in-process count stands in (an insurance limiter), so operators keep their API and
 * /metrics during a Redis outage and guessing is still limited per process.
 */
import { createMemoryGuardStore, type GuardStore } from '../state/guard-store';

export const ADMIN_LOCKOUT_WINDOW_MS = 10 * 60_000;

export function createLoginLockout(options: { store: GuardStore; attempts: number; windowMs?: number }) {
  const windowMs = options.windowMs ?? ADMIN_LOCKOUT_WINDOW_MS;
  const key = (address: string) => `admin-fail:${address}`;
  const insurance = createMemoryGuardStore({ maxKeys: 10_000 });
  const withInsurance = <T>(run: (store: GuardStore) => Promise<T>) => run(options.store).catch(() => run(insurance));
  return {
    attempts: options.attempts,
    windowMs,
    /** `attempts` wrong tokens are allowed in a window; past them the address waits it out. */
    async isLocked(address: string): Promise<boolean> {
      return (await withInsurance((store) => store.count(key(address)))) > options.attempts;
    },
    /** Counts one wrong token (the answer to it is still "wrong token"; the next is refused). */
    async recordFailure(address: string): Promise<void> {
      await withInsurance((store) => store.hit(key(address), windowMs));
    },
  };
}

export type LoginLockout = ReturnType<typeof createLoginLockout>;
