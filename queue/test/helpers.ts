import type { Refused } from '../src/codes';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Unwraps an `{ ok: true }` decision, failing the test with the refusal otherwise. */
export function ok<T extends { ok: true }>(decision: T | Refused): T {
  if (!decision.ok) throw new Error(`unexpected refusal ${decision.code}: ${decision.message}`);
  return decision;
}

/** Settings that make a room move in milliseconds rather than minutes. */
export const fastRoom = {
  state: 'open',
  capacity: 5,
  admitPerMinute: 60_000,
  admitBurst: 1_000,
  sessionTtlMs: 60_000,
  offerWindowMs: 30_000,
  abandonGraceMs: 30_000,
  tickGapMs: 0,
} as const;

let counter = 0;
export const nextShowtimeId = () => `show-${process.pid}-${++counter}`;
