/**
 * What must hold after every fault, read from the database (the arbiter), the event stream and
 * the room: the money-and-seats invariants of `loadtest/invariants.ts`, plus what a fault can
 * leave behind (holds stuck past expiry, an outbox backlog, lost events, a room over its cap,
 * settings that changed without an operator).
 */
import type { Redis } from 'ioredis';
import type { Sql } from 'postgres';
import { edgeKeys } from '../edge/src/state/edge-store';
import { checkInvariants } from '../loadtest/invariants';

export interface FaultInvariants {
  oversold: number;
  paidWithoutSeatOrRefund: number;
  doubleCharges: number;
  holdsStuckPastExpiry: number;
  outboxBacklog: number;
  eventsLost: number;
  admittedAboveCap: number;
  roomSettingsChanged: number;
  /** Holds and payments a buyer was told were created (201) that the database does not have. */
  acknowledgedWritesLost: number;
}

export const INVARIANT_LABELS: Record<keyof FaultInvariants, string> = {
  oversold: 'oversold',
  paidWithoutSeatOrRefund: 'paid w/o seat or refund',
  doubleCharges: 'double charges',
  holdsStuckPastExpiry: 'holds stuck past expiry',
  outboxBacklog: 'outbox backlog',
  eventsLost: 'events lost',
  admittedAboveCap: 'admitted above cap',
  roomSettingsChanged: 'room settings changed',
  acknowledgedWritesLost: 'acknowledged writes lost',
};

/** The operator's settings as the edge's admin API shows them (the fields an operator sets). */
export type RoomSettings = Record<string, unknown>;

/**
 * Settings that changed without an operator. A room whose every seat was sold during the run
 * (`soldOut`: the database says so) is told `sold_out` by the sale itself, not by a fault.
 */
export function settingsDifferences(before: RoomSettings | null, after: RoomSettings | null, { soldOut = false } = {}): string[] {
  if (!before || !after) return [before ? 'room settings unreadable after the fault' : 'room settings unreadable before the fault'];
  const fields = ['capacity', 'admitPerMinute', 'sessionTtlSeconds', 'state', 'powDifficulty'];
  const endedBySale = (field: string) => field === 'state' && soldOut && after.state === 'sold_out';
  return fields.filter((field) => field in before && JSON.stringify(before[field]) !== JSON.stringify(after[field]) && !endedBySale(field))
    .map((field) => `${field}: ${JSON.stringify(before[field])} → ${JSON.stringify(after[field])}`);
}

/** Whether every seat of the showtime is booked (the core marks the moment on the showtime). */
export async function showtimeSoldOut(sql: Sql, showtimeId: number): Promise<boolean> {
  const [row] = await sql<{ soldOut: boolean }[]>`SELECT sold_out_at IS NOT NULL AS "soldOut" FROM showtime WHERE id = ${showtimeId}`;
  return row?.soldOut ?? false;
}

/** Durable room settings, when the schema has them (a `room_settings` table); null otherwise. */
export async function durableRoomSettings(sql: Sql, showtimeId: number): Promise<Record<string, unknown> | null> {
  const [exists] = await sql<{ present: boolean }[]>`SELECT to_regclass('room_settings') IS NOT NULL AS present`;
  if (!exists?.present) return null;
  // The operator's values and their version; updated_at alone may move when a copy is restored.
  const [row] = await sql<Record<string, unknown>[]>`SELECT settings, version FROM room_settings WHERE showtime_id = ${showtimeId}`;
  return row ?? null;
}

/**
 * Published events of the showtime the edge has not applied. The edge's consumer marks every
 * event it handles (`wr:edge:seen:<eventId>`, its dedupe mark), so a mark missing after the
 * jobs settled means an event that reached the stream, or should have, never reached the room:
 * the slot of a buyer who booked would stay taken. Empty when Redis is unreadable.
 */
export async function eventsNotAppliedByEdge(sql: Sql, redis: Redis, showtimeId: number, keyPrefix = ''): Promise<string[]> {
  const rows = await sql<{ event_id: string }[]>`
    SELECT event_id::text FROM outbox WHERE showtime_id = ${showtimeId} AND published_at IS NOT NULL ORDER BY id`;
  if (rows.length === 0) return [];
  const keys = edgeKeys(keyPrefix);
  const pipeline = redis.pipeline();
  for (const row of rows) pipeline.exists(keys.seen(row.event_id));
  const replies = (await pipeline.exec()) ?? [];
  return rows.filter((_, index) => replies[index]?.[1] !== 1).map((row) => row.event_id);
}

