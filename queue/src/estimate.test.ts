import { describe, expect, it } from 'vitest';
import {
  estimateForJoin,
  estimateFromSnapshot,
  etaForPositionMs,
  learningFromStats,
  MAX_POLL_MS,
  MIN_POLL_MS,
  nearFrontSize,
  NOTHING_LEARNED,
  pollAfterWaitingMs,
  predictedRatePerMs,
  serviceRatePerMs,
  slotMs,
  turnEstimate,
  type RoomSnapshot,
} from './estimate';
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
  learning: { ...NOTHING_LEARNED, busyMs: 60_000, busyAdmits: 600 },
  headStart: 0,
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
    expect(fresh.pollAfterMs).toBeLessThanOrEqual((s.settings.abandonGraceMs / 2) * 1.2);
    const due = estimateFromSnapshot(s, 120, {
      nowMs: s.takenAtMs,
      lastHeartbeatMs: s.takenAtMs - s.settings.abandonGraceMs / 3,
    });
    expect(due.needsRedis).toBe(true);
  });

  it('keeps near-front heartbeats going to Redis while the room is paused', () => {
    // A pause is no reason to stop seeing the head of the line: answered from the snapshot for
    // the whole pause, its buyers' heartbeats went stale and the resumed room's first step
    // dropped them as gone (15 of 120 through HTTP, bench eta pause-30s).
    const s = snapshot({ state: 'paused' });
    const due = estimateFromSnapshot(s, 120, {
      nowMs: s.takenAtMs,
      lastHeartbeatMs: s.takenAtMs - s.settings.abandonGraceMs / 3,
    });
    expect(due.needsRedis).toBe(true);
    const fresh = estimateFromSnapshot(s, 120, { nowMs: s.takenAtMs, lastHeartbeatMs: s.takenAtMs - 1_000 });
    expect(fresh).toMatchObject({ needsRedis: false, state: 'paused', position: 20, etaMs: null });
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
    expect(
      estimateFromSnapshot(snapshot({ state: 'scheduled', opensAtMs: 1_010_000 }), 0, { random: mid }),
    ).toMatchObject({
      needsRedis: false,
      state: 'prequeue',
      pollAfterMs: 5_000,
    });
    expect(estimateFromSnapshot(snapshot({ state: 'paused' }), 5_100)).toMatchObject({ state: 'paused', etaMs: null });
    expect(estimateFromSnapshot(snapshot({ state: 'sold_out' }), 5_100)).toMatchObject({
      state: 'sold_out',
      pollAfterMs: null,
    });
  });

  it('keeps direct polls inside the heartbeat grace, with jitter', () => {
    expect(pollAfterWaitingMs(1_000_000, 10_000, mid)).toBe(5_000);
    expect(pollAfterWaitingMs(0, 10_000, mid)).toBe(MIN_POLL_MS);
    expect(pollAfterWaitingMs(1_000_000, 10_000, () => 0)).toBe(4_000);
    expect(pollAfterWaitingMs(1_000_000, 10_000, () => 1)).toBe(6_000);
  });
});

describe('estimateForJoin', () => {
  const idleWindow = { admitsInWindow: 0, headStart: 20 };

  it("is the poll's estimate at that place while nobody has gone since the snapshot", () => {
    const s = snapshot(idleWindow);
    const joined = estimateForJoin(s, 10_101, 10_001, { random: mid });
    expect(joined).toEqual(estimateFromSnapshot(s, 10_101, { random: mid }));
    expect(joined.etaMs).toBe((10_001 - 20) * 100); // 10 per second after the head start
  });

  it('takes off the head start what went since to those in line or before the buyer and no longer ahead', () => {
    const s = snapshot(idleWindow);
    expect(estimateForJoin(s, 10_101, 9_991, { random: mid }).etaMs).toBe((9_991 - 10) * 100); // ten gone
    expect(estimateForJoin(s, 10_131, 10_001, { random: mid }).etaMs).toBe((10_001 - 0) * 100); // thirty joined, ahead of it none
    // A buyer already in the snapshot's line joining again: only those who were ahead count.
    expect(estimateForJoin(s, 5_100, 4_995, { random: mid }).etaMs).toBe((4_995 - 15) * 100); // five gone
  });

  it('answers a buyer who joined an opening crowd from a snapshot of the empty line, at the rate, where a poll must ask Redis', () => {
    const empty = snapshot({ ...idleWindow, headTicket: 0, tailTicket: 0, lineLength: 0 });
    const joined = estimateForJoin(empty, 500, 400, {
      nowMs: empty.takenAtMs,
      lastHeartbeatMs: empty.takenAtMs,
      random: mid,
    });
    expect(joined).toMatchObject({ needsRedis: false, state: 'waiting', position: 400, etaMs: 400 * 100 });
    expect(estimateFromSnapshot(empty, 500).needsRedis).toBe(true);
  });

  it('asks Redis during the opening draw, and answers paused, closed and sold-out rooms as polls are', () => {
    expect(estimateForJoin(snapshot({ state: 'opening' }), 10_101, 10_001).needsRedis).toBe(true);
    expect(estimateForJoin(snapshot({ state: 'paused' }), 10_101, 10_001)).toMatchObject({
      needsRedis: false,
      state: 'paused',
      etaMs: null,
    });
    expect(estimateForJoin(snapshot({ state: 'sold_out' }), 10_101, 10_001)).toMatchObject({
      state: 'sold_out',
      pollAfterMs: null,
    });
  });
});

