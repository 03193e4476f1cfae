/**
 * Warnings before a deadline (the end of a turn, the end of a hold): each threshold fires
 * once, as the time left crosses it, so a screen reader hears "2 minutes left" once, not
 * every second.
 */
import { t } from '../core/i18n';

export const WARN_AT_MS = [120_000, 60_000] as const;

export function createDeadlineWarnings(thresholdsMs: readonly number[] = WARN_AT_MS) {
  const fired = new Set<number>();
  return {
    /** The threshold just crossed (or null): call on every countdown tick. */
    check(leftMs: number): number | null {
      let due: number | null = null;
      for (const threshold of thresholdsMs) {
        if (leftMs <= threshold && !fired.has(threshold)) {
          fired.add(threshold);
          // Opening the page with 50 s left warns about the nearest threshold only.
          if (due === null || threshold < due) due = threshold;
        }
      }
      return leftMs > 0 ? due : null;
    },
    reset() {
      fired.clear();
    },
  };
}

export const minutesLeftWords = (thresholdMs: number) =>
  t('minutes.left', { n: Math.max(1, Math.round(thresholdMs / 60_000)) });

/**
 * The core ends a payment session at 8/10 of the hold's life (core/src/checkout/
 * checkout-service.ts, PAYMENT_SHARE_OF_HOLD), so the honest "time left to pay" on the hold
 * step is that point, not the hold's own end: the payment page then shows the same clock.
 */
export const PAYMENT_SHARE_OF_HOLD = 0.8;

export function paymentDeadlineMs(heldAtMs: number, holdExpiresAtMs: number): number {
  return heldAtMs + Math.floor((holdExpiresAtMs - heldAtMs) * PAYMENT_SHARE_OF_HOLD);
}
