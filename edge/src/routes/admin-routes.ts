/**
 * Operator API: read and change a room's settings and its sale state live, watch its stats as
 * server-sent events, and read the audit log every change lands in (who, from where, what,
 * before, after, when). Changes go to the core's sale control first (PostgreSQL is the source
 * of truth, the audit entry is written in the same transaction), then to Redis's copy.
 * Units at this boundary follow the contract (seconds, ISO times); the engine's are ms.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { streamSSE } from 'hono/streaming';
import { AppError, notFound, unavailable } from '../../../lib/errors';
import { readJsonBody } from '../../../lib/http';
import type { RoomEngine } from '../../../queue/src/index';
import { publicSettings, roomUpdateSchema } from '../../../queue/src/room-update';
import type { CoreClient } from '../core-client';
import type { RoomCatalog, SaleControl } from '../rooms/room-catalog';
import type { RoomGateway } from '../rooms/room-gateway';
import { QUEUE_RETRY_AFTER_SECONDS } from '../rooms/room-gateway';
import { SHOWTIME_ID, type EdgeEnv } from '../http-context';
import { operatorHeaders } from '../middleware/admin-auth';
import { createLastKnown, type LastKnownRead } from '../state/last-known';

export { publicSettings } from '../../../queue/src/room-update';

export interface AdminRouteDeps {
  engine: RoomEngine;
  rooms: RoomGateway;
  catalog: RoomCatalog;
  core: CoreClient;
  /** middleware/admin-auth.ts: sets `operator` ({name, address, via}) on the context. */
  adminAuth: MiddlewareHandler<EdgeEnv>;
  statsIntervalMs?: number;
  /** How long the room view waits for the core before answering from what it last said (ms). */
  coreViewBudgetMs?: number;
}

/** How current the core's part of a room view is: the room's own part comes from Redis. */
function coreFreshness(read: LastKnownRead<unknown>) {
  return {
    fresh: read.fresh,
    answeredAt: read.answeredAtMs === null ? null : new Date(read.answeredAtMs).toISOString(),
    staleSince: read.staleSinceMs === null ? null : new Date(read.staleSinceMs).toISOString(),
    reason: read.reason,
    /** What in the view is the core's and not current. */
    stale: read.fresh ? [] : ['saleState', 'version', 'audit'],
  };
}

interface AuditPage {
  showtimeId: string;
  entries: unknown[];
}

/** The core's refusal, passed on as it is (status, code, message, details). */
function coreError(status: number, body: unknown): AppError {
  const error = (body as { error?: { code?: string; message?: string } } | null)?.error;
  if (status >= 500 || !error?.code)
    return unavailable('CORE_UNAVAILABLE', 'The seat service is not answering; try again shortly', 2);
  const { code, message, ...details } = error as Record<string, unknown>;
  return new AppError(
    status,
    String(code),
    String(message ?? code),
    Object.keys(details).length > 0 ? { details } : {},
  );
}

