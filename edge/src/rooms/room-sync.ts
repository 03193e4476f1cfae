/**
 * Keeps Redis's copies of the rooms at the database's version: every few seconds one read of
 * the core's room list, one Redis read per current room, and a restore for each room Redis
 * lost or holds an older copy of. A change made straight at the core (a catalog pause) or a
 * Redis that came back empty is therefore applied within one interval, by every edge process
 * and the queue ticker alike (restores are versioned, so racing writers cannot go back).
 */
import type { RoomCatalog } from './room-catalog';

export interface RoomSyncOptions {
  everyMs: number;
  logger?: { debug?(object: object, message?: string): void; warn(object: object, message?: string): void };
  /** Called with the number of rooms written in a pass (restored or brought up to date). */
  onSynced?: (count: number) => void;
}

export function startRoomSync(catalog: Pick<RoomCatalog, 'syncAll'>, options: RoomSyncOptions) {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  let failing = false;

  async function pass() {
    try {
      const written = await catalog.syncAll();
      if (written > 0) options.onSynced?.(written);
      if (failing) options.logger?.warn({}, 'room sync recovered');
      failing = false;
    } catch (error) {
      // The core or Redis is away: the rooms keep what they have; say so once, not every pass.
      if (!failing)
        options.logger?.warn({ err: error instanceof Error ? error.message : String(error) }, 'room sync failing');
      failing = true;
    }
    if (!stopped) {
      timer = setTimeout(() => void pass(), options.everyMs);
      (timer as { unref?: () => void }).unref?.();
    }
  }

  timer = setTimeout(() => void pass(), 0);
  (timer as { unref?: () => void }).unref?.();
  return {
    /** One pass now (tests, and the Workers cron). */
    runOnce: pass,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