describe('serviceRatePerMs', () => {
  const perSecond = (ratePerMs: number) => Math.round(ratePerMs * 1_000 * 1_000) / 1_000;

  it('uses the configured rate until the line has been busy, whatever the idle time before', () => {
    // A quiet room: plenty of time open, no busy time: the idle minutes do not count.
    expect(perSecond(serviceRatePerMs({ admitPerMinute: 120, capacity: 10, learning: NOTHING_LEARNED }))).toBe(2);
  });

  it('is governed by the capacity when turns hold their slots longer than the rate allows', () => {
    const learning = { ...NOTHING_LEARNED, turnsEnded: 8, turnMs: 9_000 };
    expect(perSecond(predictedRatePerMs({ admitPerMinute: 120, capacity: 10, learning }))).toBe(1.053); // 10 / (9 + 0.5) s
    // Turns that end at once leave the configured rate in charge.
    expect(
      perSecond(predictedRatePerMs({ admitPerMinute: 120, capacity: 10, learning: { ...learning, turnMs: 500 } })),
    ).toBe(2);
    // Two ended turns are not believed yet.
    expect(
      perSecond(predictedRatePerMs({ admitPerMinute: 120, capacity: 10, learning: { ...learning, turnsEnded: 2 } })),
    ).toBe(2);
  });

  it('moves toward the measured busy rate as busy time accumulates, without jumping', () => {
    const rates = [0, 2_000, 5_000, 10_000, 30_000, 120_000].map((busyMs) =>
      serviceRatePerMs({
        admitPerMinute: 120,
        capacity: 10,
        learning: { ...NOTHING_LEARNED, busyMs, busyAdmits: busyMs / 1_000 },
      }),
    );
    for (let i = 1; i < rates.length; i++) expect(rates[i]!).toBeLessThan(rates[i - 1]!);
    expect(perSecond(rates[3]!)).toBe(1.5); // half-way between 2/s predicted and 1/s measured
    expect(perSecond(rates.at(-1)!)).toBeLessThan(1.1);
  });

  it('believes the line moving faster than the rate (buyers passed over) up to twice, no further', () => {
    const learning = { ...NOTHING_LEARNED, busyMs: 60_000, busyAdmits: 600 };
    const rate = perSecond(serviceRatePerMs({ admitPerMinute: 120, capacity: 10, learning }));
    expect(rate).toBeGreaterThan(3.5);
    expect(rate).toBeLessThanOrEqual(4);
  });

  it('waits for the one-minute window after a rate cut, from its log or spread evenly', () => {
    const line = { ratePerMs: 1 / 1_000, headStart: 0, admitsInWindow: 120, admitPerMinute: 60 };
    // 60 of the 120 admissions in the window must age out first: evenly, 0.5 s apart.
    expect(etaForPositionMs(10, line)).toBe(35_000);
    expect(etaForPositionMs(10, { ...line, windowWaitMs: 41_000 })).toBe(41_000);
    expect(etaForPositionMs(10, { ...line, windowWaitMs: -1 })).toBe(35_000);
    expect(etaForPositionMs(10, { ...line, admitsInWindow: 20 })).toBe(10_000);
    expect(etaForPositionMs(10, { ...line, admitsInWindow: 20, headStart: 4 })).toBe(6_000);
  });

  it('reads what the scripts keep in the stats hash, running turns aged to the snapshot', () => {
    const stats = new Map([
      ['lrnBusyMs', '12000.5'],
      ['lrnBusyAdm', '24'],
      ['lrnTurns', '4'],
      ['lrnTurnMs', '36000'],
      ['lrnClaims', '2'],
      ['lrnClaimMs', '1600'],
      ['lrnRunN', '2'],
      ['lrnRunMs', '25000'],
      ['lrnRunAtMs', '1000000'],
    ]);
    expect(learningFromStats(stats, 1_000_500)).toEqual({
      busyMs: 12_000.5,
      busyAdmits: 24,
      turnsEnded: 4,
      turnMs: 9_000,
      claimGapMs: 800,
      runningTurns: 2,
      runningTurnMs: 26_000,
    });
    expect(learningFromStats(new Map(), 0)).toEqual(NOTHING_LEARNED);
  });
});

