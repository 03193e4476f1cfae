/**
 * The room: never more buyers admitted at once than the operator's capacity, seen from both
 * places that know it (Redis's live sessions and the core's turn ledger, each sampled through
 * the run, so a live turn Redis forgot still counts), and no operator decision changed by a
 * fault (settings, or a pause that a restore lost).
 */
import type { Sql } from 'postgres';
import { listLiveTurns } from '../../core/src/sale/turn-repo';
import { settingsDifferences, type RoomSettings } from '../room-settings';
import type { Check } from './check';

/** The most live admissions one sampler saw, and how many of its reads succeeded. */
export interface CapSamples {
  highest: number;
  reads: number;
}

export interface RoomContext {
  capacity: number;
  cap: { redis: CapSamples; ledger: CapSamples };
  settings: {
    before: RoomSettings | null;
    after: RoomSettings | null;
    durableBefore: unknown;
    durableAfter: unknown;
    /** Every seat sold: the sale itself moved the room to sold_out. */
    soldOut: boolean;
  };
  /** A run on a paused room: the state the room showed after the fault, before it was resumed. */
  paused: { stateAfterFault: string | null } | null;
}

/** Live turns of the showtime in the core's ledger (what the core's own admission check counts). */
export async function liveTurnsInLedger(sql: Sql, showtimeId: number): Promise<number> {
  return (await listLiveTurns(sql, showtimeId)).length;
}

const aboveCap = (samples: CapSamples, capacity: number, where: string) => {
  // A sampler that never read anything saw nothing, which is not the same as "nothing above";
  // nor is one that never saw a single admitted buyer in a run where buyers were admitted
  // (every run must sell): it was looking in the wrong place (another key prefix, another table).
  if (samples.reads === 0) throw new Error(`no sample of the ${where} could be read`);
  if (samples.highest === 0) throw new Error(`the ${where} never showed an admitted buyer`);
  return Math.max(0, samples.highest - capacity);
};

export const capCheck: Check<RoomContext> = {
  name: 'cap',
  async run({ capacity, cap }) {
    return {
      admittedAboveCapRedis: aboveCap(cap.redis, capacity, 'Redis active set'),
      admittedAboveCapLedger: aboveCap(cap.ledger, capacity, 'turn ledger'),
    };
  },
};

export const settingsCheck: Check<RoomContext> = {
  name: 'settings',
  async run({ settings, paused }) {
    if (!settings.before || !settings.after)
      throw new Error(`room settings unreadable ${settings.before ? 'after' : 'before'} the fault`);
    const changed = settingsDifferences(settings.before, settings.after, { soldOut: settings.soldOut }).length;
    const durableChanged = JSON.stringify(settings.durableBefore) !== JSON.stringify(settings.durableAfter) ? 1 : 0;
    return {
      roomSettingsChanged: changed + durableChanged,
      ...(paused ? { pauseLost: paused.stateAfterFault === 'paused' ? 0 : 1 } : {}),
    };
  },
};
