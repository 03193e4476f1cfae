/**
 * The operator's view of a room's settings, in the contract's units (seconds, ISO times), and
 * the translation to the engine's (milliseconds). The edge's admin API and the core's sale
 * control share it, so the two cannot disagree about what an operator may set. Every setting
 * comes from room-settings-registry.ts; only state and opening time are written here.
 */
import { z } from 'zod';
import {
  apiNameOf,
  OPERATOR_SETTING_NAMES,
  ROOM_SETTING_NAMES,
  settingSpec,
  toApi,
  toEngine,
  type OperatorApiValues,
  type RoomSettingName,
} from '../../lib/room-settings-registry';
import { ROOM_STATES, type RoomSettings, type RoomSettingsPatch } from './settings';

/** An operator setting's schema in the API: its operator bounds, or a boolean for a flag. */
function operatorSchema(name: RoomSettingName) {
  const spec = settingSpec(name);
  if (spec.kind === 'flag') return z.boolean().describe(spec.description);
  const { min, max } = spec.operator!;
  return z.number().int().min(min).max(max).describe(`${spec.description} (${spec.unit})`);
}

const operatorShape = Object.fromEntries(
  OPERATOR_SETTING_NAMES.map((name) => [apiNameOf(name), operatorSchema(name)]),
) as {
  [K in keyof OperatorApiValues]: OperatorApiValues[K] extends boolean ? z.ZodBoolean : z.ZodNumber;
};

export const roomUpdateSchema = z
  .object({
    ...operatorShape,
    state: z.enum(ROOM_STATES),
    opensAt: z.iso.datetime({ offset: true }),
  })
  .partial()
  .strict()
  .refine((value) => Object.keys(value).length > 0, { message: 'send at least one setting' });

export type RoomUpdate = z.infer<typeof roomUpdateSchema>;

/** Fields of the engine's settings an operator sets (everything but state, opening and version). */
export type OperatorSettings = Omit<RoomSettingsPatch, 'state' | 'opensAtMs' | 'version'>;

/** The settings part of an update, in engine units; state and opening time are handled apart. */
export function operatorSettingsOf(update: RoomUpdate): OperatorSettings {
  const settings: OperatorSettings = {};
  const values = update as Record<string, number | boolean | undefined>;
  for (const name of OPERATOR_SETTING_NAMES) {
    const value = values[apiNameOf(name)];
    if (value !== undefined) settings[name] = toEngine(name, value);
  }
  return settings;
}

/** Settings the public view shows, in registry order. */
const PUBLIC_NAMES = ROOM_SETTING_NAMES.filter((name) => settingSpec(name).shows.includes('public view'));

export type PublicSettings = OperatorApiValues & {
  state: RoomSettings['state'];
  opensAt: string | null;
  version: number;
  engine: RoomSettings;
};

/** The contract's view of the settings (seconds and ISO), plus the engine's fields as they are. */
export function publicSettings(settings: RoomSettings): PublicSettings {
  const view: Record<string, unknown> = {};
  for (const name of PUBLIC_NAMES) view[apiNameOf(name)] = toApi(name, settings[name]);
  return {
    ...(view as OperatorApiValues),
    state: settings.state,
    opensAt: settings.opensAtMs === null ? null : new Date(settings.opensAtMs).toISOString(),
    version: settings.version,
    engine: settings,
  };
}
