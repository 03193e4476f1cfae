/**
 * Script replies (flat arrays of integers and strings, fields named in reply-fields.ts)
 * turned into typed values. Numbers may arrive as numbers (RESP integers) or strings (bulk
 * strings, Upstash), hence Number().
 */
import {
  etaForPositionMs,
  learningFromStats,
  MAX_POLL_MS,
  MIN_POLL_MS,
  pollAfterPrequeueMs,
  pollAfterWaitingMs,
  serviceRatePerMs,
  slotRatePerMs,
  type AdmissionLearning,
  type RoomSnapshot,
} from './estimate';
import { readReply } from './reply-fields';
import { controlFromHash, governedSettings } from './room-control';
import { settingsFromHash, type RoomSettings, type RoomState } from './settings';

export type BuyerState =
  | 'prequeue'
  | 'waiting'
  | 'offered'
  | 'admitted'
  | 'paused'
  | 'closed'
  | 'sold_out'
  | 'expired'
  | 'none';

/** Where a buyer stands, as join and poll return it. */
export interface Standing {
  ok: true;
  state: BuyerState;
  /** Arrival ticket; null in the pre-queue (assigned by the draw) or when not in the room. */
  ticket: number | null;
  /** Exact place in line, 1 = next; null unless waiting or paused. */
  position: number | null;
  etaMs: number | null;
  /** When to poll again (jittered); null when polling is pointless (closed, sold out, gone). */
  pollAfterMs: number | null;
  offerExpiresAtMs: number | null;
  sessionExpiresAtMs: number | null;
  lineLength: number;
  /** Pre-queue members not placed in line yet (all of them before the opening). */
  preLength: number;
  roomState: RoomState;
  opensAtMs: number | null;
  nowMs: number;
}

const num = (value: unknown): number => Number(value);

/** `priorTurnMs`: the cinema's recent turn length (turn-history.ts), for a room that has not learned its own. */
export function standingFromReply(
  reply: unknown[],
  random?: () => number,
  priorTurnMs: number | null = null,
): Standing {
  const named = readReply('poll', reply);
  const {
    state: rawState,
    ticket,
    position,
    expiresAtMs,
    lineLength,
    nowMs,
    roomState,
    opensAtMs,
    admitPerMinute,
    abandonGraceMs,
  } = named;
  const state = String(rawState) as BuyerState;
  const now = num(nowMs);
  const opensAt = num(opensAtMs) || null;
  const turnsEnded = num(named.turnsEnded);
  // The rate in force to the thousandth (a reply's integers would cut the loop's 1.5 to 1).
  const ratePerMinute =
    named.ratePerMinuteMilli === undefined ? num(admitPerMinute) : num(named.ratePerMinuteMilli) / 1000;
  const learning: AdmissionLearning = {
    busyMs: num(named.busyMs),
    busyAdmits: num(named.busyAdmitsMilli) / 1000,
    turnsEnded,
    turnMs: turnsEnded > 0 ? num(named.turnMs) : null,
    claimGapMs: num(named.claimGapMs),
    runningTurns: num(named.runningTurns),
    runningTurnMs: num(named.runningTurnMs),
    priorTurnMs,
  };
  const capacity = num(named.capacity);
  const rate = serviceRatePerMs({ admitPerMinute: ratePerMinute, capacity, learning });
  const waitingPosition = state === 'waiting' || state === 'paused' ? num(position) || null : null;
  const bucket = {
    tokens: num(named.bucketTokensMilli) / 1000,
    freeSlots: num(named.freeSlots),
    slotRatePerMs: slotRatePerMs({ capacity, learning }),
  };
  const line = {
    ratePerMs: rate,
    headStart: num(named.headStart),
    admitsInWindow: num(named.admitsInWindow),
    admitPerMinute: ratePerMinute,
    windowWaitMs: num(named.windowWaitMs),
    bucket,
  };
  const eta = state === 'waiting' && waitingPosition !== null ? etaForPositionMs(waitingPosition, line) : null;
  // Nobody is admitted while the core is down (effective rate 0): the wait is not known.
  const etaMs = eta !== null && Number.isFinite(eta) ? eta : null;
  let pollAfterMs: number | null = null;
  if (state === 'waiting') pollAfterMs = pollAfterWaitingMs(etaMs ?? 0, num(abandonGraceMs), random);
  else if (state === 'prequeue') pollAfterMs = pollAfterPrequeueMs(opensAt, now, random);
  else if (state === 'offered') pollAfterMs = MIN_POLL_MS;
  // Paused buyers keep the cadence of their place: those near the front stay fresh, so that on
  // resume they are not taken for gone and passed over (see lua/includes/room.lua FRESH_MS).
  else if (state === 'paused') {
    const etaIfOpen = waitingPosition !== null ? etaForPositionMs(waitingPosition, line) : MAX_POLL_MS * 4;
    pollAfterMs = pollAfterWaitingMs(etaIfOpen, num(abandonGraceMs), random);
  } else if (state === 'admitted') pollAfterMs = Math.max(MIN_POLL_MS, Math.min(MAX_POLL_MS, num(expiresAtMs) - now));
  return {
    ok: true,
    state,
    ticket: num(ticket) || null,
    position: waitingPosition,
    etaMs,
    pollAfterMs,
    offerExpiresAtMs: state === 'offered' ? num(expiresAtMs) : null,
    sessionExpiresAtMs: state === 'admitted' ? num(expiresAtMs) : null,
    lineLength: num(lineLength),
    preLength: num(named.preLength),
    roomState: String(roomState) as RoomState,
    opensAtMs: opensAt,
    nowMs: now,
  };
}

