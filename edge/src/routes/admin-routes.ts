/**
 * Operator API: read and change a room's settings live, watch its stats as server-sent
 * events, and read the audit log every change lands in (who, what, before, after, when).
 * Units at this boundary follow the contract (seconds, ISO times); the engine's are ms.
 */
import { Hono, type Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import { AppError, notFound, unavailable } from '../../../lib/errors';
import { readJsonBody } from '../../../lib/http';
import type { RoomEngine, RoomSettings, RoomSettingsPatch } from '../../../queue/src/index';
import { adminAuth } from '../middleware/admin-auth';
import type { RoomGateway } from '../rooms/room-gateway';
import { QUEUE_RETRY_AFTER_SECONDS } from '../rooms/room-gateway';
import type { EdgeStore } from '../state/edge-store';
import { SHOWTIME_ID, type EdgeEnv } from '../http-context';

export interface AdminRouteDeps {
  engine: RoomEngine;
  rooms: RoomGateway;
  edgeStore: EdgeStore;
  adminToken: string;
  statsIntervalMs?: number;
  now?: () => number;
}

const roomUpdateSchema = z
  .object({
    capacity: z.number().int().positive().max(1_000_000),
    admitPerMinute: z.number().int().positive().max(10_000_000),
    sessionTtlSeconds: z.number().int().positive().max(86_400),
    state: z.enum(['scheduled', 'open', 'paused', 'closed', 'sold_out']),
    opensAt: z.iso.datetime({ offset: true }),
  })
  .partial()
  .strict()
  .refine((value) => Object.keys(value).length > 0, { message: 'send at least one setting' });

const OPERATOR = /^[\w .@:-]{1,64}$/;

/** The contract's view of the settings (seconds and ISO), plus the engine's fields as they are. */
export function publicSettings(settings: RoomSettings) {
  return {
    capacity: settings.capacity,
    admitPerMinute: settings.admitPerMinute,
    sessionTtlSeconds: Math.round(settings.sessionTtlMs / 1000),
    state: settings.state,
    opensAt: settings.opensAtMs === null ? null : new Date(settings.opensAtMs).toISOString(),
    engine: settings,
  };
}

export function adminRoutes(deps: AdminRouteDeps) {
  const app = new Hono<EdgeEnv>();
  const now = deps.now ?? Date.now;
  app.use('*', adminAuth({ adminToken: deps.adminToken }));

  const showtimeParam = (c: Context) => {
    const id = c.req.param('id') ?? '';
    if (!SHOWTIME_ID.test(id)) throw notFound('SHOWTIME_NOT_FOUND', 'Unknown showtime');
    return id;
  };

  async function guarded<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw unavailable('QUEUE_UNAVAILABLE', 'The room store is not answering; try again shortly', QUEUE_RETRY_AFTER_SECONDS);
    }
  }

  async function readRoom(showtimeId: string) {
    const [settings, stats] = await Promise.all([deps.engine.getSettings(showtimeId), deps.engine.stats(showtimeId)]);
    if (!settings.ok || !stats.ok) return null;
    const { ok: _ok, ...counters } = stats;
    return { showtimeId, settings: publicSettings(settings.settings), stats: counters };
  }

  app.get('/showtimes/:id/room', async (c) => {
    const showtimeId = showtimeParam(c);
    const room = await guarded(() => readRoom(showtimeId));
    if (!room) throw notFound('ROOM_NOT_FOUND', 'No waiting room exists for this showtime yet');
    const audit = await guarded(() => deps.edgeStore.listAudit(showtimeId, 20));
    return c.json({ ...room, audit });
  });

  app.put('/showtimes/:id/room', async (c) => {
    const showtimeId = showtimeParam(c);
    const update = await readJsonBody(c, roomUpdateSchema);
    const patch: RoomSettingsPatch = {};
    if (update.capacity !== undefined) patch.capacity = update.capacity;
    if (update.admitPerMinute !== undefined) patch.admitPerMinute = update.admitPerMinute;
    if (update.sessionTtlSeconds !== undefined) patch.sessionTtlMs = update.sessionTtlSeconds * 1000;
    if (update.state !== undefined) patch.state = update.state;
    if (update.opensAt !== undefined) patch.opensAtMs = Date.parse(update.opensAt);
    const operator = c.req.header('x-operator');
    const actor = operator && OPERATOR.test(operator) ? operator : 'admin-token';

    const before = await guarded(() => deps.engine.getSettings(showtimeId));
    const result = await guarded(() => deps.engine.configure(showtimeId, patch));
    if (!result.ok) throw new AppError(result.code === 'invalid_input' ? 422 : 409, result.code.toUpperCase(), result.message);
    deps.rooms.invalidate(showtimeId);
    const room = await guarded(() => readRoom(showtimeId));
    await guarded(() =>
      deps.edgeStore.appendAudit({
        actor,
        action: 'room.update',
        showtimeId,
        before: before.ok ? publicSettings(before.settings) : null,
        after: room?.settings ?? null,
        atMs: now(),
      }),
    );
    return c.json(room);
  });

  app.get('/showtimes/:id/room/audit', async (c) => {
    const showtimeId = showtimeParam(c);
    return c.json({ showtimeId, entries: await guarded(() => deps.edgeStore.listAudit(showtimeId, 200)) });
  });

  app.get('/showtimes/:id/room/events', async (c) => {
    const showtimeId = showtimeParam(c);
    const intervalMs = deps.statsIntervalMs ?? 1_000;
    return streamSSE(c, async (stream) => {
      let id = 0;
      while (!stream.aborted && !stream.closed) {
        try {
          const room = await readRoom(showtimeId);
          await stream.writeSSE({ id: String(++id), event: room ? 'stats' : 'missing', data: JSON.stringify(room ?? { showtimeId }) });
        } catch {
          // Redis down: say so and keep the stream open; the next tick may succeed.
          await stream.writeSSE({ id: String(++id), event: 'unavailable', data: JSON.stringify({ showtimeId, retryAfterSeconds: QUEUE_RETRY_AFTER_SECONDS }) });
        }
        await stream.sleep(intervalMs);
      }
    });
  });

  return app;
}
