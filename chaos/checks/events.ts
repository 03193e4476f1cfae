/**
 * Events: every booking wrote its event, every published confirmation is in the stream, the
 * edge applied every published event of the showtime (its dedupe mark), and the outbox drained.
 */
import type { Redis } from 'ioredis';
import type { Sql } from 'postgres';
import { edgeKeys } from '../../edge/src/state/edge-store';
import { checkInvariants } from '../../loadtest/invariants';
import type { Check } from './check';

export interface EventContext {
  sql: Sql;
  redis: Redis;
  showtimeId: number;
  /** The deployment's Redis key prefix ('' by default). */
  keyPrefix?: string;
  staleAfterSeconds: number;
}

/**
 * Published events of the showtime the edge has not applied. The edge's consumer marks every
 * event it handles (`wr:edge:seen:<eventId>`), so a mark missing after the jobs settled means
 * an event that reached the stream, or should have, never reached the room: the slot of a
 * buyer who booked would stay taken.
 */
export async function eventsNotAppliedByEdge(
  sql: Sql,
  redis: Redis,
  showtimeId: number,
  keyPrefix = '',
): Promise<string[]> {
  const rows = await sql<{ event_id: string }[]>`
    SELECT event_id::text FROM outbox WHERE showtime_id = ${showtimeId} AND published_at IS NOT NULL ORDER BY id`;
  if (rows.length === 0) return [];
  const keys = edgeKeys(keyPrefix);
  const pipeline = redis.pipeline();
  for (const row of rows) pipeline.exists(keys.seen(row.event_id));
  const replies = await pipeline.exec();
  if (!replies) throw new Error('Redis answered no pipeline');
  for (const [error] of replies) if (error) throw error;
  return rows.filter((_, index) => replies[index]?.[1] !== 1).map((row) => row.event_id);
}

export const eventCheck: Check<EventContext> = {
  name: 'events',
  async run({ sql, redis, showtimeId, keyPrefix = '', staleAfterSeconds }) {
    const { counts } = await checkInvariants(sql, { showtimeIds: [showtimeId], redis: { client: redis, keyPrefix } });
    const notApplied = await eventsNotAppliedByEdge(sql, redis, showtimeId, keyPrefix);
    const [row] = await sql<{ backlog: number }[]>`
      SELECT count(*)::int AS backlog FROM outbox
       WHERE published_at IS NULL AND created_at < now() - ${`${staleAfterSeconds} seconds`}::interval`;
    return {
      bookingsWithoutEvent: counts.bookingsWithoutEvent,
      eventsMissingFromStream: counts.eventsMissingFromStream,
      eventsNotAppliedByEdge: notApplied.length,
      outboxBacklog: row!.backlog,
    };
  },
};