/**
 * Where a buyer who just joined stands, without the room-wide half of a Standing: `enter`'s
 * answer, for a caller that holds a recent snapshot of the room and estimates from it.
 */
export interface Place {
  ok: true;
  state: BuyerState;
  ticket: number | null;
  /** Exact place in line while waiting or paused, else null. */
  position: number | null;
  offerExpiresAtMs: number | null;
  sessionExpiresAtMs: number | null;
  roomState: RoomState;
  nowMs: number;
}

export function placeFromReply(reply: unknown[]): Place {
  const { state: rawState, ticket, position, expiresAtMs, nowMs, roomState } = readReply('enter', reply);
  const state = String(rawState) as BuyerState;
  return {
    ok: true,
    state,
    ticket: num(ticket) || null,
    position: state === 'waiting' || state === 'paused' ? num(position) || null : null,
    offerExpiresAtMs: state === 'offered' ? num(expiresAtMs) : null,
    sessionExpiresAtMs: state === 'admitted' ? num(expiresAtMs) : null,
    roomState: String(roomState) as RoomState,
    nowMs: num(nowMs),
  };
}

function pairsToMap(flat: unknown): Map<string, string> {
  const list = Array.isArray(flat) ? flat : [];
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < list.length; i += 2) map.set(String(list[i]), String(list[i + 1]));
  return map;
}

export interface RoomView {
  snapshot: RoomSnapshot;
  seed: string | null;
  counters: Map<string, string>;
}

export function roomViewFromReply(showtimeId: string, reply: unknown[]): RoomView {
  const { nowMs, preLength, lineLength, offered, active, admitsInWindow, headTicket, tailTicket, cfg, stats } =
    readReply('inspect', reply);
  const cfgFields = pairsToMap(cfg);
  const counters = pairsToMap(stats);
  const settings = settingsFromHash(cfgFields);
  const now = num(nowMs);
  const control = controlFromHash(cfgFields, now);
  const openedAt = counters.has('openedAtMs') ? num(counters.get('openedAtMs')) : now;
  return {
    snapshot: {
      showtimeId,
      takenAtMs: now,
      state: settings.state,
      opensAtMs: settings.opensAtMs,
      headTicket: num(headTicket),
      tailTicket: num(tailTicket),
      lineLength: num(lineLength),
      preLength: num(preLength),
      offered: num(offered),
      active: num(active),
      admitsInWindow: num(admitsInWindow),
      rateWindowMs: Math.min(60_000, now - openedAt),
      learning: learningFromStats(counters, now),
      ...bucketFrom(
        governedSettings(settings, control),
        counters,
        num(active) + num(offered),
        num(admitsInWindow),
        now,
      ),
      settings,
      control,
      seedHash: cfgFields.get('seedHash') ?? null,
    },
    seed: cfgFields.get('seed') ?? null,
    counters,
  };
}

/** The twin of describe.lua's headStart, bucketNow and freeSlots, from the snapshot's copy of the stats hash. */
function bucketFrom(
  settings: RoomSettings,
  counters: Map<string, string>,
  taken: number,
  admitsInWindow: number,
  nowMs: number,
) {
  const banked = counters.has('bucketTokens') ? num(counters.get('bucketTokens')) : settings.admitBurst;
  const at = counters.has('bucketAtMs') ? num(counters.get('bucketAtMs')) : nowMs;
  const bucketTokens = Math.min(
    settings.admitBurst,
    banked + (Math.max(0, nowMs - at) * settings.admitPerMinute) / 60_000,
  );
  const freeSlots = Math.max(0, settings.capacity - taken);
  const windowCap = settings.admitPerMinute <= 0 ? 0 : Math.ceil(settings.admitPerMinute);
  const headStart =
    settings.state !== 'open'
      ? 0
      : Math.max(0, Math.min(freeSlots, Math.floor(bucketTokens), windowCap - admitsInWindow));
  return { headStart, bucketTokens, freeSlots };
}
