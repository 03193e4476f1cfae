import type { Sql } from 'postgres';
import type { BookingEvent, BookingEventType } from '../../../lib/booking-events';
import type { BookingEventSink } from '../events/event-sink';

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
