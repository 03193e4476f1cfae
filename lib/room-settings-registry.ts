/**
 * Every numeric setting of a waiting room, once: what a stored room may hold, what an operator
 * may set, the default, the unit, the console's words, who may set it and where it shows.
 * The engine's schema, types and defaults (settings.ts), the operator API's schema, its
 * translation and the public view (room-update.ts), the API description
 * (edge/scripts/openapi/api-schemas.ts), the console's inputs and their checks
 * (edge/src/pages/settings-inputs.ts, edge/client/operator/room-controls.ts) and
 * docs/settings.md (scripts/build-settings-doc.ts) are built from this table.
 *
 * Adding a setting: one entry here; the Lua scripts and the in-process twin
 * (queue/lua/, queue/src/memory/) read it from the cfg hash by its engine name where they use
 * it. State, opening time and version are not settings of this kind (settings.ts keeps them).
 *
 * This module imports nothing but the burst's own bounds, so the browser bundle can take it.
 */
import { ADMIT_BURST_BOUNDS, burstFor } from './admission-burst';

/** Who may change a setting: the operator API (PUT /api/admin/…/room), the console's inputs. */
export type SettableBy = 'operator API' | 'console' | 'environment';
/** Where a setting is shown: the operator's view of the room (API reads, audit, live events), the console. */
export type ShownIn = 'public view' | 'console';
/** The console's form a setting's input sits in. */
export type ConsoleGroup = 'room' | 'admission' | 'protection';

export interface RoomSettingSpec {
  /** integer: a whole number; flag: 0 or 1 in the engine, false or true in the operator API. */
  kind: 'integer' | 'flag';
  /** What a stored room may hold, in engine units (no max: any safe integer). */
  stored: { min: number; max?: number };
  /** The operator API's name, when it is not the engine's (a different unit). */
  apiName?: string;
  /** Engine value = API value × scale (seconds to milliseconds). */
  scale?: number;
  /** What an operator may set, in API units. */
  operator?: { min: number; max: number };
  /** Engine units. */
  default: number;
  /** When the default follows another setting, said in words (docs). */
  defaultWords?: string;
  /** The API's unit, in words. */
  unit: string;
  /** The console's label for the input. */
  label: string;
  /** The setting's name at the start of a sentence ("Capacity must be …"). */
  name: string;
  /** The setting in a change line ("capacity from 50 to 80"). */
  words: string;
  /** What it does, for the API description and the docs. */
  description: string;
  /** A line under the console's input. */
  hint?: string;
  setBy: readonly SettableBy[];
  shows: readonly ShownIn[];
  group?: ConsoleGroup;
}

const OPERATOR: readonly SettableBy[] = ['operator API', 'console'];
const SHOWN: readonly ShownIn[] = ['public view', 'console'];
const ENGINE_ONLY = { setBy: [] as readonly SettableBy[], shows: [] as readonly ShownIn[] };
const RATE_MAX = 10_000_000;
/** What a stored room may hold (older rooms were allowed this much; restoring them must not fail). */
export const POW_MAX_BITS = 32;
/**
 * What an operator may set, and the most the edge ever asks: the highest difficulty whose
 * worst solve stays under about five seconds in a browser with its CPU throttled 4x
 * (`npm run bench -- pow-browser`, bench/results.md: 16 bits worst 4.8-7.9 s, 17 bits
 * worst 11.7-16.5 s; 21 bits were once measured at 52 s).
 */
export const POW_OPERATOR_MAX_BITS = 16;
const DEFAULT_ADMIT_PER_MINUTE = 600;

