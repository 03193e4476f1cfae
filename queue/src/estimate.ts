/**
 * Position, wait estimate and next poll time, as pure functions. The edge uses
 * `estimateFromSnapshot` to answer far-back buyers without touching Redis; only buyers near
 * the front (whose heartbeat matters) or in a state the snapshot cannot see need Redis.
 */
import { scheduleWaitMs, type BucketFacts } from './admission-schedule';
import { governedSettings, type RoomControl } from './room-control';

export { scheduleWaitMs, type BucketFacts } from './admission-schedule';
import type { RoomState, RoomSettings } from './settings';

export const MIN_POLL_MS = 1_000;
export const MAX_POLL_MS = 30_000;
/** The near-front zone never shrinks below this many places. */
export const NEAR_FRONT_MIN = 50;
const JITTER = 0.2;
/**
 * Busy time after which the measured rate and the predicted one weigh the same (plus two
 * turns' length, see serviceRatePerMs): the prediction answers at once (a new rate, the first
 * seconds of a crowd), the measurement takes over as the line keeps moving, so the estimate
 * slides instead of jumping.
 */
const BUSY_TRUST_MS = 10_000;
/** Turn lengths of busy time the measurement needs on top of BUSY_TRUST_MS (see serviceRatePerMs). */
const TURNS_TO_TRUST = 2;
/** Ended turns needed before their mean duration is believed. */
const MIN_TURNS = 3;

/**
 * What the room learned (decayed sums kept by the scripts, lua/includes/room.lua): places the
 * line moved (offers and buyers passed over) over the time it was busy, how long a turn held
 * its slot (turns that ended, and running turns already longer than those), and how long an
 * offer waited for its claim.
 */
export interface AdmissionLearning {
  busyMs: number;
  busyAdmits: number;
  turnsEnded: number;
  /** Mean time a turn held its slot (claim to release, leave or expiry), over turns that ended; null: unknown. */
  turnMs: number | null;
  /** Mean time from offer to claim (the slot is taken from the offer on); 0: unknown. */
  claimGapMs: number;
  /** Running turns older than the ended ones' mean, or before MIN_TURNS ended all of them (learnRunning), and their total age so far. */
  runningTurns: number;
  runningTurnMs: number;
  /** How long turns lasted in the cinema's recent rooms (turn-history.ts): the guess until this room has ended MIN_TURNS of its own. */
  priorTurnMs?: number | null;
}

export const NOTHING_LEARNED: AdmissionLearning = {
  busyMs: 0,
  busyAdmits: 0,
  turnsEnded: 0,
  turnMs: null,
  claimGapMs: 0,
  runningTurns: 0,
  runningTurnMs: 0,
};

export interface RateInputs {
  admitPerMinute: number;
  capacity: number;
  learning: AdmissionLearning;
}

/**
 * A buyer in line hears of the offer at the next poll, and the poll that sees it claims.
 * Near the front polls come at least MIN_POLL_MS apart, so an offer made at a random moment
 * waits half of that on average, at least: whatever a quiet room learned from buyers offered
 * as they joined (a gap of nothing), a line's offers wait that long for their claim.
 */
const MIN_CLAIM_GAP_MS = MIN_POLL_MS / 2;

/**
 * How long this room's turns keep their slot, claim to end, from its own turns; null until
 * MIN_TURNS have ended. Early on the turns that ended are the short ones (a crowd's first
 * turns end first): running turns already older than their mean count at their age so far,
 * a lower bound of their length (the scripts pick them, lua/includes/room.lua learnRunning);
 * younger ones say nothing against the mean. What the turns not yet ended will add beyond
 * their age is not known.
 */
export function ownTurnMs(learning: AdmissionLearning): number | null {
  if (learning.turnsEnded < MIN_TURNS || !learning.turnMs || learning.turnMs <= 0) return null;
  const ended = learning.turnMs * learning.turnsEnded;
  return (ended + learning.runningTurnMs) / (learning.turnsEnded + learning.runningTurns);
}