export async function readFaultInvariants(
  sql: Sql,
  showtimeId: number,
  context: {
    redis: Redis | null; maxActiveSeen: number; capacity: number; settingsChanged: string[]; staleAfterSeconds: number;
    /** Published events the edge never applied (see eventsNotAppliedByEdge). */
    notAppliedByEdge: string[];
    acknowledged: { holdIds: string[]; paymentIds: string[] };
  },
): Promise<{ figures: FaultInvariants; details: string[] }> {
  const base = await checkInvariants(sql, { showtimeIds: [showtimeId], ...(context.redis ? { redis: { client: context.redis } } : {}) });
  const details = [...base.breaches];
  const stale = `${context.staleAfterSeconds} seconds`;
  const [row] = await sql<{ double_charges: number; stuck: number; backlog: number }[]>`
    SELECT (SELECT count(*) FROM (SELECT hold_id FROM payment WHERE showtime_id = ${showtimeId} AND status = 'SUCCEEDED'
                                   GROUP BY hold_id HAVING count(*) > 1) twice)::int AS double_charges,
           (SELECT count(*) FROM seat_hold WHERE showtime_id = ${showtimeId} AND status = 'ACTIVE'
               AND expires_at < now() - ${stale}::interval)::int AS stuck,
           (SELECT count(*) FROM outbox WHERE published_at IS NULL AND created_at < now() - ${stale}::interval)::int AS backlog`;
  const [kept] = await sql<{ holds: number; payments: number }[]>`
    SELECT (SELECT count(*) FROM seat_hold WHERE id = ANY(${context.acknowledged.holdIds}::uuid[]))::int AS holds,
           (SELECT count(*) FROM payment WHERE id = ANY(${context.acknowledged.paymentIds}::text[]))::int AS payments`;
  const lostWrites = context.acknowledged.holdIds.length - kept!.holds + context.acknowledged.paymentIds.length - kept!.payments;
  if (lostWrites) details.push(`acknowledged but missing: ${context.acknowledged.holdIds.length - kept!.holds} holds, ${context.acknowledged.paymentIds.length - kept!.payments} payments`);
  const all = base.breaches.join('\n');
  const countOf = (pattern: RegExp) => Number(pattern.exec(all)?.[1] ?? 0);
  // loadtest/invariants.ts words its breaches; the seat ones name seats, BOOKED rows or the hall.
  const seatBreaches = base.breaches.filter((b) => /seat|hall|BOOKED/.test(b) && !/payment|outbox|stream/.test(b));
  const figures: FaultInvariants = {
    oversold: seatBreaches.length,
    paidWithoutSeatOrRefund: countOf(/neither booking nor refund: (\d+)/),
    doubleCharges: row!.double_charges,
    holdsStuckPastExpiry: row!.stuck,
    outboxBacklog: row!.backlog,
    // Published confirmations missing from the stream, bookings whose event was never written,
    // and published events the edge never applied to the room.
    eventsLost: countOf(/missing from the stream: (\d+)/) + countOf(/without their event in the outbox: (\d+)/) + context.notAppliedByEdge.length,
    admittedAboveCap: Math.max(0, context.maxActiveSeen - context.capacity),
    roomSettingsChanged: context.settingsChanged.length,
    acknowledgedWritesLost: lostWrites,
  };
  if (row!.double_charges) details.push(`holds paid twice without a refund: ${row!.double_charges}`);
  if (row!.stuck) details.push(`ACTIVE holds more than ${stale} past expiry: ${row!.stuck}`);
  if (row!.backlog) details.push(`outbox rows unpublished for more than ${stale}: ${row!.backlog}`);
  if (context.notAppliedByEdge.length) details.push(`published events the edge never applied: ${context.notAppliedByEdge.length} (first ${context.notAppliedByEdge[0]})`);
  if (figures.admittedAboveCap) details.push(`room had ${context.maxActiveSeen} admitted at once, capacity ${context.capacity}`);
  details.push(...context.settingsChanged.map((change) => `room setting changed: ${change}`));
  return { figures, details };
}
