/**
 * How the opening rehearsal (bench/opening.ts) judges what its buyers were told: the error of
 * the waits told, and admission-order inversions. (Underscore prefix: not a benchmark of its own.)
 */
import type { OpeningBuyer } from './_opening-buyer';

/** Relative errors are taken against at least this much wait (a 0.3 s wait told 0.6 s is not a 100 % miss). */
const FLOOR_MS = 2_000;
export const median = (values: number[]) => percentile(values, 0.5);
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}
const relError = (toldMs: number, actualMs: number) => Math.abs(toldMs - actualMs) / Math.max(actualMs, FLOOR_MS);
export const pct = (value: number | null) => (value === null ? 'n/a' : `${Math.round(value * 100)}`);

/**
 * Polls may be answered from the edge's snapshot of the room, up to this old (SNAPSHOT_TTL_MS):
 * a "waiting" told within it of a later ticket's admission may predate the buyer's own offer.
 */
const SNAPSHOT_MS = 1_000;
/** How recently a buyer must have polled to be offered its turn rather than parked (queue/lua/includes/room.lua FRESH_MS). */
const FRESH_MS = 4_000;

/**
 * Inversions: a buyer told "waiting" (more than a snapshot's age) after someone with a later ticket had been let in, while it
 * had polled within FRESH_MS of that admission (so it could not have been parked as a walk-away).
 * Passed over while not fresh is the parking rule at work, counted apart.
 */
export function inversions(
  buyers: OpeningBuyer[],
  ticketOf: Map<number, number>,
): { inverted: number; passedOver: number } {
  const admitted = buyers
    .filter((b) => b.admittedAtMs !== null && ticketOf.has(b.id))
    .sort((a, b) => a.admittedAtMs! - b.admittedAtMs!);
  let inverted = 0;
  let passedOver = 0;
  for (const waiter of buyers) {
    const ticket = ticketOf.get(waiter.id);
    if (ticket === undefined || waiter.lastWaitingAtMs === null) continue;
    const jumped = admitted.find(
      (other) => other.admittedAtMs! + SNAPSHOT_MS < waiter.lastWaitingAtMs! && ticketOf.get(other.id)! > ticket,
    );
    if (!jumped) continue;
    const at = jumped.admittedAtMs!;
    const fresh = waiter.told.some((t) => t.state === 'waiting' && t.atMs <= at && t.atMs >= at - FRESH_MS);
    if (fresh) inverted++;
    else passedOver++;
    if (process.env.REHEARSAL_DEBUG)
      console.log(
        `${fresh ? 'inversion' : 'passed over'}: buyer ${waiter.id} ticket ${ticket} (${waiter.choice}, ${waiter.outcome}) told waiting at ${waiter.lastWaitingAtMs}; buyer ${jumped.id} ticket ${ticketOf.get(jumped.id)} admitted at ${at}`,
        JSON.stringify(waiter.told.slice(-8)),
        `its own last answers: ${JSON.stringify(jumped.told.slice(-3))}`,
      );
  }
  return { inverted, passedOver };
}

export function waitErrors(buyers: OpeningBuyer[]) {
  const join: number[] = [];
  const half: number[] = [];
  for (const buyer of buyers) {
    if (buyer.admittedAtMs === null) continue;
    const heard = buyer.told.filter((t) => t.state === 'waiting' && t.etaMs !== null);
    const first = heard[0];
    if (!first) continue; // admitted at once: told no wait
    join.push(relError(first.etaMs!, buyer.admittedAtMs - first.atMs));
    const midMs = (first.atMs + buyer.admittedAtMs) / 2;
    const middle = heard.reduce((best, t) => (Math.abs(t.atMs - midMs) < Math.abs(best.atMs - midMs) ? t : best));
    if (middle !== first) half.push(relError(middle.etaMs!, buyer.admittedAtMs - middle.atMs));
  }
  return { join, half };
}
