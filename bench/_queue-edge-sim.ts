/**
 * A small discrete-time model of the edge answering polls from a per-showtime snapshot:
 * every buyer polls when `pollAfterMs` says; a poll goes to Redis only when
 * `estimateFromSnapshot` says `needsRedis`. The head advances at the configured rate.
 * (Underscore prefix: bench/run.ts does not list this helper as a benchmark.)
 */
import { estimateFromSnapshot, NOTHING_LEARNED, pollAfterWaitingMs, type RoomSnapshot } from '../queue/src/estimate';

export interface EdgeSimulation {
  durationMs: number;
  edgeInstances: number;
  snapshotTtlMs: number;
  polls: number;
  redisPolls: number;
  snapshotReads: number;
  commandsPerPoll: number;
}

export function simulateEdgePolling(
  start: RoomSnapshot,
  buyers: number,
  { durationMs = 180_000, edgeInstances = 4, snapshotTtlMs = 1_000, stepMs = 100 } = {},
): EdgeSimulation {
  const ratePerMs = start.settings.admitPerMinute / 60_000;
  const graceMs = start.settings.abandonGraceMs;
  const head0 = start.headTicket;
  const tickets = Array.from({ length: buyers }, (_, i) => head0 + i);
  const nextPollAt = tickets.map(() => Math.random() * 30_000);
  // Unknown heartbeats: a buyer's first poll near the front goes to Redis.
  const lastBeat = tickets.map(() => Number.NEGATIVE_INFINITY);
  const done = tickets.map(() => false);
  let polls = 0;
  let redisPolls = 0;
  for (let t = 0; t < durationMs; t += stepMs) {
    const advanced = Math.floor(ratePerMs * t);
    const snapshot: RoomSnapshot = {
      ...start,
      takenAtMs: t,
      headTicket: head0 + advanced,
      lineLength: Math.max(0, buyers - advanced),
      tailTicket: head0 + buyers - 1,
      admitsInWindow: start.settings.admitPerMinute,
      rateWindowMs: 60_000,
      learning: { ...NOTHING_LEARNED, busyMs: 60_000, busyAdmits: start.settings.admitPerMinute },
      headStart: 0,
    };
    for (let i = 0; i < buyers; i++) {
      if (done[i] || nextPollAt[i]! > t) continue;
      polls++;
      const estimate = estimateFromSnapshot(snapshot, tickets[i]!, { nowMs: t, lastHeartbeatMs: lastBeat[i]! });
      if (!estimate.needsRedis) {
        nextPollAt[i] = t + estimate.pollAfterMs!;
        continue;
      }
      redisPolls++;
      lastBeat[i] = t;
      if (tickets[i]! < snapshot.headTicket) {
        done[i] = true; // offered: the page claims and leaves the waiting room
        continue;
      }
      const position = tickets[i]! - snapshot.headTicket + 1;
      nextPollAt[i] = t + pollAfterWaitingMs(position / ratePerMs, graceMs);
    }
  }
  const snapshotReads = Math.ceil(durationMs / snapshotTtlMs) * edgeInstances;
  return {
    durationMs,
    edgeInstances,
    snapshotTtlMs,
    polls,
    redisPolls,
    snapshotReads,
    commandsPerPoll: (redisPolls + snapshotReads) / Math.max(1, polls),
  };
}