/**
 * The turn length the estimate goes by, claim to end, and whose turns say so. The room's own
 * once MIN_TURNS have ended; before that (an opening: the crowd's first turns all running, none
 * ended) the longer of how long turns lasted in the cinema's recent rooms (turn-history.ts) and
 * how long this room's running turns have run so far (the scripts count every running turn
 * then: turns last at least that long); null when neither is known.
 */
export function turnEstimate(learning: AdmissionLearning): { turnMs: number; from: 'room' | 'history' } | null {
  const own = ownTurnMs(learning);
  if (own !== null) return { turnMs: own, from: 'room' };
  const running = learning.runningTurns > 0 ? learning.runningTurnMs / learning.runningTurns : 0;
  const prior = learning.priorTurnMs && learning.priorTurnMs > 0 ? learning.priorTurnMs : 0;
  if (prior > 0 && prior >= running) return { turnMs: prior, from: 'history' };
  return running > 0 ? { turnMs: running, from: 'room' } : null;
}

/** turnEstimate as the room's stats show it (rounded; nulls when unknown). */
export function turnStats(learning: AdmissionLearning): { turnMs: number | null; turnFrom: 'room' | 'history' | null } {
  const turn = turnEstimate(learning);
  return turn ? { turnMs: Math.round(turn.turnMs), turnFrom: turn.from } : { turnMs: null, turnFrom: null };
}

/** How long a turn keeps its slot, offer to end (turnEstimate, and the wait for the claim); null when unknown. */
export function slotMs(learning: AdmissionLearning): number | null {
  const turn = turnEstimate(learning);
  return turn === null ? null : turn.turnMs + Math.max(learning.claimGapMs, MIN_CLAIM_GAP_MS);
}

/** How fast turns free slots (capacity per slot time, offer to end); null while the slot time is unknown. */
export function slotRatePerMs({ capacity, learning }: Pick<RateInputs, 'capacity' | 'learning'>): number | null {
  const turnMs = slotMs(learning);
  return turnMs ? capacity / turnMs : null;
}

/**
 * What governs admission now: the configured rate, or the capacity divided by how long a
 * turn keeps its slot, whichever is slower.
 */
export function predictedRatePerMs({ admitPerMinute, capacity, learning }: RateInputs): number {
  const configured = admitPerMinute / 60_000;
  const turnMs = slotMs(learning);
  return turnMs ? Math.min(configured, capacity / turnMs) : configured;
}

/**
 * Admissions per ms a buyer in line can count on: the prediction, blended with the rate
 * measured over the time the line was actually busy (never the idle time before a crowd).
 */
export function serviceRatePerMs(inputs: RateInputs): number {
  const predicted = predictedRatePerMs(inputs);
  const { busyMs, busyAdmits } = inputs.learning;
  if (busyMs <= 0) return predicted;
  // Places passed over (buyers gone quiet) move the line too, so the line may advance faster
  // than the rate admits: believed up to twice the rate (half the line gone), no further.
  const measured = Math.min(busyAdmits / busyMs, (2 * inputs.admitPerMinute) / 60_000);
  // A line the capacity holds moves as turns end: a crowd's first turns start together and
  // end in a wave (nothing for the shortest turn's length, then a rush), so over the first
  // turns the measured pace is not the pace to come, which the slot time predicts. The
  // measurement needs two turns' length more before it weighs as much as the prediction.
  const weight = busyMs / (busyMs + BUSY_TRUST_MS + TURNS_TO_TRUST * (slotMs(inputs.learning) ?? 0));
  return Math.max((1 - weight) * predicted + weight * measured, predicted / 20);
}

export interface LineFacts {
  ratePerMs: number;
  /** How many the next admission step offers at once (free slots within the banked budget). */
  headStart: number;
  admitsInWindow: number;
  admitPerMinute: number;
  /** From the window's own log (join and poll): until it lets this position in; -1 or absent: estimate. */
  windowWaitMs?: number;
  /** The admission step's own limits now (see scheduleWaitMs); absent: the head start, then the service rate. */
  bucket?: BucketFacts;
}

