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
  logger?: TickerLogger;
}

export interface TickRound {
  rooms: number;
  offered: number;
  skipped: number;
  failed: number;
}

export function createRoomTicker({ engine, intervalMs = 200, logger }: RoomTickerOptions) {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running = false;
  let current: Promise<TickRound> | null = null;

  async function tickAll(): Promise<TickRound> {
    const round: TickRound = { rooms: 0, offered: 0, skipped: 0, failed: 0 };
    const rooms = await engine.listRooms();
    round.rooms = rooms.length;
    await Promise.all(
      rooms.map(async (showtimeId) => {
        try {
          const result = await engine.tick(showtimeId);
          if (result.ok) {
            round.offered += result.offered;
            round.skipped += result.skipped;
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
