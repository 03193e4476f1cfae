/**
 * The operator's view of a room's settings, in the contract's units (seconds, ISO times), and
 * the translation to the engine's (milliseconds). The edge's admin API and the core's sale
 * control share it, so the two cannot disagree about what an operator may set.
 */
import { z } from 'zod';
import { admitBurstSchema, POW_OPERATOR_MAX_BITS, ROOM_STATES, type RoomSettings, type RoomSettingsPatch } from './settings';

export const roomUpdateSchema = z
  .object({
    capacity: z.number().int().positive().max(1_000_000),
    admitPerMinute: z.number().int().positive().max(10_000_000),
    /** Admissions let in at once after a quiet spell; unset, BURST_SECONDS of the rate (admission-burst.ts). */
    admitBurst: admitBurstSchema,
    sessionTtlSeconds: z.number().int().positive().max(86_400),
    state: z.enum(ROOM_STATES),
    opensAt: z.iso.datetime({ offset: true }),
    customerBucketCapacity: z.number().int().positive().max(1_000),
    customerRefillPerMinute: z.number().int().positive().max(60_000),
    showtimeBucketCapacity: z.number().int().positive().max(10_000_000),
    showtimeRefillPerSecond: z.number().int().positive().max(10_000_000),
    /** Proof of work at join: base difficulty in leading zero bits (0 = off) and the edge's ceiling. */
    powDifficulty: z.number().int().min(0).max(POW_OPERATOR_MAX_BITS),
    powMaxDifficulty: z.number().int().min(0).max(POW_OPERATOR_MAX_BITS),
    /** Places one client address may take in the line (shared networks: be generous). */
    placesPerAddress: z.number().int().positive().max(1_000_000),
    /** The admission rate follows the core's health and the seats left (off: the operator's rate as set). */
    adaptiveAdmission: z.boolean(),
    /** The closed loop's range (0: a tenth of admitPerMinute, and admitPerMinute). */
    admitFloorPerMinute: z.number().int().min(0).max(10_000_000),
    admitCeilingPerMinute: z.number().int().min(0).max(10_000_000),
    /** Turns allowed beyond seats left / seats per hold, in percent. */
    inventoryMarginPercent: z.number().int().min(0).max(1_000),
  })
  .partial()
  .strict()
  .refine((value) => Object.keys(value).length > 0, { message: 'send at least one setting' });

export type RoomUpdate = z.infer<typeof roomUpdateSchema>;

/** Fields of the engine's settings an operator sets (everything but state, opening and version). */
export type OperatorSettings = Omit<RoomSettingsPatch, 'state' | 'opensAtMs' | 'version'>;

/** The settings part of an update, in engine units; state and opening time are handled apart. */
export function operatorSettingsOf(update: RoomUpdate): OperatorSettings {
  const { state: _state, opensAt: _opensAt, sessionTtlSeconds, adaptiveAdmission, ...rest } = update;
  const settings: OperatorSettings = { ...rest };
  if (sessionTtlSeconds !== undefined) settings.sessionTtlMs = sessionTtlSeconds * 1000;
  if (adaptiveAdmission !== undefined) settings.adaptiveAdmission = adaptiveAdmission ? 1 : 0;
  return settings;
}

/** The contract's view of the settings (seconds and ISO), plus the engine's fields as they are. */
export function publicSettings(settings: RoomSettings) {
  return {
    capacity: settings.capacity,
    admitPerMinute: settings.admitPerMinute,
    admitBurst: settings.admitBurst,
    sessionTtlSeconds: Math.round(settings.sessionTtlMs / 1000),
    state: settings.state,
    opensAt: settings.opensAtMs === null ? null : new Date(settings.opensAtMs).toISOString(),
    powDifficulty: settings.powDifficulty,
    powMaxDifficulty: settings.powMaxDifficulty,
    placesPerAddress: settings.placesPerAddress,
    adaptiveAdmission: settings.adaptiveAdmission !== 0,
    admitFloorPerMinute: settings.admitFloorPerMinute,
    admitCeilingPerMinute: settings.admitCeilingPerMinute,
    inventoryMarginPercent: settings.inventoryMarginPercent,
    version: settings.version,
    engine: settings,
  };
}
