/**
 * The fields of every script's reply, named once, in reply order. Lua answers with flat
 * arrays (`{1, ticket, sessionExpiresAtMs, alreadyAdmitted}`); the engine reads them by name
 * through `readReply`, and the in-process twins (memory/) build theirs with `buildReply`, so a
 * field added to a script is added here and both sides follow. The list is checked against
 * the scripts themselves: queue/test/reply-shapes.test.ts runs every script on Redis and on
 * the twin and compares the replies field by field.
 *
 * A reply opens with a status: 1, or a negative refusal code (codes.ts), which is then the
 * whole reply. `take` is the exception: its first field is the decision (1 allowed, 0 not).
 * `rest` names what follows the fixed fields in a reply of variable length.
 */
import type { ScriptName } from './scripts.gen';

/** Where a buyer stands: the describe() reply of join and poll (lua/includes/describe.lua). */
const STANDING_FIELDS = [
  'state',
  'ticket',
  'position',
  'expiresAtMs',
  'lineLength',
  'preLength',
  'admitsInWindow',
  'rateWindowMs',
  'nowMs',
  'roomState',
  'opensAtMs',
  'admitPerMinute',
  'abandonGraceMs',
  'capacity',
  /** What the wait estimate learned (decayed sums, see lua/includes/room.lua learnBusy/learnTurns). */
  'busyMs',
  'busyAdmitsMilli',
  'turnsEnded',
  'turnMs',
  /** How many the next admission step would offer at once (free slots, banked budget, window). */
  'headStart',
  /** Until the one-minute window lets this position in (-1: beyond the window's log). */
  'windowWaitMs',
  /** Mean time from offer to claim (the slot is taken from the offer on; learnClaim). */
  'claimGapMs',
  /** Running turns older than the mean of the ended ones, counted at their age so far (learnRunning). */
  'runningTurns',
  'runningTurnMs',
  /** The rate in force, in thousandths (the closed loop's may be fractional; replies carry integers). */
  'ratePerMinuteMilli',
  /** What the admission bucket holds now, in thousandths (refilled to now, capped at the burst), and the slots free. */
  'bucketTokensMilli',
  'freeSlots',
] as const;

export const REPLY_FIELDS = {
  join: { status: true, fields: STANDING_FIELDS, rest: null },
  poll: { status: true, fields: STANDING_FIELDS, rest: null },
  /** A join answered with the buyer's own place only (lua/enter-11.lua): the caller knows the room. */
  enter: { status: true, fields: ['state', 'ticket', 'position', 'expiresAtMs', 'nowMs', 'roomState'], rest: null },
  claim: { status: true, fields: ['ticket', 'sessionExpiresAtMs', 'alreadyAdmitted'], rest: null },
  tick: { status: true, fields: ['offered', 'skipped', 'roomState'], rest: null },
  release: { status: true, fields: ['freed', 'offered'], rest: null },
  leave: { status: true, fields: ['removed', 'offered'], rest: null },
  configure: { status: true, fields: ['state', 'applied'], rest: null },
  restore: { status: true, fields: ['restored'], rest: null },
  govern: { status: true, fields: ['written'], rest: null },
  /** Support's lookup of a ticket in line: customer '' (and position 0) when no one waits with it. */
  find: { status: true, fields: ['customer', 'position', 'lineLength', 'preLength'], rest: null },
  inspect: {
    status: true,
    fields: [
      'nowMs',
      'preLength',
      'lineLength',
      'offered',
      'active',
      'admitsInWindow',
      'headTicket',
      'tailTicket',
      'cfg',
      'stats',
    ],
    rest: null,
  },
  prequeue: { status: true, fields: ['roomState', 'seed', 'total', 'drawNext'], rest: 'members' },
  draw: { status: true, fields: ['drawNext', 'done', 'placed'], rest: null },
  /** add/remove: one value, how many changed; list: the registered showtime ids. */
  registry: { status: true, fields: [], rest: 'values' },
  /** record: one value, the entries kept; list: showtime id, entry, showtime id, entry… */
  history: { status: true, fields: [], rest: 'values' },
  /** read: the entries, oldest first; trim: one value, the entries dropped. */
  journal: { status: true, fields: [], rest: 'values' },
  /**
   * The seat gate (lua/gate-*.lua). gateClaim's decision: 1 claimed, 0 taken, 2 over the
   * per-customer limit, 3 unknown seats; `seats` lists the taken or unknown ones.
   */
  gateClaim: { status: true, fields: ['decision', 'expiresAtMs', 'owned', 'maxPerCustomer'], rest: 'seats' },
  gateRelease: { status: true, fields: ['freed'], rest: null },
  gateApply: { status: true, fields: ['changed', 'duplicate'], rest: null },
  gateSync: { status: true, fields: ['changed', 'wasReady'], rest: null },
  take: {
    status: false,
    fields: ['allowed', 'retryAfterMs', 'customerTokensLeft', 'showtimeTokensLeft', 'admission'],
    rest: null,
  },
} as const satisfies Record<ScriptName, { status: boolean; fields: readonly string[]; rest: string | null }>;

export type ReplyField<N extends ScriptName> = (typeof REPLY_FIELDS)[N]['fields'][number];

/** A value as a script returns it: an integer, a string, or a nested flat list. */
export type ReplyValue = number | string | ReplyValue[];

/** A success reply by name; `rest` holds what follows the fixed fields (empty if nothing). */
export type NamedReply<N extends ScriptName> = { readonly [K in ReplyField<N>]: unknown } & {
  readonly rest: unknown[];
};

export function readReply<N extends ScriptName>(name: N, reply: unknown[]): NamedReply<N> {
  const layout = REPLY_FIELDS[name];
  const first = layout.status ? 1 : 0;
  const named: Record<string, unknown> = { rest: reply.slice(first + layout.fields.length) };
  layout.fields.forEach((field: string, i: number) => {
    named[field] = reply[first + i];
  });
  return named as NamedReply<N>;
}

/** The flat reply a script gives for these values (status 1 first, where the script has one). */
export function buildReply<N extends ScriptName>(
  name: N,
  values: { readonly [K in ReplyField<N>]: ReplyValue },
  rest: readonly ReplyValue[] = [],
): ReplyValue[] {
  const layout = REPLY_FIELDS[name];
  const byName = values as Record<string, ReplyValue>;
  return [
    ...(layout.status ? [1] : []),
    ...layout.fields.map((field: string) => asRedisReply(byName[field]!)),
    ...rest.map(asRedisReply),
  ];
}

/** A Lua number reaches the caller as a Redis integer, cut toward zero: the twins' replies do the same. */
function asRedisReply(value: ReplyValue): ReplyValue {
  if (typeof value === 'number') return Math.trunc(value);
  return Array.isArray(value) ? value.map(asRedisReply) : value;
}
