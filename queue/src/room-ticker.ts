/**
 * Drives an admission step for every registered room at a fixed interval. Safe to run on
 * many processes at once (and next to polls): the token bucket and the one-minute window
 * inside Redis cap admissions, so extra ticks only cost a script call each.
 */
import type { RoomEngine } from './room-engine';

export interface TickerLogger {
  info(object: object, message?: string): void;
  error(object: object, message?: string): void;
}

export interface RoomTickerOptions {
  engine: RoomEngine;
  intervalMs?: number;
  /** How often each room's turn length goes into the cinema's turn history (turn-history.ts). */
  recordTurnsEveryMs?: number;
  logger?: TickerLogger;
}

export interface TickRound {
  rooms: number;
  offered: number;
  skipped: number;
  failed: number;
}

export function createRoomTicker({ engine, intervalMs = 200, recordTurnsEveryMs = 15_000, logger }: RoomTickerOptions) {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const recordedAtMs = new Map<string, number>();

  /** Now and then, after the room's admission step; a failure is logged and tried next time. */
  async function recordTurns(showtimeId: string): Promise<void> {
    const now = Date.now();
    if (now - (recordedAtMs.get(showtimeId) ?? -Infinity) < recordTurnsEveryMs) return;
    recordedAtMs.set(showtimeId, now);
    await engine
      .recordTurns(showtimeId)
      .catch((error: unknown) => logger?.error({ showtimeId, err: error }, 'recording turn history failed'));
  }
  let running = false;
  let current: Promise<TickRound> | null = null;

  async function tickAll(): Promise<TickRound> {
    const round: TickRound = { rooms: 0, offered: 0, skipped: 0, failed: 0 };
    const rooms = await engine.listRooms();
    round.rooms = rooms.length;
    const driven = new Set(rooms);
    for (const showtimeId of recordedAtMs.keys()) if (!driven.has(showtimeId)) recordedAtMs.delete(showtimeId);
    await Promise.all(
      rooms.map(async (showtimeId) => {
        try {
          const result = await engine.tick(showtimeId);
          if (result.ok) {
            round.offered += result.offered;
            round.skipped += result.skipped;
            await recordTurns(showtimeId);
          }
        } catch (error) {
          // One room's failure (or Redis hiccup) must not stop the others or the loop.
          round.failed++;
          logger?.error({ showtimeId, err: error }, 'tick failed');
        }
      }),
    );
    return round;
  }

  function schedule() {
    if (!running) return;
    timer = setTimeout(async () => {
      current = tickAll().catch((error: unknown) => {
        logger?.error({ err: error }, 'listing rooms failed');
        return { rooms: 0, offered: 0, skipped: 0, failed: 1 };
      });
      const round = await current;
      current = null;
      if (round.offered > 0 || round.skipped > 0) logger?.info({ ...round }, 'admitted');
      schedule();
    }, intervalMs);
  }

  return {
    tickAll,
    start() {
      if (running) return;
      running = true;
      schedule();
    },
    /** Stops the loop and waits for a round in progress. */
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      if (current) await current;
    },
  };
}

/**
 * Every driven room's turn length into the cinema's turn history, for runtimes without a
 * ticker (a Worker's cron). A room that fails is skipped; the count recorded is returned.
 */
export async function recordTurnHistory(engine: Pick<RoomEngine, 'listRooms' | 'recordTurns'>): Promise<number> {
  const rooms = await engine.listRooms();
  const results = await Promise.all(rooms.map((showtimeId) => engine.recordTurns(showtimeId).catch(() => null)));
  return results.filter((result) => result?.ok && result.recorded).length;
}
