/**
 * The waiting room as the edge sees it: join, poll and leave on the queue engine, with the
 * per-showtime snapshot that answers far-back buyers without Redis, the claim that turns an
 * offer into an access token, and the failure policy (store down → 503, admissions pause).
 */
import { signAccessToken } from '../../../lib/access-token';
import { AppError, unavailable, type ErrorCode } from '../../../lib/errors';
import type { TokenKeyMaterial } from '../../../lib/token-keys';
import {
  estimateForJoin,
  estimateFromSnapshot,
  ticketOfSession,
  type Place,
  type Refusal,
  type Refused,
  type RoomEngine,
  type RoomSnapshot,
  type Standing,
} from '../../../queue/src/index';
import { admissionView, seatOutlook } from '../../../queue/src/room-control';
import type { EdgeMetrics } from '../metrics';
import { createSingleFlightCache } from '../state/single-flight-cache';
import { createQueueIds, deriveQueueIdSecret, MAX_QUEUE_TICKET } from './queue-ids';
import type { RoomCatalog } from './room-catalog';

export const QUEUE_RETRY_AFTER_SECONDS = 5;

/** What join and poll answer (the contract's shape, plus the tokens when they change). */
export interface QueueAnswer {
  state: string;
  position?: number;
  etaSeconds?: number;
  pollAfterMs: number | null;
  ticket: number;
  /** The short id of this place to quote to support (rooms/queue-ids.ts); none in the pre-queue. */
  queueId?: string;
  /** Everyone waiting: the line and the pre-queue not placed in it yet. */
  lineLength?: number;
  /** Seats left (available and held) and whether those ahead will likely take them (queue/src/room-control.ts). */
  seatsLeft?: number;
  seatsLikelyGone?: boolean;
  accessToken?: string;
  sessionExpiresAt?: string;
  source: 'redis' | 'snapshot';
}

/**
 * The contract's poll/join body without tokens: {state, position?, etaSeconds?, lineLength?,
 * queueId?, pollAfterMs}. Every path that answers join or poll builds its body here.
 */
export function queueAnswerBody(answer: QueueAnswer): Record<string, unknown> {
  const body: Record<string, unknown> = { state: answer.state };
  if (answer.position !== undefined) body.position = answer.position;
  if (answer.etaSeconds !== undefined) body.etaSeconds = answer.etaSeconds;
  if (answer.lineLength !== undefined) body.lineLength = answer.lineLength;
  if (answer.queueId !== undefined) body.queueId = answer.queueId;
  if (answer.seatsLeft !== undefined) body.seatsLeft = answer.seatsLeft;
  if (answer.seatsLikelyGone !== undefined) body.seatsLikelyGone = answer.seatsLikelyGone;
  body.pollAfterMs = answer.pollAfterMs;
  return body;
}

export interface RoomGatewayOptions {
  engine: RoomEngine;
  catalog: RoomCatalog;
  tokenKeys: TokenKeyMaterial;
  metrics: EdgeMetrics;
  snapshotTtlMs: number;
  now?: () => number;
  random?: () => number;
}

/**
 * Every queue refusal as the API names it (statuses from lib/error-codes.ts). Exhaustive: a
 * refusal the queue adds does not compile until it is given a code here.
 */
/** A place in line has an id; the pre-queue (ticket 0) has none yet. */
const hasQueueId = (ticket: number) => ticket > 0 && ticket <= MAX_QUEUE_TICKET;

const refusalErrorCode: Record<Refusal, ErrorCode> = {
  unknown_room: 'ROOM_NOT_FOUND',
  room_closed: 'ROOM_CLOSED',
  sold_out: 'SOLD_OUT',
  not_offered: 'NOT_OFFERED',
  offer_expired: 'TURN_EXPIRED',
  turn_expired: 'TURN_EXPIRED',
  already_opened: 'ALREADY_OPENED',
  draw_stale: 'DRAW_STALE',
  not_opening: 'NOT_OPENING',
  cost_exceeds_capacity: 'COST_EXCEEDS_CAPACITY',
  not_admitted: 'NOT_ADMITTED',
  address_cap: 'ADDRESS_PLACE_LIMIT',
  invalid_input: 'VALIDATION_FAILED',
};

