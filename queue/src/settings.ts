/** Operator settings of one room, their defaults and how they are stored in the cfg hash. */
import { z } from 'zod';
import { ADMIT_BURST_BOUNDS, burstFor } from './admission-burst';

export { ADMIT_BURST_BOUNDS, BURST_SECONDS, burstFor } from './admission-burst';

/** The burst an operator may set (admission-burst.ts holds the bounds). */
export const admitBurstSchema = z.number().int().min(ADMIT_BURST_BOUNDS.min).max(ADMIT_BURST_BOUNDS.max);

export const ROOM_STATES = ['scheduled', 'open', 'paused', 'closed', 'sold_out'] as const;
/** `opening` is internal: the opening time has passed and the pre-queue draw is pending. */
export type RoomState = (typeof ROOM_STATES)[number] | 'opening';

const positiveInt = z.number().int().positive();

/** What a stored room may hold (older rooms were allowed this much; restoring them must not fail). */
export const POW_MAX_BITS = 32;
/**
 * What an operator may set, and the most the edge ever asks: 2^18 hashes take a phone-class
 * browser a few seconds (21 bits were measured at 52 s).
 */
export const POW_OPERATOR_MAX_BITS = 18;

/** What an operator may change, all optional (a patch). */
export const roomSettingsPatchSchema = z
  .object({
    state: z.enum(ROOM_STATES),
    opensAtMs: z.number().int().nonnegative(),
    capacity: positiveInt.max(1_000_000),
    admitPerMinute: positiveInt.max(10_000_000),
    /** Admissions the budget may bank while idle (token bucket capacity); unset: follows the rate (admission-burst.ts). */
    admitBurst: admitBurstSchema,
    sessionTtlMs: positiveInt,
    offerWindowMs: positiveInt,
    abandonGraceMs: positiveInt,
    /** Polls drive an admission step at most this often; the ticker always does. */
    tickGapMs: z.number().int().nonnegative(),
    customerBucketCapacity: positiveInt,
    customerRefillPerMinute: positiveInt,
    showtimeBucketCapacity: positiveInt,
    showtimeRefillPerSecond: positiveInt,
    /** How long a closed or sold-out room keeps its keys (waiters are told why), then Redis drops them. */
    closedRetentionMs: positiveInt,
    /** Proof of work at join: leading zero bits asked of every joiner (0 = none). */
    powDifficulty: z.number().int().min(0).max(POW_MAX_BITS),
    /** Ceiling the edge may raise the difficulty to under load (0 = never raised). */
    powMaxDifficulty: z.number().int().min(0).max(POW_MAX_BITS),
    /** Places one client address may take in this room's line (shared networks: be generous). */
    placesPerAddress: positiveInt.max(1_000_000),
    /** 1: the admission rate follows the core's health and the seats left (admission-control.ts); 0: off. */
    adaptiveAdmission: z.number().int().min(0).max(1),
    /** The closed loop's range; 0: a tenth of admitPerMinute (floor), admitPerMinute (ceiling). */
    admitFloorPerMinute: z.number().int().min(0).max(10_000_000),
    admitCeilingPerMinute: z.number().int().min(0).max(10_000_000),
    /** Turns allowed beyond seats left / seats per hold, in percent (buyers who leave without buying). */
    inventoryMarginPercent: z.number().int().min(0).max(1_000),
    /**
     * The version of these settings in PostgreSQL (the source of truth). A copy stamped with an
     * older version than the room already has is ignored, so racing restores cannot go back.
     */
    version: z.number().int().nonnegative(),
  })
  .partial()
  .strict();

export type RoomSettingsPatch = z.infer<typeof roomSettingsPatchSchema>;

export interface RoomSettings {
  state: RoomState;
  opensAtMs: number | null;
  capacity: number;
  admitPerMinute: number;
  admitBurst: number;
  sessionTtlMs: number;
  offerWindowMs: number;
  abandonGraceMs: number;
  tickGapMs: number;
  customerBucketCapacity: number;
  customerRefillPerMinute: number;
  showtimeBucketCapacity: number;
  showtimeRefillPerSecond: number;
  closedRetentionMs: number;
  powDifficulty: number;
  powMaxDifficulty: number;
  placesPerAddress: number;
  adaptiveAdmission: number;
  admitFloorPerMinute: number;
  admitCeilingPerMinute: number;
  inventoryMarginPercent: number;
  /** 0 until the room has been configured from PostgreSQL. */
  version: number;
}

export const DEFAULT_SETTINGS: Omit<RoomSettings, 'opensAtMs'> = {
  state: 'scheduled',
  capacity: 200,
  admitPerMinute: 600,
  admitBurst: burstFor(600),
  sessionTtlMs: 10 * 60_000,
  offerWindowMs: 60_000,
  abandonGraceMs: 45_000,
  tickGapMs: 100,
  customerBucketCapacity: 10,
  customerRefillPerMinute: 10,
  showtimeBucketCapacity: 500,
  showtimeRefillPerSecond: 500,
  closedRetentionMs: 24 * 3_600_000,
  powDifficulty: 0,
  powMaxDifficulty: 0,
  placesPerAddress: 200,
  adaptiveAdmission: 1,
  admitFloorPerMinute: 0,
  admitCeilingPerMinute: 0,
  inventoryMarginPercent: 25,
  version: 0,
};

/**
 * The first claim window (lua/includes/room.lua FIRST_CLAIM_MS): an offer lasts this long, or
 * offerWindowMs when that is shorter; a lapsed one then parks its buyer, who takes the place
 * back at the front when seen again within the grace. A claim refused for a full room extends
 * the offer to offerWindowMs.
 */
export const FIRST_CLAIM_MS = 10_000;
export const firstClaimMs = (settings: { offerWindowMs: number }): number => Math.min(settings.offerWindowMs, FIRST_CLAIM_MS);

const NUMERIC_FIELDS = Object.keys(DEFAULT_SETTINGS).filter((field) => field !== 'state') as Exclude<
  keyof RoomSettings,
  'state' | 'opensAtMs'
>[];

/** Field/value pairs for the configure script: the patch (minus state) and the defaults. */
export function settingsToPairs(patch: RoomSettingsPatch): { set: string[]; defaults: string[] } {
  const effective: RoomSettingsPatch = { ...patch };
  if (patch.admitPerMinute !== undefined && patch.admitBurst === undefined) {
    effective.admitBurst = burstFor(patch.admitPerMinute);
  }
  const set: string[] = [];
  for (const [field, value] of Object.entries(effective)) {
    if (field !== 'state' && value !== undefined) set.push(field, String(value));
  }
  const defaults = NUMERIC_FIELDS.flatMap((field) => [field, String(DEFAULT_SETTINGS[field])]);
  defaults.push('state', DEFAULT_SETTINGS.state);
  return { set, defaults };
}

/** Reads settings back from the cfg hash (a flat field/value list). */
export function settingsFromHash(fields: Map<string, string>): RoomSettings {
  const number = (field: keyof RoomSettings) => Number(fields.get(field) ?? DEFAULT_SETTINGS[field as never]);
  const opensAt = fields.get('opensAtMs');
  return {
    state: (fields.get('state') ?? DEFAULT_SETTINGS.state) as RoomState,
    opensAtMs: opensAt === undefined ? null : Number(opensAt),
    ...Object.fromEntries(NUMERIC_FIELDS.map((field) => [field, number(field)])),
  } as RoomSettings;
}
