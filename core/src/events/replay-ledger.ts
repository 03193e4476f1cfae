/**
 * Where the relay's replay of retained outbox rows stands, after Redis lost booking events.
 *
 * Why a replay and not "mark everything unpublished again": the old way put a whole retained
 * day (tens of thousands of rows) into the stream oldest first, ahead of every event of the
 * live sale, and the edge had to read through all of it before a booking freed a slot. A
 * replay instead walks the retained rows NEWEST first, a bounded number per relay pass, after
 * the rows never published (the live lane), so the live sale's events and the ones lost just
 * before the crash reach the stream first and the old tail trickles in behind them.
 *
 * The progress lives in Redis beside the stream, not in PostgreSQL: it is exactly as durable as
 * what it restores (a Redis that loses the stream again loses the replay, and the epoch check
 * starts a new one), and the outbox table is not rewritten. Each replay has its own progress
 * key under a fresh token, so a relay finishing an old replay can never overwrite a new one.
 */
import type { ChainableCommander, Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { bookingEventsReplayKey } from '../../../lib/booking-events';

/** A finished or superseded replay's progress is kept this long, for someone looking into it. */
const FINISHED_REPLAY_TTL_MS = 86_400_000;

export interface Replay {
  token: string;
  /** Rows published in [fromMs, untilMs) (Unix ms) are sent again. */
  fromMs: number;
  untilMs: number;
  /** Newest first: the next step takes rows with an id below this; null = from the newest. */
  belowId: number | null;
}

/** What to replay, merged with a replay still running (its range is kept, its walk restarts at the newest). */
export function widenReplay(running: Replay | null, lost: { fromMs: number; untilMs: number }): Replay {
  return {
    token: randomUUID(),
    fromMs: Math.min(lost.fromMs, running?.fromMs ?? Infinity),
    untilMs: Math.max(lost.untilMs, running?.untilMs ?? -Infinity),
    belowId: null,
  };
}

export function parseReplay(token: string, fields: Record<string, string>): Replay | null {
  const fromMs = Number(fields.fromMs);
  const untilMs = Number(fields.untilMs);
  if (fields.done === '1' || !Number.isFinite(fromMs) || !Number.isFinite(untilMs)) return null;
  const belowId = fields.belowId === undefined ? null : Number(fields.belowId);
  return { token, fromMs, untilMs, belowId: Number.isSafeInteger(belowId) ? belowId : null };
}

export function redisReplayLedger(redis: Redis, keyPrefix: string) {
  const pointerKey = bookingEventsReplayKey(keyPrefix);
  const progressKey = (token: string) => `${pointerKey}:${token}`;
  return {
    pointerKey,
    /** The replay in progress, if any (one round trip more only when there is a pointer). */
    async readProgress(token: string | null): Promise<Replay | null> {
      return token ? parseReplay(token, await redis.hgetall(progressKey(token))) : null;
    },
    /** Queues the commands that start `next` into the caller's transaction (with the loss's acknowledgement). */
    queueStart(tx: ChainableCommander, next: Replay, superseded: Replay | null): ChainableCommander {
      tx.hset(progressKey(next.token), { fromMs: String(next.fromMs), untilMs: String(next.untilMs) }).set(
        pointerKey,
        next.token,
      );
      if (superseded) tx.pexpire(progressKey(superseded.token), FINISHED_REPLAY_TTL_MS);
      return tx;
    },
    /** Records how far the walk got; `null` = nothing older is left, the replay is done. */
    async advance(replay: Replay, belowId: number | null): Promise<void> {
      const key = progressKey(replay.token);
      if (belowId === null) await redis.multi().hset(key, 'done', '1').pexpire(key, FINISHED_REPLAY_TTL_MS).exec();
      else await redis.hset(key, 'belowId', String(belowId));
    },
  };
}
