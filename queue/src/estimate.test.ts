import { describe, expect, it } from 'vitest';
import { estimateFromSnapshot, MAX_POLL_MS, MIN_POLL_MS, nearFrontSize, pollAfterWaitingMs, type RoomSnapshot } from './estimate';
import { DEFAULT_SETTINGS } from './settings';

const snapshot = (over: Partial<RoomSnapshot> = {}): RoomSnapshot => ({
  showtimeId: '42',
  takenAtMs: 1_000_000,
  state: 'open',
  opensAtMs: null,
  headTicket: 101,
  tailTicket: 10_100,
  lineLength: 10_000,
  preLength: 0,
  offered: 10,
  active: 190,
  admitsInWindow: 600,
  rateWindowMs: 60_000,
  settings: { ...DEFAULT_SETTINGS, opensAtMs: null },
  seedHash: null,
  ...over,
});
const mid = () => 0.5;

describe('estimateFromSnapshot', () => {
  it('answers far-back tickets without Redis, with position, ETA and a slow poll', () => {
    const estimate = estimateFromSnapshot(snapshot(), 5_100, { random: mid });
    expect(estimate).toMatchObject({ needsRedis: false, state: 'waiting', position: 5_000 });
    expect(estimate.etaMs).toBe(500_000); // 10 per second
    expect(estimate.pollAfterMs).toBe(MAX_POLL_MS);
  });

  it('sends near-front, already-passed and pending-draw tickets to Redis', () => {
    const near = nearFrontSize(600 / 60_000, DEFAULT_SETTINGS.abandonGraceMs);
    expect(estimateFromSnapshot(snapshot(), 101 + near - 1).needsRedis).toBe(true);
    expect(estimateFromSnapshot(snapshot(), 50).needsRedis).toBe(true);
    expect(estimateFromSnapshot(snapshot({ state: 'opening' }), 5_000).needsRedis).toBe(true);
  });

  it('answers near-front tickets from the snapshot while their heartbeat is fresh', () => {
    const s = snapshot();
    const fresh = estimateFromSnapshot(s, 120, { nowMs: s.takenAtMs, lastHeartbeatMs: s.takenAtMs - 1_000 });
    expect(fresh).toMatchObject({ needsRedis: false, position: 20 });
    expect(fresh.pollAfterMs).toBeLessThanOrEqual(s.settings.abandonGraceMs / 2 * 1.2);
    const due = estimateFromSnapshot(s, 120, { nowMs: s.takenAtMs, lastHeartbeatMs: s.takenAtMs - s.settings.abandonGraceMs / 3 });
    expect(due.needsRedis).toBe(true);
  });

  it('polls again before reaching the near-front zone', () => {
    const s = snapshot();
    const near = nearFrontSize(600 / 60_000, s.settings.abandonGraceMs);
    for (const ticket of [200, 500, 1_000, 3_000]) {
      const estimate = estimateFromSnapshot(s, ticket, { random: () => 1 });
      if (estimate.needsRedis) continue;
      const placesMovedBeforeNextPoll = (estimate.pollAfterMs! * 600) / 60_000;
      expect(estimate.position! - placesMovedBeforeNextPoll).toBeGreaterThan(near / 2);
    }
  });

  it('tells pre-queue, paused, closed and sold-out rooms apart', () => {
    expect(estimateFromSnapshot(snapshot({ state: 'scheduled', opensAtMs: 1_010_000 }), 0, { random: mid })).toMatchObject({
      needsRedis: false,
      state: 'prequeue',
      pollAfterMs: 5_000,
    });
    expect(estimateFromSnapshot(snapshot({ state: 'paused' }), 5_100)).toMatchObject({ state: 'paused', etaMs: null });
    expect(estimateFromSnapshot(snapshot({ state: 'sold_out' }), 5_100)).toMatchObject({ state: 'sold_out', pollAfterMs: null });
  });

  it('keeps direct polls inside the heartbeat grace, with jitter', () => {
    expect(pollAfterWaitingMs(1_000_000, 10_000, mid)).toBe(5_000);
    expect(pollAfterWaitingMs(0, 10_000, mid)).toBe(MIN_POLL_MS);
    expect(pollAfterWaitingMs(1_000_000, 10_000, () => 0)).toBe(4_000);
    expect(pollAfterWaitingMs(1_000_000, 10_000, () => 1)).toBe(6_000);
  });
});