describe('the turn a slot is taken for', () => {
  const perSecond = (ratePerMs: number) => Math.round(ratePerMs * 1_000 * 1_000) / 1_000;
  // Five turns ended in a quiet spell, short ones first: 6 s on average, while turns last 9 s.
  const early = { ...NOTHING_LEARNED, turnsEnded: 5, turnMs: 6_000 };

  it('counts running turns older than the ended ones at their age so far', () => {
    // Two still running at 12 s and 10 s: (30 + 22) / 7, and half a poll for the claim.
    expect(slotMs({ ...early, runningTurns: 2, runningTurnMs: 22_000 })).toBeCloseTo(52_000 / 7 + 500, 0);
    // Without them the capacity-bound rate was 10 / 6.5 s; with them 10 / 7.9 s.
    const before = predictedRatePerMs({ admitPerMinute: 120, capacity: 10, learning: early });
    const after = predictedRatePerMs({
      admitPerMinute: 120,
      capacity: 10,
      learning: { ...early, runningTurns: 2, runningTurnMs: 22_000 },
    });
    expect(perSecond(before)).toBe(1.538);
    expect(perSecond(after)).toBe(1.261);
  });

  it("goes by the cinema's recent rooms until three turns of its own have ended, then by its own", () => {
    // An opening crowd, nothing ended yet: turns of 2 minutes elsewhere, ten slots: 5 a minute, not 120.
    const opening = { ...NOTHING_LEARNED, priorTurnMs: 120_000 };
    expect(slotMs(opening)).toBe(120_500);
    expect(perSecond(predictedRatePerMs({ admitPerMinute: 120, capacity: 10, learning: opening }) * 60)).toBe(4.979);
    expect(perSecond(serviceRatePerMs({ admitPerMinute: 120, capacity: 10, learning: opening }) * 60)).toBe(4.979);
    expect(slotMs({ ...opening, turnsEnded: 2, turnMs: 30_000 })).toBe(120_500);
    // Three of its own: the room's turns, whatever the other rooms said.
    expect(slotMs({ ...opening, turnsEnded: 3, turnMs: 30_000 })).toBe(30_500);
    expect(slotMs({ ...NOTHING_LEARNED, priorTurnMs: null })).toBeNull();
    expect(slotMs({ ...NOTHING_LEARNED, priorTurnMs: 0 })).toBeNull();
  });

  it('adds the time an offer waits for its claim: the slot is taken from the offer on', () => {
    expect(slotMs({ ...early, claimGapMs: 800 })).toBe(6_800);
    expect(
      perSecond(
        predictedRatePerMs({
          admitPerMinute: 120,
          capacity: 10,
          learning: { ...early, turnMs: 9_200, claimGapMs: 800 },
        }),
      ),
    ).toBe(1);
    // Buyers offered as they joined claimed at once; a line's offers wait for the next poll.
    expect(slotMs({ ...early, claimGapMs: 5 })).toBe(6_500);
  });

  it("weighs the measured rate of a capacity-bound line only after two turns' length more", () => {
    // Slots filled at once, then 4 s without a turn ending: the line has not moved yet, and
    // the turns that started together will end in a wave.
    const learning = { ...NOTHING_LEARNED, turnsEnded: 5, turnMs: 9_000, busyMs: 4_000, busyAdmits: 0 };
    const predicted = predictedRatePerMs({ admitPerMinute: 120, capacity: 10, learning });
    // 4 / (4 + 10 + 2 x 9.5) of the way to nothing, not 4 / (4 + 10).
    expect(serviceRatePerMs({ admitPerMinute: 120, capacity: 10, learning }) / predicted).toBeCloseTo(29 / 33, 3);
    // A line the rate holds (turns of no length) keeps the plain weighting.
    const quick = { ...learning, turnMs: 50 };
    expect(
      serviceRatePerMs({ admitPerMinute: 120, capacity: 10, learning: quick }) /
        predictedRatePerMs({ admitPerMinute: 120, capacity: 10, learning: quick }),
    ).toBeCloseTo(11.1 / 15.1, 2);
  });

  it('before three turns have ended, goes by how long the running ones have run at least, or the history if longer', () => {
    // An opening 12 s in: five turns running (the scripts count them all then), two ended early.
    const opening = { ...early, turnsEnded: 2, runningTurns: 5, runningTurnMs: 60_000 };
    expect(slotMs(opening)).toBe(12_500);
    expect(turnEstimate(opening)).toEqual({ turnMs: 12_000, from: 'room' });
    // Recent sales say turns last 2 minutes: longer than 12 s so far, so that.
    expect(turnEstimate({ ...opening, priorTurnMs: 120_000 })).toEqual({ turnMs: 120_000, from: 'history' });
    // Running for 3 minutes already, none ended: longer than the history says.
    expect(turnEstimate({ ...opening, runningTurnMs: 900_000, priorTurnMs: 120_000 })).toEqual({
      turnMs: 180_000,
      from: 'room',
    });
    expect(slotMs({ ...opening, runningTurns: 0, runningTurnMs: 0 })).toBeNull();
    // Three ended: the room's own mean (running ones counted only when older than it).
    expect(turnEstimate({ ...early, turnsEnded: 3, priorTurnMs: 120_000 })).toEqual({ turnMs: 6_000, from: 'room' });
  });
});
