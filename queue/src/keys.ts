/**
 * Every Redis key the waiting room uses is built here and nowhere else.
 *
 * Per-showtime keys share the hash tag `{show:<id>}` so one showtime lives in one Redis
 * Cluster slot and a Lua script may touch all of them. The optional prefix goes in FRONT of
 * the key (`t:run:ns:wr:{show:42}:line`) so tests and benchmarks get their own namespace
 * without changing the tag.
 */

/**
 * The keys of one room, in the order every room script receives them as KEYS[1..10].
 * Changing this order means changing the header of every `*-10.lua` script.
 */
export const ROOM_KEY_NAMES = [
  'cfg', // hash: operator settings, state, commit-reveal seed
  'pre', // zset (all scores 0, so ordered by customer id): pre-queue before opening
  'line', // zset customer -> ticket: waiting buyers in arrival order
  'offers', // zset customer -> offer expiry ms: places offered, not yet claimed
  'active', // zset customer -> session expiry ms: admitted buyers holding a slot
  'who', // hash customer -> ticket: the customer's current place, for idempotent join
  'beat', // hash customer -> last heartbeat ms
  'admits', // zset ticket -> offer time ms: admissions of the last minute (rate window)
  'stats', // hash: ticket sequence, admission bucket, counters, open/draw bookkeeping
  'journal', // list: fairness journal entries waiting for the core to copy them (lua/includes/journal.lua)
] as const;

export type RoomKeyName = (typeof ROOM_KEY_NAMES)[number];

const SHOWTIME_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Showtime ids end up inside key names: keep them to a safe alphabet (no braces). */
export function isValidShowtimeId(showtimeId: string): boolean {
  return SHOWTIME_ID.test(showtimeId);
}

export { isValidCustomerId } from '../../lib/customer-id';

export interface RoomKeys {
  /** KEYS for the room scripts, in ROOM_KEY_NAMES order. */
  readonly room: string[];
  /** The cfg hash alone (KEYS[1] of the bucket script, for per-showtime overrides). */
  readonly cfg: string;
  /** Live admission sessions (KEYS[4] of the bucket script). */
  readonly active: string;
  /** List of fairness journal entries the core copies into the admission log (queue/src/fairness-journal.ts). */
  readonly journal: string;
  /**
   * One client address's places and churn in this room (KEYS[11] of the join scripts, see
   * lua/includes/join.lua). `address` is what limits count by (an IPv6 client's network).
   */
  readonly address: (address: string) => string;
  /** KEYS of the join scripts: the room's, then the address's. */
  readonly joining: (address: string) => string[];
  /** Customer -> ticket (KEYS[5] of the bucket script: which session is the current one). */
  readonly who: string;
  /**
   * Token buckets. The edge and the core each keep their own pair (`scope`), so a request
   * that passes both is charged once in each, and a caller who skips the edge meets the same
   * limits at the core.
   */
  readonly customerBucket: (customerId: string, scope?: BucketScope) => string;
  readonly showtimeBucket: string;
  readonly showtimeBucketFor: (scope: BucketScope) => string;
}

export type BucketScope = 'edge' | 'core';
const bucketInfix = (scope: BucketScope = 'edge') => (scope === 'edge' ? 'tb' : 'tb:core');

/**
 * The seat gate's keys for one showtime (lua/includes/gate.lua), in the order every gate
 * script receives them as KEYS[1..5]. Same hash tag as the room: one showtime, one slot.
 */
export const GATE_KEY_NAMES = ['meta', 'seats', 'lapse', 'owned', 'seen'] as const;

export interface KeyBuilder {
  readonly prefix: string;
  forShowtime(showtimeId: string): RoomKeys;
  /** KEYS of the gate scripts for a showtime, in GATE_KEY_NAMES order. */
  forGate(showtimeId: string): string[];
  /** Where the core's gate keeps its position in the booking-events stream (shared by its instances). */
  readonly gateEventsCursor: string;
  /** Set of showtime ids the ticker drives. Not hash-tagged: touched only by its own scripts. */
  readonly registry: string;
  /** Hash showtime id -> how long its turns lasted (queue/src/turn-history.ts). Not hash-tagged, like the registry. */
  readonly turnHistory: string;
}

const ADDRESS_KEY_PART = /^[0-9A-Za-z.:/_-]{1,64}$/;

/**
 * An address (or network) as it goes into a key name: as it is when it is plainly one, else
 * a short digest, so no caller can put braces (a hash tag) or an unbounded string into a key.
 * '' (no address: not counted) gets a key of its own that the scripts never write.
 */
function addressKeyPart(address: string): string {
  if (address === '') return '-';
  if (ADDRESS_KEY_PART.test(address)) return address;
  let hash = 0x811c9dc5; // FNV-1a: a spread, not a secret
  for (let i = 0; i < address.length; i++) hash = Math.imul(hash ^ address.charCodeAt(i), 0x01000193);
  return `~${(hash >>> 0).toString(16)}`;
}

/** Showtimes whose keys a builder keeps made (every join and poll asks; few showtimes sell at once). */
const KEPT_SHOWTIMES = 1_000;

export function createKeyBuilder(prefix = ''): KeyBuilder {
  const kept = new Map<string, RoomKeys>();
  return {
    prefix,
    registry: `${prefix}wr:rooms`,
    turnHistory: `${prefix}wr:turn-history`,
    gateEventsCursor: `${prefix}gate:events:cursor`,
    forGate(showtimeId) {
      if (!isValidShowtimeId(showtimeId)) throw new RangeError(`invalid showtime id: ${showtimeId}`);
      return GATE_KEY_NAMES.map((name) => `${prefix}gate:{show:${showtimeId}}:${name}`);
    },
    forShowtime(showtimeId) {
      const known = kept.get(showtimeId);
      if (known) return known;
      if (!isValidShowtimeId(showtimeId)) throw new RangeError(`invalid showtime id: ${showtimeId}`);
      const base = `${prefix}wr:{show:${showtimeId}}:`;
      const room = Object.freeze(ROOM_KEY_NAMES.map((name) => `${base}${name}`)) as string[];
      const keys: RoomKeys = Object.freeze({
        room,
        cfg: `${base}cfg`,
        active: `${base}active`,
        journal: `${base}journal`,
        address: (address: string) => `${base}addr:${addressKeyPart(address)}`,
        joining: (address: string) => [...room, `${base}addr:${addressKeyPart(address)}`],
        who: `${base}who`,
        customerBucket: (customerId: string, scope?: BucketScope) => `${base}${bucketInfix(scope)}:c:${customerId}`,
        showtimeBucket: `${base}tb:show`,
        showtimeBucketFor: (scope: BucketScope) => `${base}${bucketInfix(scope)}:show`,
      });
      if (kept.size >= KEPT_SHOWTIMES) kept.clear();
      kept.set(showtimeId, keys);
      return keys;
    },
  };
}
