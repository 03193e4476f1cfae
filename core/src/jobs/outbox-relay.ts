import type { Sql } from 'postgres';
import type { BookingEvent, BookingEventType } from '../../../lib/booking-events';
import type { BookingEventSink } from '../events/event-sink';

/** Published outbox rows are kept this long: what a Redis that lost data can be sent again from. */
export const DEFAULT_OUTBOX_RETENTION_MS = 86_400_000;

/**
 * Marks rows published at or after `since` unpublished again, so the relay sends them once
 * more (consumers dedupe on eventId). Used when the stream lost what it had accepted.
 */
export async function requeuePublished(sql: Sql, since: Date): Promise<number> {
  const rows = await sql`
    UPDATE outbox SET published_at = NULL
     WHERE published_at IS NOT NULL AND published_at >= ${since}
    RETURNING 1`;
  return rows.length;
}

/**
 * One relay pass with recovery: first asks the transport whether it lost anything (its
 * history gone → every retained event again; a consumer behind → everything since the time it
 * names), then publishes what is unpublished. Returns how many rows it published.
 */
export async function relayWithRecovery(
  sql: Sql,
  sink: BookingEventSink,
  options: { retentionMs?: number; onRequeue?: (why: string, rows: number) => void } = {},
): Promise<number> {
  const check = await sink.checkDelivery?.();
  if (check?.streamReset) {
    const rows = await requeuePublished(sql, new Date(Date.now() - (options.retentionMs ?? DEFAULT_OUTBOX_RETENTION_MS)));
    options.onRequeue?.('stream reset', rows);
  }
  if (check?.republishFromMs !== null && check?.republishFromMs !== undefined) {
    const rows = await requeuePublished(sql, new Date(check.republishFromMs));
    options.onRequeue?.('consumer behind the stream', rows);
  }
  let total = 0;
  for (let published = -1; published !== 0; total += published) published = await relayOutbox(sql, sink);
  return total;
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
    const rows = await tx<{ id: number; event_id: string; type: BookingEventType; showtime_id: number; payload: Record<string, unknown>; created_at: Date }[]>`
      SELECT id, event_id, type, showtime_id, payload, created_at FROM outbox
       WHERE published_at IS NULL
       ORDER BY id
       LIMIT ${batchSize}
         FOR UPDATE SKIP LOCKED`;
    if (rows.length === 0) return 0;
    const events: BookingEvent[] = rows.map((row) => ({
      eventId: row.event_id,
      type: row.type,
      showtimeId: row.showtime_id,
      occurredAt: row.created_at.toISOString(),
      payload: row.payload,
    }));
    await sink.publish(events);
    await tx`UPDATE outbox SET published_at = now() WHERE id = ANY(${tx.array(rows.map((r) => r.id))}::bigint[])`;
    return rows.length;
  });
}
