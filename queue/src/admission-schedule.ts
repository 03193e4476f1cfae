/**
 * The admission step's schedule as the wait estimate models it: when place k in line is let
 * through by the token bucket and the slots (lua/includes/room.lua offerToHead). Pure, with no
 * imports, so estimate.ts and its callers share one model.
 */

/**
 * What the admission step (lua/includes/room.lua offerToHead) works from: tokens in the bucket
 * (refilled to now, capped at the burst, possibly fractional), slots free now, and how fast
 * turns free slots (null: unknown, taken as not binding).
 */
export interface BucketFacts {
  tokens: number;
  freeSlots: number;
  slotRatePerMs: number | null;
}

/**
 * The step offers min(tokens, free slots, window) at once, then one place per token refilled,
 * as slots allow. Each limit lets places through at its own pace: the bucket has `tokens`
 * now and refills at the rate, the slots have `freeSlots` now and free at the slot rate.
 * Place k goes in once every limit has let k through, so its wait is the slowest of them
 * (the window is etaForPositionMs's own term). A burst larger than the free slots is thus
 * told as it happens: a quiet room's first places go as fast as slots turn over, the rest at
 * the rate, and nobody behind them is told to wait for the burst's places at the rate.
 */
export function scheduleWaitMs(position: number, ratePerMs: number, bucket: BucketFacts): number {
  const byBucket = Math.max(0, position - bucket.tokens) / ratePerMs;
  const bySlots = bucket.slotRatePerMs ? Math.max(0, position - bucket.freeSlots) / bucket.slotRatePerMs : 0;
  return Math.max(byBucket, bySlots);
}
