/**
 * The seat gate's scripts (lua/gate-*.lua) as calls with decisions for answers. The gate keeps,
 * per showtime, what Redis believes of each seat (free, held until a time, sold) and each
 * customer's count, so that a crowd on one seat is mostly answered here and only one buyer at
 * a time goes on to the database, which stays the arbiter. The rules of when to claim, undo,
 * rebuild and trust the gate live with its user (core/src/gate/); this module only speaks the
 * scripts' protocol.
 */
import { RefusalCode } from './codes';
import { createKeyBuilder, isValidCustomerId, isValidShowtimeId } from './keys';
import { readReply } from './reply-fields';
import { scripts } from './scripts.gen';
import { runScript, type ScriptStore } from './store';

export type GateClaimDecision =
  /** Every seat was free and the customer within the limit: claimed until `expiresAtMs` (Redis clock). */
  | { kind: 'claimed'; expiresAtMs: number; owned: number; maxPerCustomer: number }
  /** Some seats are held or sold (those listed): nothing claimed. */
  | { kind: 'taken'; seats: string[] }
  /** The customer already has `owned` seats: these would pass the showtime's limit. Nothing claimed. */
  | { kind: 'over_limit'; owned: number; maxPerCustomer: number }
  /** The gate does not know these seats (not in the hall, or part of the gate lost): nothing claimed. */
  | { kind: 'unknown_seats'; seats: string[] }
  /** The gate has not been built for this showtime (never, or Redis lost it). */
  | { kind: 'not_built' };

/** What the database did to a seat, told to the gate (booking events, or a refusal's repair). */
export type GateOp =
  | { op: 'held'; seat: string; expiresAtMs: number; holdId: string; customerId: string }
  | { op: 'sold'; seat: string; bookingId: string; customerId: string }
  | { op: 'freehold'; seat: string; holdId: string }
  | { op: 'freebooking'; seat: string; bookingId: string }
  | { op: 'free'; seat: string };

/** A seat as the database has it, for building the gate. */
export type GateSeatState =
  | { seat: string; state: 'A' }
  | { seat: string; state: 'H'; expiresAtMs: number; holdId: string; customerId: string }
  | { seat: string; state: 'S'; bookingId: string; customerId: string };

export interface GateSyncInput {
  maxPerCustomer: number;
  holdTtlMs: number;
  /**
   * A seat the gate wrote within this long (a claim in flight, a release, an event, a repair) is
   * left as it is: the caller's read of the database may be older than that write.
   */
  pendingGraceMs: number;
  /** Every gate key lives this long after its last build (a showtime long over leaves nothing). */
  keyTtlMs: number;
  seats: GateSeatState[];
}

const DECISIONS = { 1: 'claimed', 0: 'taken', 2: 'over_limit', 3: 'unknown_seats' } as const;

function opArgs(op: GateOp): string[] {
  switch (op.op) {
    case 'held':
      return ['held', op.seat, String(op.expiresAtMs), op.holdId, op.customerId];
    case 'sold':
      return ['sold', op.seat, op.bookingId, op.customerId, ''];
    case 'freehold':
      return ['freehold', op.seat, op.holdId, '', ''];
    case 'freebooking':
      return ['freebooking', op.seat, op.bookingId, '', ''];
    case 'free':
      return ['free', op.seat, '', '', ''];
  }
}

function seatArgs(seat: GateSeatState): string[] {
  if (seat.state === 'H') return [seat.seat, 'H', String(seat.expiresAtMs), seat.holdId, seat.customerId];
  if (seat.state === 'S') return [seat.seat, 'S', seat.bookingId, seat.customerId, ''];
  return [seat.seat, 'A', '', '', ''];
}

export function createSeatGateScripts(options: { store: ScriptStore; keyPrefix?: string }) {
  const keys = createKeyBuilder(options.keyPrefix ?? '');
  const gateKeys = (showtimeId: string) => {
    if (!isValidShowtimeId(showtimeId)) throw new RangeError(`invalid showtime id: ${showtimeId}`);
    return keys.forGate(showtimeId);
  };

  return {
    keys,

    /** All or nothing over `seats` (distinct) plus the customer's count, under `holdId`. */
    async claim(showtimeId: string, customerId: string, holdId: string, seats: string[]): Promise<GateClaimDecision> {
      if (!isValidCustomerId(customerId)) throw new RangeError('invalid customer id');
      const reply = await runScript(options.store, scripts.gateClaim, gateKeys(showtimeId), [
        customerId,
        holdId,
        ...seats,
      ]);
      if (Number(reply[0]) === RefusalCode.GateNotBuilt) return { kind: 'not_built' };
      const named = readReply('gateClaim', reply);
      const kind = DECISIONS[Number(named.decision) as keyof typeof DECISIONS];
      const owned = Number(named.owned);
      const maxPerCustomer = Number(named.maxPerCustomer);
      const listed = named.rest.map(String);
      if (kind === 'claimed') return { kind, expiresAtMs: Number(named.expiresAtMs), owned, maxPerCustomer };
      if (kind === 'over_limit') return { kind, owned, maxPerCustomer };
      if (kind === 'taken' || kind === 'unknown_seats') return { kind, seats: listed };
      throw new RangeError(`gate-claim answered decision ${String(named.decision)}`);
    },

    /** Undoes a claim: frees the seats still held under `holdId`. Returns how many. */
    async release(showtimeId: string, holdId: string, seats: string[]): Promise<number> {
      const reply = await runScript(options.store, scripts.gateRelease, gateKeys(showtimeId), [holdId, ...seats]);
      return Number(readReply('gateRelease', reply).freed);
    },

    /**
     * Applies what the database did. With an `eventId`, an event already applied is skipped
     * (`duplicate`). `built: false`: the gate is not built, nothing applied (its build reads the database).
     */
    async apply(
      showtimeId: string,
      ops: GateOp[],
      options_: { eventId?: string; pendingGraceMs?: number } = {},
    ): Promise<{ built: boolean; changed: number; duplicate: boolean }> {
      const argv = [options_.eventId ?? '', String(options_.pendingGraceMs ?? 0), ...ops.flatMap(opArgs)];
      const reply = await runScript(options.store, scripts.gateApply, gateKeys(showtimeId), argv);
      if (Number(reply[0]) === RefusalCode.GateNotBuilt) return { built: false, changed: 0, duplicate: false };
      const named = readReply('gateApply', reply);
      return { built: true, changed: Number(named.changed), duplicate: Number(named.duplicate) === 1 };
    },

    /** Builds the gate from the database's seats, or brings a built one back in line with them. */
    async sync(showtimeId: string, input: GateSyncInput): Promise<{ changed: number; wasBuilt: boolean }> {
      const argv = [
        String(input.maxPerCustomer),
        String(input.holdTtlMs),
        String(input.pendingGraceMs),
        String(input.keyTtlMs),
        ...input.seats.flatMap(seatArgs),
      ];
      const named = readReply('gateSync', await runScript(options.store, scripts.gateSync, gateKeys(showtimeId), argv));
      return { changed: Number(named.changed), wasBuilt: Number(named.wasReady) === 1 };
    },
  };
}

export type SeatGateScripts = ReturnType<typeof createSeatGateScripts>;
