import type { Sql } from 'postgres';
import type { BookingEvent, BookingEventType } from '../../../lib/booking-events';
import type { BookingEventSink } from '../events/event-sink';
import type { Replay } from '../events/replay-ledger';

/** Published outbox rows are kept this long: what a Redis that lost data can be sent again from. */
export const DEFAULT_OUTBOX_RETENTION_MS = 86_400_000;

/**
 * Marks rows published at or after `since` unpublished again, so the relay sends them once
 * more, oldest first, ahead of anything newer. Only the `oldest-first` catch-up does this (it
 * is how the relay once recovered, kept to show what the replay fixes).
 */
export async function requeuePublished(sql: Sql, since: Date): Promise<number> {
  const rows = await sql`
    UPDATE outbox SET published_at = NULL
     WHERE published_at IS NOT NULL AND published_at >= ${since}
    RETURNING 1`;
  return rows.length;
}

export interface RelayOptions {
  retentionMs?: number;
  /** Replayed rows at most per pass, after the live ones: what keeps a replay from burying the live sale. */
  replayPerPass?: number;
  replayBatchSize?: number;
  /**
   * `newest-first` (default): a replay behind the live lane (replay-ledger.ts). `oldest-first`:
   * the whole retained range requeued ahead of the live sale, for a test's broken variant.
   */
  catchUp?: 'newest-first' | 'oldest-first';
  onRequeue?: (why: string, rows: number) => void;
}

/**
 * One relay pass with recovery: asks the transport whether it lost anything (its history gone:
 * every retained event again; a consumer behind: everything since the time it names), then
 * publishes. Rows never published go first in every round (the live lane); a replay of what
 * was lost follows, newest first, at most `replayPerPass` rows a pass, so a live event waits
 * behind a bounded number of replayed ones whatever the size of the retained backlog.
 * Returns how many rows it published (live and replayed).
 */
export async function relayWithRecovery(sql: Sql, sink: BookingEventSink, options: RelayOptions = {}): Promise<number> {
  const retentionMs = options.retentionMs ?? DEFAULT_OUTBOX_RETENTION_MS;
  const check = await sink.checkDelivery?.({ retentionMs });
  let replay = check?.replay ?? null;
  if (check && (check.streamReset || check.republishFromMs !== null) && replay) {
    const why = check.streamReset ? 'stream reset' : 'consumer behind the stream';
    if (options.catchUp === 'oldest-first') {
      const requeued = await requeuePublished(sql, new Date(replay.fromMs));
      options.onRequeue?.(why, requeued);
      await sink.advanceReplay?.(replay, null);
      replay = null;
    } else {
      if (options.onRequeue) options.onRequeue(why, await countReplay(sql, replay));
    }
  }
  const replayPerPass = options.replayPerPass ?? DEFAULT_REPLAY_PER_PASS;
  let total = 0;
  let replayed = 0;
  for (;;) {
    const live = await relayOutbox(sql, sink);
    let more = 0;
    if (replay && replayed < replayPerPass) {
      const step = await replayStep(
        sql,
        sink,
        replay,
        Math.min(options.replayBatchSize ?? 500, replayPerPass - replayed),
      );
      replay = step.next;
      more = step.published;
    }
    total += live + more;
    replayed += more;
    if (live === 0 && more === 0) return total;
  }
}

/** Replayed rows a pass may add to the stream (a pass every relayEveryMs, 200 ms by default). */
export const DEFAULT_REPLAY_PER_PASS = 2_000;

/**
 * Publishes the next rows of a replay, newest first, and records how far it got. Rows not yet
 * published are left to the live lane; rows published again meanwhile are sent twice, which
 * consumers dedupe on eventId.
 */
export async function replayStep(
  sql: Sql,
  sink: BookingEventSink,
  replay: Replay,
  batchSize: number,
): Promise<{ published: number; next: Replay | null }> {
  const rows = await sql<OutboxRow[]>`
    SELECT id, event_id, type, showtime_id, payload, created_at FROM outbox
     WHERE published_at >= ${new Date(replay.fromMs)} AND published_at < ${new Date(replay.untilMs)}
       AND id < ${replay.belowId ?? Number.MAX_SAFE_INTEGER}
     ORDER BY id DESC
     LIMIT ${batchSize}`;
  if (rows.length === 0) {
    await sink.advanceReplay?.(replay, null);
    return { published: 0, next: null };
  }
  await sink.publish(rows.map(toEvent), { replayed: true });
  const belowId = rows.at(-1)!.id;
  await sink.advanceReplay?.(replay, belowId);
  return { published: rows.length, next: { ...replay, belowId } };
}

async function countReplay(sql: Sql, replay: Replay): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*) AS n FROM outbox WHERE published_at >= ${new Date(replay.fromMs)} AND published_at < ${new Date(replay.untilMs)}`;
  return row?.n ?? 0;
}

interface OutboxRow {
  id: number;
  event_id: string;
  type: BookingEventType;
  showtime_id: number;
  payload: Record<string, unknown>;
  created_at: Date;
}

function toEvent(row: OutboxRow): BookingEvent {
  return {
    eventId: row.event_id,
    type: row.type,
    showtimeId: row.showtime_id,
    occurredAt: row.created_at.toISOString(),
    payload: row.payload,
  };
}

/**
 * Publishes unpublished outbox rows at least once. Rows are chosen by `published_at IS NULL`
 * (never "id > last published id"), so a transaction that commits after a higher id was
 * already published is still picked up on the next pass. The rows stay locked (SKIP LOCKED)
 * while they are published, so two relays never publish the same batch at the same time; a
 * relay killed between publishing and marking leaves them unmarked, and they are published
 * again: consumers dedupe on eventId.
 */
export async function relayOutbox(sql: Sql, sink: BookingEventSink, batchSize = 200): Promise<number> {
  return sql.begin(async (tx) => {
    const rows = await tx<OutboxRow[]>`
      SELECT id, event_id, type, showtime_id, payload, created_at FROM outbox
       WHERE published_at IS NULL
       ORDER BY id
       LIMIT ${batchSize}
         FOR UPDATE SKIP LOCKED`;
    if (rows.length === 0) return 0;
    const events = rows.map(toEvent);
    await sink.publish(events);
    await tx`UPDATE outbox SET published_at = now() WHERE id = ANY(${tx.array(rows.map((r) => r.id))}::bigint[])`;
    return rows.length;
  });
}
