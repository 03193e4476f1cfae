/**
 * A room's settings as the engine keeps them: the schema of what may be written, the type, the
 * defaults (all built from room-settings-registry.ts) and how they sit in the cfg hash.
 */
import { z } from 'zod';
import { burstFor } from '../../lib/admission-burst';
import { ROOM_SETTING_NAMES, settingSpec, type RoomSettingName } from '../../lib/room-settings-registry';

export { ADMIT_BURST_BOUNDS, BURST_SECONDS, burstFor } from '../../lib/admission-burst';
export { POW_MAX_BITS, POW_OPERATOR_MAX_BITS } from '../../lib/room-settings-registry';

export const ROOM_STATES = ['scheduled', 'open', 'paused', 'closed', 'sold_out'] as const;
/** `opening` is internal: the opening time has passed and the pre-queue draw is pending. */
export type RoomState = (typeof ROOM_STATES)[number] | 'opening';

/** The engine's schema of one setting: what a stored room may hold (room-settings-registry.ts). */
function storedSchema(name: RoomSettingName) {
  const { min, max } = settingSpec(name).stored;
  const whole = z.number().int().min(min);
  return max === undefined ? whole : whole.max(max);
}

/** What may be written into a room, all optional (a patch). */
export const roomSettingsPatchSchema = z
  .object({
    state: z.enum(ROOM_STATES),
    opensAtMs: z.number().int().nonnegative(),
    ...(Object.fromEntries(ROOM_SETTING_NAMES.map((name) => [name, storedSchema(name)])) as Record<
      RoomSettingName,
      z.ZodNumber
    >),
    /**
     * The version of these settings in PostgreSQL (the source of truth). A copy stamped with an
     * older version than the room already has is ignored, so racing restores cannot go back.
     */
    version: z.number().int().nonnegative(),
  })
  .partial()
  .strict();

export type RoomSettingsPatch = z.infer<typeof roomSettingsPatchSchema>;

export type RoomSettings = Record<RoomSettingName, number> & {
  state: RoomState;
  opensAtMs: number | null;
  /** 0 until the room has been configured from PostgreSQL. */
  version: number;
};

export const DEFAULT_SETTINGS: Omit<RoomSettings, 'opensAtMs'> = {
  state: 'scheduled',
  ...(Object.fromEntries(ROOM_SETTING_NAMES.map((name) => [name, settingSpec(name).default])) as Record<
    RoomSettingName,
    number
  >),
  version: 0,
};

/**
 * The first claim window (lua/includes/room.lua FIRST_CLAIM_MS): an offer lasts this long, or
 * offerWindowMs when that is shorter; a lapsed one then parks its buyer, who takes the place
 * back at the front when seen again within the grace. A claim refused for a full room extends
 * the offer to offerWindowMs.
 */
export const FIRST_CLAIM_MS = 10_000;
export const firstClaimMs = (settings: { offerWindowMs: number }): number =>
  Math.min(settings.offerWindowMs, FIRST_CLAIM_MS);

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