export const ROOM_SETTINGS = {
  capacity: {
    kind: 'integer',
    stored: { min: 1, max: 1_000_000 },
    operator: { min: 1, max: 1_000_000 },
    default: 200,
    unit: 'turns',
    label: 'Capacity (buyers choosing seats at once)',
    name: 'Capacity',
    words: 'capacity',
    description: 'Turns (admitted plus offered) at once',
    setBy: OPERATOR,
    shows: SHOWN,
    group: 'room',
  },
  admitPerMinute: {
    kind: 'integer',
    stored: { min: 1, max: RATE_MAX },
    operator: { min: 1, max: RATE_MAX },
    default: DEFAULT_ADMIT_PER_MINUTE,
    unit: 'admissions a minute',
    label: 'Admissions per minute',
    name: 'Admissions per minute',
    words: 'admissions per minute',
    description: 'The target admission rate (the closed loop may run below it)',
    setBy: OPERATOR,
    shows: SHOWN,
    group: 'room',
  },
  admitBurst: {
    kind: 'integer',
    stored: ADMIT_BURST_BOUNDS,
    operator: ADMIT_BURST_BOUNDS,
    default: burstFor(DEFAULT_ADMIT_PER_MINUTE),
    defaultWords: "five seconds' worth of admitPerMinute",
    unit: 'admissions',
    label: 'Admissions at once after a quiet spell',
    name: 'Admissions at once',
    words: 'admissions at once',
    description:
      "Admissions let in at once after a quiet spell (the bucket's size); unless set, five seconds of admitPerMinute",
    hint: "Unless you set it, five seconds' worth of the admissions per minute.",
    setBy: OPERATOR,
    shows: SHOWN,
    group: 'room',
  },
  sessionTtlMs: {
    kind: 'integer',
    stored: { min: 1 },
    apiName: 'sessionTtlSeconds',
    scale: 1000,
    operator: { min: 1, max: 86_400 },
    default: 10 * 60_000,
    unit: 'seconds',
    label: 'Session length (seconds)',
    name: 'Session length',
    words: 'session length (s)',
    description: 'Length of a turn',
    setBy: OPERATOR,
    shows: SHOWN,
    group: 'room',
  },
  offerWindowMs: {
    kind: 'integer',
    stored: { min: 1 },
    default: 60_000,
    unit: 'milliseconds',
    label: 'Offer window',
    name: 'The offer window',
    words: 'offer window',
    description:
      'How long an offered turn waits for its claim when the room is full (the first claim window is at most 10 s)',
    ...ENGINE_ONLY,
  },
  abandonGraceMs: {
    kind: 'integer',
    stored: { min: 1 },
    default: 45_000,
    unit: 'milliseconds',
    label: 'Abandonment grace',
    name: 'The abandonment grace',
    words: 'abandonment grace',
    description: 'A buyer passed over for not polling takes the place back when seen again within this',
    ...ENGINE_ONLY,
  },
  tickGapMs: {
    kind: 'integer',
    stored: { min: 0 },
    default: 100,
    unit: 'milliseconds',
    label: 'Step gap',
    name: 'The step gap',
    words: 'step gap',
    description: 'Polls drive an admission step at most this often; the ticker always does',
    ...ENGINE_ONLY,
  },
  closedRetentionMs: {
    kind: 'integer',
    stored: { min: 1 },
    default: 24 * 3_600_000,
    unit: 'milliseconds',
    label: 'Closed room kept for',
    name: 'The retention',
    words: 'retention',
    description: 'How long a closed or sold-out room keeps its keys (waiters are told why), then Redis drops them',
    ...ENGINE_ONLY,
  },
  powDifficulty: {
    kind: 'integer',
    stored: { min: 0, max: POW_MAX_BITS },
    operator: { min: 0, max: POW_OPERATOR_MAX_BITS },
    default: 0,
    unit: 'bits',
    label: 'Proof of work at join (leading zero bits, 0: off)',
    name: 'The proof of work',
    words: 'proof of work (bits)',
    description: 'Proof of work at join: leading zero bits asked of every joiner (0 = none)',
    setBy: OPERATOR,
    shows: SHOWN,
    group: 'protection',
  },
  powMaxDifficulty: {
    kind: 'integer',
    stored: { min: 0, max: POW_MAX_BITS },
    operator: { min: 0, max: POW_OPERATOR_MAX_BITS },
    default: 0,
    unit: 'bits',
    label: 'Most proof of work under load (bits, 0: never raised)',
    name: 'The most proof of work',
    words: 'most proof of work (bits)',
    description: 'Ceiling the edge may raise the difficulty to under load (0 = never raised)',
    setBy: OPERATOR,
    shows: SHOWN,
    group: 'protection',
  },
  placesPerAddress: {
    kind: 'integer',
    stored: { min: 1, max: 1_000_000 },
    operator: { min: 1, max: 1_000_000 },
    default: 200,
    unit: 'places',
    label: 'Places per client address',
    name: 'Places per address',
    words: 'places per address',
    description: "Places one client address may take in this room's line (shared networks: be generous)",
    hint: 'Offices, campuses and phone networks share addresses: be generous.',
    setBy: OPERATOR,
    shows: SHOWN,
    group: 'protection',
  },
  customerBucketCapacity: {
    kind: 'integer',
    stored: { min: 1 },
    operator: { min: 1, max: 1_000 },
    default: 10,
    unit: 'requests',
    label: 'Purchase requests at once per buyer',
    name: 'Purchase requests at once per buyer',
    words: 'requests at once per buyer',
    description: "The size of each buyer's purchase token bucket (holds, checkout)",
    setBy: OPERATOR,
    shows: SHOWN,
    group: 'protection',
  },
  customerRefillPerMinute: {
    kind: 'integer',
    stored: { min: 1 },
    operator: { min: 1, max: 60_000 },
    default: 10,
    unit: 'requests a minute',
    label: 'Purchase requests per minute per buyer',
    name: 'Purchase requests per minute per buyer',
    words: 'requests per minute per buyer',
    description: "How fast each buyer's purchase bucket refills",
    setBy: OPERATOR,
    shows: SHOWN,
    group: 'protection',
  },
  showtimeBucketCapacity: {
    kind: 'integer',
    stored: { min: 1 },
    operator: { min: 1, max: RATE_MAX },
    default: 500,
    unit: 'requests',
    label: 'Purchase requests at once for the showtime',
    name: 'Purchase requests at once for the showtime',
    words: 'requests at once for the showtime',
    description: "The size of the showtime's shared purchase token bucket",
    setBy: OPERATOR,
    shows: SHOWN,
    group: 'protection',
  },
  showtimeRefillPerSecond: {
    kind: 'integer',
    stored: { min: 1 },
    operator: { min: 1, max: RATE_MAX },
    default: 500,
    unit: 'requests a second',
    label: 'Purchase requests per second for the showtime',
    name: 'Purchase requests per second for the showtime',
    words: 'requests per second for the showtime',
    description: "How fast the showtime's purchase bucket refills",
    setBy: OPERATOR,
    shows: SHOWN,
    group: 'protection',
  },
  adaptiveAdmission: {
    kind: 'flag',
    stored: { min: 0, max: 1 },
    operator: { min: 0, max: 1 },
    default: 1,
    unit: 'on/off',
    label: "Follow the seat service's health and the seats left",
    name: 'Following the seat service',
    words: 'follow the seat service',
    description: "Admission follows the core's health and the seats left (off: the operator's rate as set)",
    setBy: OPERATOR,
    shows: SHOWN,
    group: 'admission',
  },
  admitFloorPerMinute: {
    kind: 'integer',
    stored: { min: 0, max: RATE_MAX },
    operator: { min: 0, max: RATE_MAX },
    default: 0,
    unit: 'admissions a minute',
    label: 'Floor, admissions per minute (0: a tenth of the target)',
    name: 'The floor',
    words: 'floor per minute',
    description: "The closed loop's lowest rate (0: a tenth of admitPerMinute)",
    setBy: OPERATOR,
    shows: SHOWN,
    group: 'admission',
  },
  admitCeilingPerMinute: {
    kind: 'integer',
    stored: { min: 0, max: RATE_MAX },
    operator: { min: 0, max: RATE_MAX },
    default: 0,
    unit: 'admissions a minute',
    label: 'Ceiling, admissions per minute (0: the target)',
    name: 'The ceiling',
    words: 'ceiling per minute',
    description: "The closed loop's highest rate (0: admitPerMinute)",
    setBy: OPERATOR,
    shows: SHOWN,
    group: 'admission',
  },
  inventoryMarginPercent: {
    kind: 'integer',
    stored: { min: 0, max: 1_000 },
    operator: { min: 0, max: 1_000 },
    default: 25,
    unit: 'percent',
    label: 'Turns beyond the seats left (percent)',
    name: 'The margin over the seats left',
    words: 'margin over seats left (%)',
    description: 'Turns allowed beyond seats left / seats per hold, in percent (buyers who leave without buying)',
    setBy: OPERATOR,
    shows: SHOWN,
    group: 'admission',
  },
} as const satisfies Record<string, RoomSettingSpec>;

