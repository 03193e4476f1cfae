/**
 * How long turns lasted in the rooms of the recent past. A room learns its own turn length
 * from turns that end (estimate.ts slotMs), so at a real opening, a crowd with no quiet spell
 * before it, nothing has ended yet and the wait would be told from the configured rate alone:
 * with ten slots and buyers who keep a turn three minutes, a line told "four minutes" waits
 * two hours. Until the room has seen enough turns of its own, the estimate goes by how long
 * turns lasted in the cinema's other rooms (`priorTurnMs`).
 *
 * The ticker records each room's own mean (`recordTurns`, one entry per showtime, replaced
 * each time, so recording twice counts once); readers keep the prior a little while
 * (`createTurnPrior`), since it moves with sales, not with seconds.
 */
import { ownTurnMs, type AdmissionLearning } from './estimate';
import { readReply } from './reply-fields';
import { scripts } from './scripts.gen';
import { runScript, type ScriptStore } from './store';

export interface TurnHistoryEntry {
  showtimeId: string;
  meanTurnMs: number;
  turns: number;
  atMs: number;
}

/** Entries kept: the most recent rooms' (the script drops the oldest beyond this). */
export const HISTORY_MAX_ROOMS = 200;
/** Rooms older than this say nothing about today's buyers. */
export const HISTORY_MAX_AGE_MS = 30 * 24 * 3_600_000;
/** A room's mean goes into the history once this many of its turns have ended. */
export const TURNS_TO_RECORD = 5;
/** One busy room weighs no more than this many turns against the others. */
const MOST_WEIGHT = 50;

/** Entries as the history script lists them (showtime id, "meanTurnMs:turns:atMs", …); malformed ones skipped. */
export function entriesFromList(values: unknown[]): TurnHistoryEntry[] {
  const entries: TurnHistoryEntry[] = [];
  for (let i = 0; i + 1 < values.length; i += 2) {
    const [meanTurnMs, turns, atMs] = String(values[i + 1])
      .split(':')
      .map(Number);
    if (!(meanTurnMs! > 0) || !(turns! > 0) || !Number.isFinite(atMs)) continue;
    entries.push({ showtimeId: String(values[i]), meanTurnMs: meanTurnMs!, turns: turns!, atMs: atMs! });
  }
  return entries;
}

/**
 * The turn length to expect in a room that has not learned its own: the weighted median of
 * recent rooms' means (each weighing its turns, at most MOST_WEIGHT), so one odd room (a
 * test, a sale of free tickets) does not move it; null when no recent room saw enough turns.
 */
export function priorTurnMs(entries: TurnHistoryEntry[], nowMs: number): number | null {
  const recent = entries
    .filter(
      (entry) => entry.turns >= TURNS_TO_RECORD && entry.meanTurnMs > 0 && nowMs - entry.atMs <= HISTORY_MAX_AGE_MS,
    )
    .sort((a, b) => a.meanTurnMs - b.meanTurnMs);
  const weight = (entry: TurnHistoryEntry) => Math.min(entry.turns, MOST_WEIGHT);
  const total = recent.reduce((sum, entry) => sum + weight(entry), 0);
  let passed = 0;
  for (const entry of recent) {
    passed += weight(entry);
    if (passed >= total / 2) return Math.round(entry.meanTurnMs);
  }
  return null;
}

/**
 * The prior for callers that must not wait (a poll's answer is computed synchronously): the
 * last value read, and a read in the background when it is older than `ttlMs` (a failed read
 * is tried again after `retryMs`; the old value stays meanwhile). A read still pending after
 * `retryMs` is given up on: in a Worker, I/O a finished request left behind never completes.
 */
export function createTurnPrior(
  load: () => Promise<TurnHistoryEntry[]>,
  { ttlMs = 30_000, retryMs = 5_000, now = Date.now } = {},
) {
  let value: number | null = null;
  let readAtMs = -Infinity;
  let reading: { promise: Promise<void>; sinceMs: number } | null = null;
  function read(): Promise<void> {
    const promise: Promise<void> = load()
      .then((entries) => {
        value = priorTurnMs(entries, now());
        readAtMs = now();
      })
      .catch(() => {
        readAtMs = Math.max(readAtMs, now() - ttlMs + retryMs);
      })
      .finally(() => {
        if (reading?.promise === promise) reading = null;
      });
    reading = { promise, sinceMs: now() };
    return promise;
  }
  return {
    /** The prior as last read (null: none, or not read yet). */
    current(): number | null {
      const due = now() - readAtMs >= ttlMs;
      if (due && (!reading || now() - reading.sinceMs >= retryMs)) void read();
      return value;
    },
    /** Reads now, whatever is pending (a caller that just recorded, or that must have the value). */
    refresh: read,
  };
}

/** The turn history kept in `store` under `key` (lua/history-1.lua): recording, and the prior read from it. */
export function createTurnHistory(store: ScriptStore, key: string) {
  const prior = createTurnPrior(async () =>
    entriesFromList(readReply('history', await runScript(store, scripts.history, [key], ['list'])).rest),
  );
  return {
    prior,
    /** Puts the room's own mean in once TURNS_TO_RECORD of its turns have ended; true when it did. */
    async record(showtimeId: string, learning: AdmissionLearning): Promise<boolean> {
      const meanMs = ownTurnMs(learning);
      // The count decays with time (lua/includes/room.lua): five turns a moment ago read 4.99.
      const turns = Math.round(learning.turnsEnded);
      if (meanMs === null || turns < TURNS_TO_RECORD) return false;
      await runScript(
        store,
        scripts.history,
        [key],
        ['record', showtimeId, Math.round(meanMs), turns, Date.now(), HISTORY_MAX_ROOMS],
      );
      await prior.refresh(); // this process's estimates follow at once
      return true;
    },
  };
}
