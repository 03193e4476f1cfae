/**
 * The dual token bucket on purchase routes (per customer and per showtime, both or
 * neither), in one Redis script call. When Redis fails, admitted buyers keep buying: a
 * local bucket pair with the same defaults decides instead (per process, so the shared
 * per-showtime cap becomes per process during the outage; the core still arbitrates seats).
 */
import type { BucketDecision, Refused, TokenSession } from '../../../queue/src/index';
import { DEFAULT_SETTINGS } from '../../../queue/src/index';

export interface PurchaseDecision {
  allowed: boolean;
  /** Refused because the customer's admission session has ended (released, expired). */
  notAdmitted?: boolean;
  retryAfterMs: number;
  source: 'redis' | 'fallback';
}

/** Require a live admission session; with `session`, the very one the access token names. */
export interface PurchaseRules {
  requireAdmission?: boolean;
  session?: TokenSession;
}

export interface PurchaseLimiterOptions {
  take: (showtimeId: string, customerId: string, rules?: PurchaseRules) => Promise<BucketDecision | Refused>;
  now?: () => number;
  onFallback?: (error: unknown) => void;
}

interface LocalBucket {
  tokens: number;
  atMs: number;
}

export function createPurchaseLimiter(options: PurchaseLimiterOptions) {
  const now = options.now ?? Date.now;
  const local = new Map<string, LocalBucket>();

  function level(key: string, capacity: number, ratePerMs: number, at: number): LocalBucket {
    const bucket = local.get(key) ?? { tokens: capacity, atMs: at };
    bucket.tokens = Math.min(capacity, bucket.tokens + Math.max(0, at - bucket.atMs) * ratePerMs);
    bucket.atMs = at;
    if (local.size > 200_000) local.clear(); // a full bucket equals a missing one
    local.set(key, bucket);
    return bucket;
  }

  function takeLocally(showtimeId: string, customerId: string): PurchaseDecision {
    const at = now();
    const customerRate = DEFAULT_SETTINGS.customerRefillPerMinute / 60_000;
    const showRate = DEFAULT_SETTINGS.showtimeRefillPerSecond / 1_000;
    const customer = level(`c:${showtimeId}:${customerId}`, DEFAULT_SETTINGS.customerBucketCapacity, customerRate, at);
    const show = level(`s:${showtimeId}`, DEFAULT_SETTINGS.showtimeBucketCapacity, showRate, at);
    if (customer.tokens >= 1 && show.tokens >= 1) {
      customer.tokens -= 1;
      show.tokens -= 1;
      return { allowed: true, retryAfterMs: 0, source: 'fallback' };
    }
    const waitMs = Math.max(
      customer.tokens >= 1 ? 0 : (1 - customer.tokens) / customerRate,
      show.tokens >= 1 ? 0 : (1 - show.tokens) / showRate,
    );
    return { allowed: false, retryAfterMs: Math.ceil(waitMs), source: 'fallback' };
  }

  return {
    /**
     * With `requireAdmission`, Redis also checks the customer's admission session is live.
     * When Redis is down that check is skipped: the failure policy keeps admitted buyers
     * buying on their stateless access tokens.
     */
    async take(showtimeId: string, customerId: string, rules: PurchaseRules = {}): Promise<PurchaseDecision> {
      try {
        const decision = await options.take(showtimeId, customerId, rules);
        if (!decision.ok && decision.code === 'not_admitted')
          return { allowed: false, notAdmitted: true, retryAfterMs: 0, source: 'redis' };
        // Any other refusal (a bucket that can never hold the cost, ids Redis refused) is a
        // refusal: failing open here would hand out purchases the limits never granted.
        if (!decision.ok) return { allowed: false, retryAfterMs: 1_000, source: 'redis' };
        return { allowed: decision.allowed, retryAfterMs: decision.retryAfterMs, source: 'redis' };
      } catch (error) {
        options.onFallback?.(error);
        return takeLocally(showtimeId, customerId);
      }
    },
  };
}