/**
 * Wait until `position` is offered: the places the next step offers at once, then the
 * service rate; and never sooner than the one-minute window allows (after a rate cut the
 * window may hold more admissions than the new rate: they must age out first, taken as
 * spread evenly over the minute).
 */
export function etaForPositionMs(position: number, line: LineFacts): number {
  const byRate = line.bucket
    ? scheduleWaitMs(position, line.ratePerMs, line.bucket)
    : Math.max(0, position - line.headStart) / line.ratePerMs;
  // The window's cap as a count (lua/includes/room.lua windowCap).
  const windowLeft = Math.ceil(line.admitPerMinute) - line.admitsInWindow;
  const known = line.windowWaitMs !== undefined && line.windowWaitMs >= 0;
  const evenly =
    position > windowLeft && line.admitsInWindow > 0 ? ((position - windowLeft) * 60_000) / line.admitsInWindow : 0;
  const byWindow = known ? line.windowWaitMs! : evenly;
  return Math.round(Math.max(byRate, byWindow));
}

/** The learning as the stats hash keeps it at `nowMs` (the snapshot carries the whole hash). */
export function learningFromStats(stats: Map<string, string>, nowMs: number): AdmissionLearning {
  const number = (field: string) => Number(stats.get(field) ?? 0) || 0;
  const turnsEnded = number('lrnTurns');
  const claims = number('lrnClaims');
  const runningTurns = number('lrnRunN');
  return {
    busyMs: number('lrnBusyMs'),
    busyAdmits: number('lrnBusyAdm'),
    turnsEnded,
    turnMs: turnsEnded > 0 ? number('lrnTurnMs') / turnsEnded : null,
    claimGapMs: claims > 0 ? number('lrnClaimMs') / claims : 0,
    runningTurns,
    runningTurnMs: runningTurns > 0 ? number('lrnRunMs') + runningTurns * Math.max(0, nowMs - number('lrnRunAtMs')) : 0,
  };
}

