/**
 * Simulated buyers for the waiting-room benchmarks (bench/eta.ts): each joins, polls when
 * told to, claims its offer at once, keeps its turn for a while and releases it, and records
 * every estimate it was given, on the server's clock. Buyers may also vanish silently (never
 * poll again, no leave) or vanish with a leave beacon. (Underscore prefix: not a benchmark.)
 */
import { estimateForJoin, estimateFromSnapshot, type RoomEngine, type RoomSnapshot } from '../queue/src/index';
import { firstClaimMs } from '../queue/src/settings';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One estimate a buyer heard: when (server clock), the ETA from Redis and from the edge's snapshot. */
export interface Heard {
  atMs: number;
  etaMs: number | null;
  /** From the edge's snapshot: a poll's estimate, or at the join what the edge's join answers (estimateForJoin). */
  snapshotEtaMs: number | null;
  /** The previous estimator (last minute's admissions over the time open), for comparison. */
  oldEtaMs: number | null;
}

export interface BuyerRecord {
  id: string;
  joinedAtMs: number;
  position: number | null;
  heard: Heard[];
  /** When the offer was made (server clock), null if never. */
  offeredAtMs: number | null;
  vanished: boolean;
}

export type Vanish = 'stay' | 'silent' | 'beacon';

export interface BuyerPlan {
  id: string;
  /** How long the turn is kept before releasing it. */
  turnMs: () => number;
  vanish?: Vanish;
}

/** The edge's per-showtime snapshot, refreshed about once a second as the edge does. */
export function snapshotFeed(engine: RoomEngine, showtimeId: string, everyMs = 1_000) {
  let latest: RoomSnapshot | null = null;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const read = await engine.snapshot(showtimeId);
      if (read.ok) latest = read.snapshot;
      await sleep(everyMs);
    }
  })();
  return {
    get: () => latest,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

function oldEstimate(snapshot: RoomSnapshot | null, position: number | null): number | null {
  if (!snapshot || position === null) return null;
  const rate =
    snapshot.rateWindowMs >= 5_000 && snapshot.admitsInWindow > 0
      ? snapshot.admitsInWindow / snapshot.rateWindowMs
      : snapshot.settings.admitPerMinute / 60_000;
  return Math.round(position / rate);
}

/** Runs one buyer to the end of its turn (or until it vanishes); `until` bounds the wait. */
export async function runBuyer(
  engine: RoomEngine,
  showtimeId: string,
  plan: BuyerPlan,
  snapshots: { get(): RoomSnapshot | null },
  untilMs: number,
): Promise<BuyerRecord> {
  const joined = await engine.join(showtimeId, plan.id);
  if (!joined.ok) throw new Error(`join refused: ${joined.code}`);
  const record: BuyerRecord = {
    id: plan.id,
    joinedAtMs: joined.nowMs,
    position: joined.position,
    heard: [],
    offeredAtMs: null,
    vanished: false,
  };
  let standing = joined;
  // An offer lasts the first claim window (then, refused for a full room, the whole window).
  const offerWindowMs = (snap: RoomSnapshot | null) =>
    firstClaimMs({ offerWindowMs: snap?.settings.offerWindowMs ?? 60_000 });
  if (plan.vanish && plan.vanish !== 'stay') {
    record.vanished = true;
    if (plan.vanish === 'beacon') await engine.leave(showtimeId, plan.id);
    return record;
  }
  while (Date.now() < untilMs) {
    if (standing.state === 'offered' || standing.state === 'admitted') {
      record.offeredAtMs =
        standing.offerExpiresAtMs !== null
          ? standing.offerExpiresAtMs - offerWindowMs(snapshots.get())
          : standing.nowMs;
      const claimed = await engine.claim(showtimeId, plan.id);
      if (claimed.ok) {
        await sleep(plan.turnMs());
        await engine.release(showtimeId, plan.id);
      }
      return record;
    }
    if (standing.state === 'waiting' || standing.state === 'paused') {
      const snapshot = snapshots.get();
      const at = { nowMs: standing.nowMs, lastHeartbeatMs: standing.nowMs };
      const atJoin = standing === joined && standing.position !== null;
      const snapshotEta =
        !snapshot || !standing.ticket
          ? null
          : atJoin
            ? estimateForJoin(snapshot, standing.ticket, standing.position!, at)
            : estimateFromSnapshot(snapshot, standing.ticket, at);
      record.heard.push({
        atMs: standing.nowMs,
        etaMs: standing.etaMs,
        snapshotEtaMs: snapshotEta && !snapshotEta.needsRedis ? snapshotEta.etaMs : null,
        oldEtaMs: standing.state === 'waiting' ? oldEstimate(snapshot, standing.position) : null,
      });
    } else if (standing.state !== 'prequeue') {
      return record; // expired, closed: the bench reports it as never offered
    }
    await sleep(standing.pollAfterMs ?? 1_000);
    const polled = await engine.poll(showtimeId, plan.id);
    if (!polled.ok) return record;
    standing = polled;
  }
  return record;
}