export function adminRoutes(deps: AdminRouteDeps) {
  const app = new Hono<EdgeEnv>();
  app.use('*', deps.adminAuth);

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
      throw unavailable(
        'QUEUE_UNAVAILABLE',
        'The room store is not answering; try again shortly',
        QUEUE_RETRY_AFTER_SECONDS,
      );
    }
  }

  async function readRoom(showtimeId: string) {
    const [settings, stats] = await Promise.all([deps.engine.getSettings(showtimeId), deps.engine.stats(showtimeId)]);
    if (!settings.ok || !stats.ok) return null;
    const { ok: _ok, admission, ...counters } = stats;
    // The closed loop (queue/src/admission-governor.ts): the rate admission really runs at, and why.
    return {
      showtimeId,
      settings: publicSettings(settings.settings),
      stats: counters,
      effectiveAdmitPerMinute: admission.effectiveAdmitPerMinute,
      admission,
    };
  }

  /** The room as Redis has it, restored from the database first when Redis lost it. */
  async function readOrRestore(showtimeId: string) {
    const room = await guarded(() => readRoom(showtimeId));
    if (room) return room;
    await guarded(() => deps.catalog.ensureRoom(showtimeId));
    return guarded(() => readRoom(showtimeId));
  }

  async function controlOf(showtimeId: string): Promise<SaleControl> {
    const { status, body } = await deps.core.adminJson<SaleControl>('GET', `/admin/showtimes/${showtimeId}/room`);
    if (status !== 200) throw coreError(status, body);
    return body;
  }

  async function auditOf(showtimeId: string, limit: number): Promise<AuditPage> {
    const { status, body } = await deps.core.adminJson<AuditPage>(
      'GET',
      `/admin/showtimes/${showtimeId}/room/audit?limit=${limit}`,
    );
    if (status !== 200) throw coreError(status, body);
    return body;
  }

  // The operator must see the room while the core struggles: above all then, since that is
  // when the closed loop lowers the rate. The room's part comes from Redis; the core's part
  // (sale state, version, audit) waits at most a budget, then comes from what the core last
  // said, marked stale and since when.
  const budgetMs = deps.coreViewBudgetMs ?? 150;
  const controls = createLastKnown<SaleControl>({ budgetMs });
  const audits = createLastKnown<AuditPage>({ budgetMs });
  const coreView = (showtimeId: string) => ({
    control: () => controlOf(showtimeId),
    audit: () => auditOf(showtimeId, 20),
  });

  app.get('/showtimes/:id/room', async (c) => {
    const showtimeId = showtimeParam(c);
    const load = coreView(showtimeId);
    const [control, audit, room] = await Promise.all([
      controls.read(showtimeId, load.control),
      audits.read(showtimeId, load.audit),
      readOrRestore(showtimeId),
    ]);
    if (!room) throw notFound('ROOM_NOT_FOUND', 'No waiting room exists for this showtime');
    return c.json({
      ...room,
      // Without any answer from the core yet: no sale state (the room's own state is in settings),
      // and the room copy's version (the same versioned settings).
      saleState: control.value?.saleState ?? null,
      version: control.value?.version ?? room.settings.version,
      audit: audit.value?.entries ?? [],
      core: coreFreshness(control.fresh && !audit.fresh ? audit : control),
    });
  });

  app.put('/showtimes/:id/room', async (c) => {
    const showtimeId = showtimeParam(c);
    const update = await readJsonBody(c, roomUpdateSchema);
    const { status, body } = await deps.core.adminJson<SaleControl>('PUT', `/admin/showtimes/${showtimeId}/room`, {
      body: update,
      headers: operatorHeaders(c.get('operator')),
    });
    if (status !== 200) throw coreError(status, body);
    // Saved in PostgreSQL; now the copy. Should Redis be away, the change stands and the sync
    // applies it when Redis is back: 202, saying so.
    try {
      await deps.catalog.apply(body);
      deps.rooms.invalidate(showtimeId);
      const room = await readRoom(showtimeId);
      return c.json({ ...room, showtimeId, saleState: body.saleState, version: body.version, applied: true });
    } catch {
      c.header('Retry-After', String(QUEUE_RETRY_AFTER_SECONDS));
      return c.json(
        { showtimeId, saleState: body.saleState, version: body.version, applied: false, settings: body.room },
        202,
      );
    }
  });

  /**
   * Support's lookup of a queue id a buyer quotes: the ticket it stands for, and who holds it
   * now: waiting in line (with the place), in a live turn (from the core's ledger), or neither
   * (the turn is over, the buyer left, or was passed over). Never a list: one id, one answer.
   */
  app.get('/showtimes/:id/room/queue-ids/:queueId', async (c) => {
    const showtimeId = showtimeParam(c);
    const quoted = c.req.param('queueId') ?? '';
    const ticket = await deps.rooms.queueIds.ticketOf(showtimeId, quoted);
    if (ticket === null)
      throw notFound('QUEUE_ID_NOT_FOUND', 'This is not a queue id of this showtime; check it for mistyped characters');
    const queueId = await deps.rooms.queueIds.idOf(showtimeId, ticket);
    const found = await guarded(() => deps.engine.findTicket(showtimeId, ticket));
    if (!found.ok) throw notFound('ROOM_NOT_FOUND', 'No waiting room exists for this showtime');
    const base = { showtimeId, queueId, ticket, lineLength: found.lineLength };
    if (found.customerId) {
      return c.json({
        ...base,
        status: 'waiting',
        customerId: found.customerId,
        position: found.position,
        turnExpiresAt: null,
      });
    }
    const control = (await controlOf(showtimeId)) as SaleControl & {
      turns?: { customerId: string; ticket: number; expiresAtMs: number }[];
    };
    const turn = control.turns?.find((t) => Number(t.ticket) === ticket);
    if (turn) {
      return c.json({
        ...base,
        status: 'admitted',
        customerId: turn.customerId,
        position: null,
        turnExpiresAt: new Date(turn.expiresAtMs).toISOString(),
      });
    }
    return c.json({ ...base, status: 'not_in_line', customerId: null, position: null, turnExpiresAt: null });
  });

  app.get('/showtimes/:id/room/audit', async (c) => {
    return c.json(await auditOf(showtimeParam(c), 200));
  });

  app.get('/showtimes/:id/room/events', async (c) => {
    const showtimeId = showtimeParam(c);
    const intervalMs = deps.statsIntervalMs ?? 1_000;
    return streamSSE(c, async (stream) => {
      let id = 0;
      const load = coreView(showtimeId);
      while (!stream.aborted && !stream.closed) {
        try {
          // The core's part never holds a tick up: asked in the background, told as last known.
          controls.refresh(showtimeId, load.control);
          const room = await readRoom(showtimeId);
          const known = controls.peek(showtimeId);
          const data = room
            ? { ...room, saleState: known.value?.saleState ?? null, core: coreFreshness(known) }
            : { showtimeId };
          await stream.writeSSE({ id: String(++id), event: room ? 'stats' : 'missing', data: JSON.stringify(data) });
        } catch {
          // Redis down: say so and keep the stream open; the next tick may succeed.
          await stream.writeSSE({
            id: String(++id),
            event: 'unavailable',
            data: JSON.stringify({ showtimeId, retryAfterSeconds: QUEUE_RETRY_AFTER_SECONDS }),
          });
        }
        await stream.sleep(intervalMs);
      }
    });
  });

  return app;
}