/** Places that get admitted within two abandonment grace periods at the current rate. */
export function nearFrontSize(ratePerMs: number, abandonGraceMs: number): number {
  return Math.max(NEAR_FRONT_MIN, Math.ceil(ratePerMs * abandonGraceMs * 2));
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/** ±20 % so that a crowd told the same number does not come back in one wave. */
export function withJitter(ms: number, random: () => number = Math.random): number {
  return Math.round(ms * (1 - JITTER + 2 * JITTER * random()));
}

/**
 * For a buyer polling through Redis: a quarter of the ETA, never slower than half the
 * abandonment grace, so the heartbeat stays fresh before the buyer reaches the head.
 */
export function pollAfterWaitingMs(etaMs: number, abandonGraceMs: number, random?: () => number): number {
  const ceiling = Math.max(MIN_POLL_MS, Math.min(MAX_POLL_MS, abandonGraceMs / 2));
  return withJitter(clamp(etaMs / 4, MIN_POLL_MS, ceiling), random);
}

export function pollAfterPrequeueMs(opensAtMs: number | null, nowMs: number, random?: () => number): number {
  const untilOpen = opensAtMs === null ? MAX_POLL_MS : (opensAtMs - nowMs) / 2;
  return withJitter(clamp(untilOpen, MIN_POLL_MS, MAX_POLL_MS), random);
}

/** The cheap, Redis-free view of a room the edge caches for a second or so. */
export interface RoomSnapshot {
  showtimeId: string;
  takenAtMs: number;
  state: RoomState;
  opensAtMs: number | null;
  /** Ticket at the head of the line (0 when the line is empty). */
  headTicket: number;
  tailTicket: number;
  lineLength: number;
  preLength: number;
  offered: number;
  active: number;
  admitsInWindow: number;
  rateWindowMs: number;
  learning: AdmissionLearning;
  /** How many the next admission step would offer at once, as of `takenAtMs`. */
  headStart: number;
  /** The admission bucket's tokens and the free slots as of `takenAtMs` (absent in an older snapshot: the head start alone). */
  bucketTokens?: number;
  freeSlots?: number;
  /** What the operator set. */
  settings: RoomSettings;
  /** The closed loop's decision (effective rate, cap on turns), when the room has one. */
  control?: RoomControl;
  seedHash: string | null;
}

export interface SnapshotEstimate {
  /** True: ask Redis (poll) instead; the snapshot cannot answer this ticket well. */
  needsRedis: boolean;
  state: 'prequeue' | 'waiting' | 'paused' | 'closed' | 'sold_out';
  position: number | null;
  etaMs: number | null;
  pollAfterMs: number | null;
}

/** Near the front a heartbeat must reach Redis at least this often (a third of the grace). */
export const heartbeatEveryMs = (abandonGraceMs: number): number => Math.floor(abandonGraceMs / 3);
/**
 * A buyer whose turn is due within IMMINENT_MS must be seen by Redis every FRESH_BEAT_MS:
 * the admission step gives a buyer not seen for a few seconds only a short claim window
 * (lua/includes/room.lua FRESH_MS), taking them for gone.
 */
const IMMINENT_MS = 10_000;
export const FRESH_BEAT_MS = 2_000;

export interface EstimateOptions {
  nowMs?: number;
  random?: () => number;
  /**
   * When this buyer's poll last reached Redis (the edge can carry it in the queue token or
   * a cookie). Unknown means "long ago": near the front the poll then goes to Redis.
   */
  lastHeartbeatMs?: number;
}

/** The answer that sends a poll to Redis (shared: callers only read it). */
const ASK_REDIS: SnapshotEstimate = Object.freeze({
  needsRedis: true,
  state: 'waiting',
  position: null,
  etaMs: null,
  pollAfterMs: null,
});

interface LinePace {
  /** The settings the admission step really uses: the closed loop's rate and cap, when it governs the room. */
  settings: RoomSettings;
  rate: number;
  near: number;
}

/**
 * The snapshot's bucket and free slots less the places offered since it was taken (their
 * tokens and slots are spent), with the slot rate of `settings`; undefined in an older snapshot.
 */
export function snapshotBucket(
  snapshot: RoomSnapshot,
  settings: RoomSettings,
  offeredSince = 0,
): BucketFacts | undefined {
  if (snapshot.bucketTokens === undefined || snapshot.freeSlots === undefined) return undefined;
  return {
    tokens: Math.max(0, snapshot.bucketTokens - offeredSince),
    freeSlots: Math.max(0, snapshot.freeSlots - offeredSince),
    slotRatePerMs: slotRatePerMs({ ...settings, learning: snapshot.learning }),
  };
}

/**
 * What every estimate from one snapshot shares, worked out once per snapshot: the edge
 * answers thousands of polls from each, and the settings, rate and near-front zone depend
 * on the snapshot alone (snapshots are not changed once taken).
 */
const paces = new WeakMap<RoomSnapshot, LinePace>();
function paceOf(snapshot: RoomSnapshot): LinePace {
  let pace = paces.get(snapshot);
  if (!pace) {
    const settings = governedSettings(snapshot.settings, snapshot.control);
    const rate = serviceRatePerMs({ ...settings, learning: snapshot.learning });
    pace = { settings, rate, near: nearFrontSize(rate, settings.abandonGraceMs) };
    paces.set(snapshot, pace);
  }
  return pace;
}

/**
 * Estimate for a buyer holding `ticket`. Position is interpolated between the head and
 * tail tickets, exact when nobody has left the line in between. Redis is needed only for
 * tickets the head has passed (offered, skipped), during the opening draw, and near the
 * front when the buyer's heartbeat is due.
 */
export function estimateFromSnapshot(
  snapshot: RoomSnapshot,
  ticket: number,
  options: EstimateOptions = {},
): SnapshotEstimate {
  const nowMs = options.nowMs ?? snapshot.takenAtMs;
  const ask = ASK_REDIS;
  if (snapshot.state === 'scheduled') {
    const pollAfterMs = pollAfterPrequeueMs(snapshot.opensAtMs, nowMs, options.random);
    return { needsRedis: false, state: 'prequeue', position: null, etaMs: null, pollAfterMs };
  }
  if (snapshot.state === 'opening' || ticket <= 0 || ticket < snapshot.headTicket || snapshot.lineLength === 0) {
    return ask;
  }
  return estimateAt(snapshot, positionInSnapshot(snapshot, ticket), 0, options);
}

/** Where a ticket stands in the snapshot's line: interpolated between head and tail, counted on past the tail. */
function positionInSnapshot(snapshot: RoomSnapshot, ticket: number): number {
  const { headTicket: head, tailTicket: tail, lineLength } = snapshot;
  return ticket > tail
    ? lineLength + (ticket - tail)
    : 1 + Math.round(((ticket - head) * (lineLength - 1)) / Math.max(1, tail - head));
}

/**
 * The estimate for a buyer who has just joined and learned the exact place from Redis, from
 * a snapshot taken before: as a poll at that place would get it, except for the head start.
 * What the snapshot would offer at once may have gone since to those who were in line then
 * or joined before this buyer and are no longer ahead of it; every one of them is counted as
 * an offer (those who left too: their tokens and slots are taken as spent), so the wait is
 * never told shorter for it. In an opening crowd the snapshot's head start has gone to the
 * first few, and the rest wait as the bucket refills.
 */
export function estimateForJoin(
  snapshot: RoomSnapshot,
  ticket: number,
  position: number,
  options: EstimateOptions = {},
): SnapshotEstimate {
  // Ahead of this ticket when the snapshot was taken (or by now, for those who joined since).
  const aheadThen = ticket < snapshot.headTicket ? 0 : positionInSnapshot(snapshot, ticket) - 1;
  const goneSince = Math.max(0, aheadThen - (position - 1));
  return estimateAt(snapshot, position, goneSince, options);
}

/** `offeredSince`: places the snapshot's head start and bucket have gone to since it was taken. */
function estimateAt(
  snapshot: RoomSnapshot,
  position: number,
  offeredSince: number,
  options: EstimateOptions,
): SnapshotEstimate {
  const nowMs = options.nowMs ?? snapshot.takenAtMs;
  const ask = ASK_REDIS;
  if (snapshot.state === 'scheduled' || snapshot.state === 'opening') return ask;
  if (snapshot.state === 'closed' || snapshot.state === 'sold_out') {
    return { needsRedis: false, state: snapshot.state, position: null, etaMs: null, pollAfterMs: null };
  }
  const { settings, rate, near } = paceOf(snapshot);
  const graceMs = settings.abandonGraceMs;
  const bucket = snapshotBucket(snapshot, settings, offeredSince);
  const headStart = Math.max(0, snapshot.headStart - offeredSince);
  const eta = etaForPositionMs(position, {
    ratePerMs: rate,
    headStart,
    admitsInWindow: snapshot.admitsInWindow,
    admitPerMinute: settings.admitPerMinute,
    bucket,
  });
  const etaMs = Number.isFinite(eta) ? eta : null;
  const state = snapshot.state === 'paused' ? 'paused' : 'waiting';
  if (position <= near) {
    const lastBeat = options.lastHeartbeatMs ?? Number.NEGATIVE_INFINITY;
    const beatEveryMs =
      etaMs !== null && etaMs <= IMMINENT_MS
        ? Math.min(FRESH_BEAT_MS, heartbeatEveryMs(graceMs))
        : heartbeatEveryMs(graceMs);
    // Paused too: the step that resumes the room passes over a head whose heartbeat went stale.
    if ((snapshot.state === 'open' || snapshot.state === 'paused') && nowMs - lastBeat >= beatEveryMs) return ask;
    const pollAfterMs = pollAfterWaitingMs(etaMs ?? MAX_POLL_MS * 4, graceMs, options.random);
    return { needsRedis: false, state, position, etaMs: state === 'paused' ? null : etaMs, pollAfterMs };
  }
  // Come back before entering the near-front zone, where the heartbeat must be fresh.
  const untilNearMs = (position - near) / rate / 2;
  const pollAfterMs = withJitter(clamp(untilNearMs, MIN_POLL_MS, MAX_POLL_MS), options.random);
  return { needsRedis: false, state, position, etaMs: state === 'paused' ? null : etaMs, pollAfterMs };
}