/** A setting's name in the engine (the cfg hash field the Lua scripts read). */
export type RoomSettingName = keyof typeof ROOM_SETTINGS;
export const ROOM_SETTING_NAMES = Object.keys(ROOM_SETTINGS) as RoomSettingName[];

export const settingSpec = (name: RoomSettingName): RoomSettingSpec => ROOM_SETTINGS[name];

/** The operator API's name of a setting (sessionTtlMs → sessionTtlSeconds). */
type ApiNameOf<N extends RoomSettingName> = (typeof ROOM_SETTINGS)[N] extends { apiName: infer A extends string }
  ? A
  : N;
/** Settings an operator may set (those with operator bounds), by engine name. */
export type OperatorSettingName = {
  [N in RoomSettingName]: (typeof ROOM_SETTINGS)[N] extends { operator: object } ? N : never;
}[RoomSettingName];
export type OperatorApiName = ApiNameOf<OperatorSettingName>;
/** An operator setting's value in the API: a boolean for flags, a number otherwise. */
type ApiValueOf<N extends RoomSettingName> = (typeof ROOM_SETTINGS)[N] extends { kind: 'flag' } ? boolean : number;
export type OperatorApiValues = { [N in OperatorSettingName as ApiNameOf<N>]: ApiValueOf<N> };

