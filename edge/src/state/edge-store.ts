/**
 * The few Redis keys the edge keeps besides the queue's own (queue/src/keys.ts): the
 * booking-event cursor and the event dedupe marks. The operator audit log is not here: it
 * lives in PostgreSQL with the sale state (core/src/sale/). One narrow port, three
 * implementations: ioredis (Node), Upstash REST (Workers) and in-process (embedded `npm start`).
 */
import { bookingEventsRepublishKey, bookingEventsStreamKey } from '../../../lib/booking-events';

export interface StreamEntry {
  id: string;
  fields: string[];
}

export interface EdgeStore {
  /** Entries of the booking-events stream after `afterId` ("0" = from the start). */
  readEvents(afterId: string, count: number): Promise<StreamEntry[]>;
  getCursor(consumer: string): Promise<string | null>;
  setCursor(consumer: string, id: string): Promise<void>;
  /** True the first time an event id is marked; false for a redelivery. */
  markSeen(eventId: string, ttlMs: number): Promise<boolean>;
  /** Undoes markSeen when applying the event failed, so a later read applies it. */
  forgetSeen(eventId: string): Promise<void>;
  /** Id of the stream's newest entry, "0-0" when the stream is empty or gone. */
  lastEventId(): Promise<string>;
  /** Asks the core's relay to publish again what it published since `fromMs` (Unix ms). */
  requestRepublish(fromMs: number): Promise<void>;
  ping(): Promise<void>;
}

/** One Redis command in, its raw reply out (ioredis `call`, or one Upstash REST request). */
export type RedisCommand = (args: string[]) => Promise<unknown>;

export function edgeKeys(prefix: string) {
  return {
    cursor: (consumer: string) => `${prefix}wr:edge:cursor:${consumer}`,
    seen: (eventId: string) => `${prefix}wr:edge:seen:${eventId}`,
    stream: bookingEventsStreamKey(prefix),
    republish: bookingEventsRepublishKey(prefix),
  };
}

function parseStreamReply(reply: unknown): StreamEntry[] {
  // XREAD: [[stream, [[id, [field, value, …]], …]]] or null when nothing is new.
  if (!Array.isArray(reply) || reply.length === 0) return [];
  const entries = (reply[0] as unknown[])[1];
  if (!Array.isArray(entries)) return [];
  return entries.map((entry) => {
    const [id, fields] = entry as [unknown, unknown];
    return { id: String(id), fields: Array.isArray(fields) ? fields.map(String) : [] };
  });
}

export function createRedisEdgeStore(command: RedisCommand, prefix = ''): EdgeStore {
  const keys = edgeKeys(prefix);
  return {
    async readEvents(afterId, count) {
      return parseStreamReply(await command(['XREAD', 'COUNT', String(count), 'STREAMS', keys.stream, afterId]));
    },
    async getCursor(consumer) {
      const reply = await command(['GET', keys.cursor(consumer)]);
      return reply === null || reply === undefined ? null : String(reply);
    },
    async setCursor(consumer, id) {
      await command(['SET', keys.cursor(consumer), id]);
    },
    async markSeen(eventId, ttlMs) {
      const reply = await command(['SET', keys.seen(eventId), '1', 'NX', 'PX', String(ttlMs)]);
      return reply === 'OK';
    },
    async forgetSeen(eventId) {
      await command(['DEL', keys.seen(eventId)]);
    },
    async lastEventId() {
      const reply = await command(['XREVRANGE', keys.stream, '+', '-', 'COUNT', '1']);
      const newest = Array.isArray(reply) ? (reply[0] as unknown[] | undefined) : undefined;
      return newest ? String(newest[0]) : '0-0';
    },
    async requestRepublish(fromMs) {
      await command(['ZADD', keys.republish, String(fromMs), String(fromMs)]);
    },
    async ping() {
      await command(['PING']);
    },
  };
}

/** Upstash's REST protocol: POST the command as a JSON array, read `{result}` or `{error}`. */
export function upstashRestCommand(url: string, token: string, fetchImpl: typeof fetch = fetch): RedisCommand {
  const endpoint = url.replace(/\/+$/, '');
  return async (args) => {
    const response = await fetchImpl(endpoint, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(args),
    });
    const body = (await response.json()) as { result?: unknown; error?: string };
    if (body.error !== undefined) throw new Error(body.error);
    return body.result ?? null;
  };
}