function refusalError(refusal: Refused): AppError {
  return new AppError(refusalErrorCode[refusal.code], refusal.message);
}

export function createRoomGateway(options: RoomGatewayOptions) {
  const { engine, metrics } = options;
  const now = options.now ?? Date.now;
  const snapshots = createSingleFlightCache<RoomSnapshot | null>({
    ttlMs: options.snapshotTtlMs,
    maxEntries: 10_000,
    now,
  });
  /** A snapshot this old is reloaded in the background while it keeps answering (a Redis round trip fits easily in the rest). */
  const refreshSnapshotAfterMs = options.snapshotTtlMs * 0.75;
  /** The proof-of-work settings each join checks, read at most once a second per showtime. */
  const powSettings = createSingleFlightCache<{ powDifficulty: number; powMaxDifficulty: number } | null>({
    ttlMs: 1_000,
    maxEntries: 10_000,
    now,
  });
  /**
   * When each buyer's poll last reached Redis, so the near-front heartbeat stays fresh. By
   * showtime, then customer: every snapshot poll reads it, and a joined key would be a new
   * string to build and hash each time.
   */
  const lastBeatMs = new Map<string, Map<string, number>>();
  let beatsKept = 0;
  const snapshotPolls = metrics.queuePolls.child({ source: 'snapshot' });
  const joinsIn = new Map<string, { inc(): void }>();
  const countJoin = (state: string) => {
    let counter = joinsIn.get(state);
    if (!counter) joinsIn.set(state, (counter = metrics.queueJoins.child({ state })));
    counter.inc();
  };
  const signingQueueKey = options.tokenKeys.queueKeys.signing?.key;
  const queueIds = createQueueIds(
    signingQueueKey ? deriveQueueIdSecret(signingQueueKey) : Promise.reject(new Error('The edge needs a signing key')),
  );

  /** Every store call goes through here: a failure is "Redis down", answered 503. */
  async function store<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof AppError) throw error;
      metrics.redisErrors.inc({ operation });
      throw unavailable(
        'QUEUE_UNAVAILABLE',
        'The waiting room is briefly unavailable; admissions are paused. Try again shortly',
        QUEUE_RETRY_AFTER_SECONDS,
      );
    }
  }

  function rememberBeat(showtimeId: string, customerId: string) {
    if (beatsKept >= 200_000) lastBeatMs.clear(), (beatsKept = 0);
    let beats = lastBeatMs.get(showtimeId);
    if (!beats) lastBeatMs.set(showtimeId, (beats = new Map()));
    if (!beats.has(customerId)) beatsKept += 1;
    beats.set(customerId, now());
  }

  async function admit(showtimeId: string, customerId: string, ticket: number): Promise<QueueAnswer> {
    const claimed = await store('claim', () => engine.claim(showtimeId, customerId));
    if (!claimed.ok) {
      if (claimed.code === 'not_offered') return { state: 'waiting', pollAfterMs: 1_000, ticket, source: 'redis' };
      throw refusalError(claimed);
    }
    // Into the core's ledger before the buyer gets a token: a turn Redis could lose without a
    // trace would, given back later on the token alone, push the room past its capacity. While
    // the core cannot record it the buyer keeps the slot and hears "waiting"; the next poll
    // (claiming again returns the same session) tries again.
    try {
      await options.catalog.recordTurn(showtimeId, {
        customerId,
        ticket: Number(ticketOfSession(claimed.sessionId)),
        expiresAtMs: claimed.sessionExpiresAtMs,
      });
    } catch (error) {
      if (error instanceof AppError && error.status === 404) throw error;
      metrics.coreErrors.inc();
      return { state: 'waiting', pollAfterMs: 2_000, ticket, source: 'redis' };
    }
    const accessToken = await signAccessToken(options.tokenKeys, {
      customerId,
      showtimeId: Number(showtimeId),
      sessionId: claimed.sessionId,
      expiresAtMs: claimed.sessionExpiresAtMs,
    });
    if (!claimed.alreadyAdmitted) metrics.admissions.inc();
    return {
      state: 'admitted',
      pollAfterMs: null,
      ticket,
      accessToken,
      sessionExpiresAt: new Date(claimed.sessionExpiresAtMs).toISOString(),
      source: 'redis',
    };
  }

  async function answerFromStanding(showtimeId: string, customerId: string, standing: Standing): Promise<QueueAnswer> {
    const ticket = standing.ticket ?? 0;
    if (standing.state === 'expired' || standing.state === 'none') {
      throw new AppError('TURN_EXPIRED', 'Your place in line has lapsed; join the line again');
    }
    let answer: QueueAnswer;
    if (standing.state === 'offered' || standing.state === 'admitted')
      answer = await admit(showtimeId, customerId, ticket);
    else {
      answer = { state: standing.state, pollAfterMs: standing.pollAfterMs, ticket, source: 'redis' };
      if (standing.position !== null) answer.position = standing.position;
      if (standing.etaMs !== null) answer.etaSeconds = Math.ceil(standing.etaMs / 1000);
    }
    answer.lineLength = standing.lineLength + standing.preLength;
    if (hasQueueId(ticket))
      answer.queueId = queueIds.peek(showtimeId, ticket) ?? (await queueIds.idOf(showtimeId, ticket));
    const fresh = snapshots.peek(showtimeId);
    if (fresh) tellSeats(answer, fresh);
    return answer;
  }

  function answerFromSnapshot(
    snapshot: RoomSnapshot,
    showtimeId: string,
    customerId: string,
    ticket: number,
  ): QueueAnswer | null {
    const estimateOptions = {
      nowMs: now(),
      lastHeartbeatMs: lastBeatMs.get(showtimeId)?.get(customerId),
      random: options.random,
    };
    const estimate = estimateFromSnapshot(snapshot, ticket, estimateOptions);
    if (estimate.needsRedis || (ticket <= 0 && estimate.state !== 'prequeue')) return null;
    // The id's tables are made once per showtime and process (poll() waits for them first).
    const queueId = hasQueueId(ticket) ? queueIds.peek(showtimeId, ticket) : undefined;
    if (hasQueueId(ticket) && queueId === undefined) return null;
    snapshotPolls.inc();
    const answer: QueueAnswer = {
      state: estimate.state,
      pollAfterMs: estimate.pollAfterMs,
      ticket,
      source: 'snapshot',
    };
    if (estimate.position !== null) answer.position = estimate.position;
    if (estimate.etaMs !== null) answer.etaSeconds = Math.ceil(estimate.etaMs / 1000);
    answer.lineLength = snapshot.lineLength + snapshot.preLength;
    if (queueId !== undefined) answer.queueId = queueId;
    tellSeats(answer, snapshot);
    return answer;
  }

  /**
   * The snapshot a join may estimate from: fresh, of a room that is open or paused (an
   * opening draw or a pre-queue needs Redis's whole answer). Joins keep it fresh as polls do,
   * and when this process has none yet the first join starts loading it for the next ones.
   */
  function snapshotForJoin(showtimeId: string): RoomSnapshot | null {
    const snapshot = snapshots.peekRefreshing(showtimeId, () => loadSnapshot(showtimeId), refreshSnapshotAfterMs);
    return snapshot && (snapshot.state === 'open' || snapshot.state === 'paused') ? snapshot : null;
  }

  /**
   * A join that learned only the buyer's own place (`enter`): the wait is worked out from the
   * snapshot at that exact position, as the buyer's next poll will be. Anything but a place
   * in line of a room still in the snapshot's state (an offer, a turn, a room paused or
   * opened since) is answered from Redis in full.
   */
  async function answerFromPlace(
    snapshot: RoomSnapshot,
    showtimeId: string,
    customerId: string,
    place: Place,
  ): Promise<QueueAnswer> {
    const inLine =
      (place.state === 'waiting' || place.state === 'paused') &&
      place.position !== null &&
      place.roomState === snapshot.state;
    const nowMs = now();
    const estimate = inLine
      ? estimateForJoin(snapshot, place.ticket ?? 0, place.position!, {
          nowMs,
          lastHeartbeatMs: nowMs,
          random: options.random,
        })
      : null;
    if (!estimate || estimate.needsRedis) {
      const result = await store('poll', () => engine.poll(showtimeId, customerId));
      if (!result.ok) throw refusalError(result);
      return answerFromStanding(showtimeId, customerId, result);
    }
    const ticket = place.ticket ?? 0;
    const answer: QueueAnswer = {
      state: estimate.state,
      position: place.position!,
      pollAfterMs: estimate.pollAfterMs,
      ticket,
      source: 'redis',
    };
    if (estimate.etaMs !== null) answer.etaSeconds = Math.ceil(estimate.etaMs / 1000);
    // The snapshot was taken before this buyer joined.
    answer.lineLength = Math.max(place.position!, snapshot.lineLength + snapshot.preLength);
    if (hasQueueId(ticket))
      answer.queueId = queueIds.peek(showtimeId, ticket) ?? (await queueIds.idOf(showtimeId, ticket));
    tellSeats(answer, snapshot);
    return answer;
  }

  /** Buyers in line hear how many seats are left, and when those ahead will likely take them all. */
  function tellSeats(answer: QueueAnswer, snapshot: RoomSnapshot) {
    if (answer.state !== 'waiting' && answer.state !== 'paused') return;
    const outlook = seatOutlook(snapshot, answer.position ?? null);
    if (!outlook) return;
    answer.seatsLeft = outlook.seatsLeft;
    answer.seatsLikelyGone = outlook.seatsLikelyGone;
  }

  function recordRoomGauges(s: RoomSnapshot) {
    const labels = { showtime: s.showtimeId };
    metrics.roomWaiting.set(labels, s.lineLength + s.preLength);
    metrics.roomActive.set(labels, s.active);
    metrics.roomCapacity.set(labels, s.settings.capacity);
    metrics.roomAdmitting.set(labels, s.state === 'open' ? 1 : 0);
    const admission = admissionView(s.settings, s.control, s.active + s.offered);
    metrics.roomAdmitTarget.set(labels, admission.targetPerMinute);
    metrics.roomAdmitEffective.set(labels, admission.effectiveAdmitPerMinute);
    if (admission.seatsLeft !== null) metrics.roomSeatsLeft.set(labels, admission.seatsLeft);
  }

  async function snapshotOf(showtimeId: string): Promise<RoomSnapshot | null> {
    const { value } = await snapshots.get(showtimeId, () => loadSnapshot(showtimeId));
    return value;
  }

  async function loadSnapshot(showtimeId: string): Promise<RoomSnapshot | null> {
    metrics.snapshotRefreshes.inc();
    const result = await engine.snapshot(showtimeId);
    if (!result.ok) return null;
    const s = result.snapshot;
    recordRoomGauges(s);
    // Polls answered from the snapshot never reach the scripts that drive admission, and a
    // Worker has no ticker: when a slot is free and people wait, drive one (idempotent,
    // rate-capped) step here, at most once per snapshot lifetime per process.
    if (s.state === 'open' && s.lineLength > 0 && s.active + s.offered < s.settings.capacity) {
      const ticked = await engine.tick(showtimeId);
      if (ticked.ok && ticked.offered > 0) {
        const again = await engine.snapshot(showtimeId);
        if (again.ok) return again.snapshot;
      }
    }
    return s;
  }

  return {
    engine,
    queueIds,

    /** `address`: the client's, counted against the room's places-per-address cap. */
    async join(showtimeId: string, customerId: string, address: string | null = null): Promise<QueueAnswer> {
      // With a fresh snapshot the join asks Redis for the buyer's place only (a third less of
      // the script's time): the flash moment is joins, most of them far back in a long line.
      const snapshot = snapshotForJoin(showtimeId);
      let result: Standing | Place | Refused = await store('join', () =>
        snapshot ? engine.enter(showtimeId, customerId, address) : engine.join(showtimeId, customerId, address),
      );
      if (!result.ok && result.code === 'unknown_room') {
        await store('create_room', () => options.catalog.ensureRoom(showtimeId));
        result = await store('join', () => engine.join(showtimeId, customerId, address));
      }
      if (!result.ok) {
        // Waiters on a closed or sold-out showtime are told so, as an answer, not an error.
        if (result.code === 'sold_out' || result.code === 'room_closed') {
          const state = result.code === 'sold_out' ? 'sold_out' : 'closed';
          countJoin(state);
          return { state, pollAfterMs: null, ticket: 0, source: 'redis' };
        }
        throw refusalError(result);
      }
      rememberBeat(showtimeId, customerId);
      const answer =
        'lineLength' in result
          ? await answerFromStanding(showtimeId, customerId, result)
          : await answerFromPlace(snapshot!, showtimeId, customerId, result);
      countJoin(answer.state);
      return answer;
    },

    /**
     * The answer a fresh snapshot already holds, or null when this poll needs Redis (near the
     * front, a heartbeat due, no fresh snapshot in this process). Synchronous on purpose: the
     * Node entry answers most polls from it without building a Request (node-fast-poll.ts).
     */
    pollFromFreshSnapshot(showtimeId: string, customerId: string, ticket: number): QueueAnswer | null {
      // The next snapshot loads while this one still answers, so polls do not all miss (and
      // fall back to the slow path) in the moment after it expires.
      const snapshot = snapshots.peekRefreshing(showtimeId, () => loadSnapshot(showtimeId), refreshSnapshotAfterMs);
      return snapshot ? answerFromSnapshot(snapshot, showtimeId, customerId, ticket) : null;
    },

    /** Far-back tickets are answered from the snapshot; the rest (and heartbeats) from Redis. */
    async poll(showtimeId: string, customerId: string, ticket: number): Promise<QueueAnswer> {
      if (hasQueueId(ticket) && queueIds.peek(showtimeId, ticket) === undefined)
        await queueIds.idOf(showtimeId, ticket);
      const snapshot = await store('snapshot', () => snapshotOf(showtimeId));
      const fromSnapshot = snapshot ? answerFromSnapshot(snapshot, showtimeId, customerId, ticket) : null;
      if (fromSnapshot) return fromSnapshot;
      const result = await store('poll', () => engine.poll(showtimeId, customerId));
      if (!result.ok) {
        if (result.code === 'unknown_room')
          throw new AppError('TURN_EXPIRED', 'This waiting room no longer exists; join again');
        throw refusalError(result);
      }
      rememberBeat(showtimeId, customerId);
      metrics.queuePolls.inc({ source: 'redis' });
      return answerFromStanding(showtimeId, customerId, result);
    },

    async leave(showtimeId: string, customerId: string): Promise<boolean> {
      const result = await store('leave', () => engine.leave(showtimeId, customerId));
      metrics.queueLeaves.inc();
      if (!result.ok) {
        if (result.code === 'unknown_room') return false;
        throw refusalError(result);
      }
      // The ledger follows; leaving must work while the core is down, so this may fail here: the
      // catalog keeps the leave and tells the core on its next sync pass.
      if (result.removed) await options.catalog.endTurns(showtimeId, customerId).catch(() => metrics.coreErrors.inc());
      return result.removed;
    },

    /**
     * The room's proof-of-work settings, read at most once a second (null: the showtime has no
     * room even after asking the core). A room missing from Redis (never made, or Redis lost
     * it) is restored from the core's copy first, so its proof of work applies to the very
     * join that finds it missing, not only to the ones after.
     */
    async powSettingsOf(showtimeId: string): Promise<{ powDifficulty: number; powMaxDifficulty: number } | null> {
      // A cache of its own: joins must not decide when the polls' snapshot is taken.
      const read = async () => {
        const { value } = await store('settings', () =>
          powSettings.get(showtimeId, async () => {
            const result = await engine.getSettings(showtimeId);
            return result.ok
              ? {
                  powDifficulty: result.settings.powDifficulty ?? 0,
                  powMaxDifficulty: result.settings.powMaxDifficulty ?? 0,
                }
              : null;
          }),
        );
        if (value === null) powSettings.invalidate(showtimeId); // no room: ask again next join
        return value;
      };
      const settings = await read();
      if (settings !== null) return settings;
      await store('create_room', () => options.catalog.ensureRoom(showtimeId));
      return read();
    },

    /** The proof-of-work settings when this process read them less than a second ago, else undefined (ask `powSettingsOf`). */
    powSettingsNow(showtimeId: string): { powDifficulty: number; powMaxDifficulty: number } | undefined {
      return powSettings.peek(showtimeId) ?? undefined;
    },

    /** Drops the cached snapshot (settings changed, sold out) so the next poll sees it. */
    invalidate(showtimeId: string) {
      snapshots.invalidate(showtimeId);
      powSettings.invalidate(showtimeId);
    },
  };
}

export type RoomGateway = ReturnType<typeof createRoomGateway>;