export const apiNameOf = (name: RoomSettingName): string => settingSpec(name).apiName ?? name;
export const OPERATOR_SETTING_NAMES = ROOM_SETTING_NAMES.filter(
  (name) => settingSpec(name).operator,
) as OperatorSettingName[];

/** An operator setting by its API name (for the console, which speaks the API's units). */
export function operatorSettingByApiName(apiName: string): { name: OperatorSettingName; spec: RoomSettingSpec } | null {
  const name = OPERATOR_SETTING_NAMES.find((candidate) => apiNameOf(candidate) === apiName);
  return name ? { name, spec: settingSpec(name) } : null;
}

/** The console group's settings, in table order, by API name. */
export const consoleGroup = (group: ConsoleGroup): OperatorApiName[] =>
  OPERATOR_SETTING_NAMES.filter(
    (name) => settingSpec(name).group === group && settingSpec(name).shows.includes('console'),
  ).map((name) => apiNameOf(name) as OperatorApiName);

/** API value → engine value. */
export function toEngine(name: RoomSettingName, value: number | boolean): number {
  const spec = settingSpec(name);
  if (spec.kind === 'flag') return value ? 1 : 0;
  return (value as number) * (spec.scale ?? 1);
}

/** Engine value → API value (a scaled one rounded to whole API units). */
export function toApi(name: RoomSettingName, value: number): number | boolean {
  const spec = settingSpec(name);
  if (spec.kind === 'flag') return value !== 0;
  return spec.scale ? Math.round(value / spec.scale) : value;
}
