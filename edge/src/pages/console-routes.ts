/**
 * The operator console under /admin: sign-in (the admin token once, then an HttpOnly
 * session cookie, see admin-session.ts), the rooms list, one room's page, and its live feed
 * as server-sent events: the room's stats plus what the console alone needs (seat counts
 * from the core, hold conflicts and rate-limited requests per minute from this edge).
 * Changes go through the operator API (/api/admin/…), so they land in the audit log.
 */
import { operatorHeaders } from '../middleware/admin-auth';
import { Hono, type Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import { signAccessToken } from '../../../lib/access-token';
import { requireJsonContentType } from '../../../lib/http';
import { parseSafeJson } from '../../../lib/json-guard';
import type { TokenKeyMaterial } from '../../../lib/token-keys';
import type { RoomEngine } from '../../../queue/src/index';
import type { CoreClient } from '../core-client';
import { isHttps, SHOWTIME_ID, type EdgeEnv } from '../http-context';
import { publicSettings } from '../routes/admin-routes';
import { createSingleFlightCache } from '../state/single-flight-cache';
import { createLastKnown } from '../state/last-known';
import type { LoginLockout } from '../limits/login-lockout';
import type { PowGate } from '../pow/pow-gate';
import type { PowGovernor } from '../pow/pow-governor';
import { ADMIN_COOKIE, cleanOperatorName, sameSecret, type ConsoleSessions } from './admin-session';
import type { PublicShowtime } from './buyer-pages';
import {
  loginPage,
  roomPage,
  roomsPage,
  type FairnessHeadView,
  type RoomSummary,
  type SaleSettingsView,
} from './console-pages';
import { messagePage, pageHeaders } from './html';
import type { ShowtimeActivity } from './showtime-activity';
import { createStatsHistory } from './stats-history';

/** The body through the JSON guard (depth, NUL, lone surrogates), or null when it is not safe JSON. */
function parsedOrNull(text: string): unknown {
  try {
    return parseSafeJson(text);
  } catch {
    return null;
  }
}

export interface ConsoleRouteDeps {
  engine: RoomEngine;
  core: CoreClient;
  tokenKeys: TokenKeyMaterial;
  adminToken: string;
  sessions: ConsoleSessions;
  /** Shared with the admin API: wrong tokens from one address, by either door, count together. */
  lockout: LoginLockout;
  /** The join's proof of work, to show the operator the difficulty in force and why. */
  pow: { gate: PowGate; governor: PowGovernor };
  activity: ShowtimeActivity;
  /** Who is signing in, for the lockout after repeated wrong tokens (the address's limit key). */
  clientAddress: (c: Context) => string | null;
  /** The full address, for the session and the audit log (default: clientAddress). */
  sourceAddress?: (c: Context) => string | null;
  statsIntervalMs?: number;
  /** How long the live view waits for the core's seat counts before showing the last known ones (ms). */
  coreViewBudgetMs?: number;
}

const saleSettingsSchema = z
  .object({ holdTtlSeconds: z.number().int().min(10).max(3600), maxSeatsPerCustomer: z.number().int().min(1).max(50) })
  .partial()
  .strict()
  .refine((value) => Object.keys(value).length > 0);

const saleSettingsView = (body: { holdTtlMs?: number; maxSeatsPerCustomer?: number }): SaleSettingsView => ({
  holdTtlSeconds: Math.round((body.holdTtlMs ?? 0) / 1000),
  maxSeatsPerCustomer: body.maxSeatsPerCustomer ?? 0,
});

interface SeatCounts {
  total: number;
  available: number;
  held: number;
  booked: number;
}

export function consoleRoutes(deps: ConsoleRouteDeps) {
  const app = new Hono<EdgeEnv>();
  const seatCounts = createSingleFlightCache<SeatCounts | null>({ ttlMs: 1_000, staleForMs: 60_000 });
  // The live view never waits on a stalled core: past the budget it shows the last counts, saying so.
  const knownSeats = createLastKnown<SeatCounts | null>({ budgetMs: deps.coreViewBudgetMs ?? 150 });
  const history = createStatsHistory();

  /** The live console session of this browser, or null. */
  const signedIn = (c: Context) => deps.sessions.find(getCookie(c, ADMIN_COOKIE)).catch(() => null);

  /** The sale's hold time and seat limit, as the core's admin view has them (null: not now). */
  /** The admission log's head, for the console's fair-draw panel; null if the core does not answer. */
  async function fairnessHeadOf(showtimeId: string): Promise<FairnessHeadView | null> {
    try {
      const answer = await deps.core.getJson<FairnessHeadView>(`/showtimes/${showtimeId}/fairness`);
      return answer.status === 200 && answer.body ? answer.body : null;
    } catch {
      return null;
    }
  }

  async function saleSettingsOf(showtimeId: string): Promise<SaleSettingsView | null> {
    if (!SHOWTIME_ID.test(showtimeId)) return null;
    const answer = await deps.core
      .adminJson<{ holdTtlMs?: number; maxSeatsPerCustomer?: number }>('GET', `/admin/showtimes/${showtimeId}`)
      .catch(() => null);
    return answer?.status === 200 ? saleSettingsView(answer.body) : null;
  }

  async function catalog(): Promise<PublicShowtime[]> {
    const { status, body } = await deps.core
      .getJson<PublicShowtime[]>('/showtimes')
      .catch(() => ({ status: 503, body: null }));
    return status === 200 && Array.isArray(body) ? body : [];
  }

  /** The core's seat counts, read with a short-lived access token the edge signs for itself. */
  async function loadSeats(showtimeId: string): Promise<SeatCounts | null> {
    const { value } = await seatCounts.get(showtimeId, async () => {
      const token = await signAccessToken(deps.tokenKeys, {
        customerId: 'operator-console',
        showtimeId: Number(showtimeId),
        sessionId: 'operator-console',
        expiresAtMs: Date.now() + 60_000,
      });
      const { status, body } = await deps.core.getJson<{ counts: SeatCounts }>(`/showtimes/${showtimeId}/seats`, {
        authorization: `Bearer ${token}`,
      });
      if (status >= 500) throw new Error(`core answered ${status}`);
      return body?.counts ?? null;
    });
    return value;
  }

  /** The seat counts within the budget, or the last known ones; `fresh` says which. */
  async function seatsOf(
    showtimeId: string,
  ): Promise<{ seats: SeatCounts | null; fresh: boolean; staleSince: string | null }> {
    if (!deps.tokenKeys.signing) return { seats: null, fresh: true, staleSince: null };
    const read = await knownSeats.read(showtimeId, () => loadSeats(showtimeId)).catch(() => null);
    if (!read) return { seats: null, fresh: false, staleSince: null };
    return {
      seats: read.value,
      fresh: read.fresh,
      staleSince: read.staleSinceMs === null ? null : new Date(read.staleSinceMs).toISOString(),
    };
  }

  /** A room whose showtime the core cannot describe right now: its number, at least. */
  const unlisted = (id: string): PublicShowtime => ({
    id: Number(id),
    title: `Showtime ${id}`,
    startsAt: '',
    saleState: 'unlisted',
    opensAt: '',
    seatsAvailable: 0,
  });

  /** One showtime in any state (closed, started, sold out), by its own title; null when the core has none. */
  async function showtimeById(id: string): Promise<PublicShowtime | null> {
    const answer = await deps.core.getJson<PublicShowtime>(`/showtimes/${id}`).catch(() => null);
    if (answer?.status === 404) return null;
    return answer?.status === 200 && answer.body ? answer.body : unlisted(id);
  }

  /** Showtimes whose rooms matter now as the core's sale control lists them, closed ones included. */
  async function currentIds(): Promise<string[]> {
    const answer = await deps.core.adminJson<{ showtimeId: number }[]>('GET', '/admin/rooms').catch(() => null);
    return answer?.status === 200 && Array.isArray(answer.body)
      ? answer.body.map((room) => String(room.showtimeId))
      : [];
  }

  app.get('/admin', async (c) => {
    pageHeaders(c);
    const session = await signedIn(c);
    if (!session) return c.html(loginPage(null));
    const listed = await catalog();
    let unavailable = false;
    const roomIds = await deps.engine.listRooms().catch(() => ((unavailable = true), [] as string[]));
    const known = new Set(listed.map((s) => String(s.id)));
    // Closed and ended rooms stay listed, under their own titles: the public list leaves them out.
    const others = [...new Set([...roomIds, ...(await currentIds())])]
      .filter((id) => SHOWTIME_ID.test(id) && !known.has(id))
      .slice(0, 200);
    const described = await Promise.all(others.map(async (id) => (await showtimeById(id)) ?? unlisted(id)));
    const showtimes = [...listed, ...described];
    const rooms: RoomSummary[] = await Promise.all(
      showtimes.map(async (showtime) => {
        const stats = await deps.engine.stats(String(showtime.id)).catch(() => ((unavailable = true), null));
        const settings = stats?.ok ? await deps.engine.getSettings(String(showtime.id)).catch(() => null) : null;
        if (!stats?.ok || !settings?.ok) return { showtime, room: null };
        return {
          showtime,
          room: {
            state: stats.state,
            capacity: settings.settings.capacity,
            waiting: stats.waiting + stats.prequeue,
            active: stats.active,
            admittedPerMinute: stats.admittedLastMinute,
          },
        };
      }),
    );
    return c.html(roomsPage(rooms, unavailable, session.csrf));
  });

  app.post('/admin/login', async (c) => {
    pageHeaders(c);
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const token = typeof form.token === 'string' ? form.token : '';
    const address = deps.clientAddress(c) ?? 'unknown';
    const refuseLockedOut = () => {
      const minutes = Math.ceil(deps.lockout.windowMs / 60_000);
      c.header('Retry-After', String(Math.ceil(deps.lockout.windowMs / 1000)));
      return c.html(loginPage(`Too many wrong tokens from this address. Try again in up to ${minutes} minutes.`), 429);
    };
    if (await deps.lockout.isLocked(address)) return refuseLockedOut();
    // 401 with the form shown again and the reason: a client, a monitor or a scanner reads a
    // refusal, the person reads a page they can correct.
    if (!token || !(await sameSecret(token, deps.adminToken))) {
      await deps.lockout.recordFailure(address);
      return c.html(
        loginPage(
          'That admin token is not right. Check it and try again.',
          typeof form.operator === 'string' ? form.operator.slice(0, 64) : '',
        ),
        401,
      );
    }
    // A fresh id at every sign-in: a session id planted before sign-in never becomes valid.
    await deps.sessions.revoke(getCookie(c, ADMIN_COOKIE));
    const operator = cleanOperatorName(typeof form.operator === 'string' ? form.operator : undefined);
    const { id } = await deps.sessions.create(operator, (deps.sourceAddress ?? deps.clientAddress)(c) ?? address);
    setCookie(c, ADMIN_COOKIE, id, {
      httpOnly: true,
      sameSite: 'Strict',
      secure: isHttps(c),
      path: '/',
      maxAge: Math.floor(deps.sessions.ttlMs / 1000),
    });
    return c.redirect('/admin', 303);
  });

  // Sign-out ends the session on the server. It needs the session's CSRF token from the
  // console's form, so another site cannot sign an operator out.
  app.post('/admin/logout', async (c) => {
    pageHeaders(c);
    const cookie = getCookie(c, ADMIN_COOKIE);
    const session = await deps.sessions.find(cookie);
    if (session) {
      const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
      const csrf = typeof form.csrf === 'string' ? form.csrf : '';
      if (!(await sameSecret(csrf, session.csrf))) {
        return c.html(
          messagePage('Sign-out refused', 'This sign-out did not come from the console. Use the Sign out button.', {
            href: '/admin',
            label: 'Back to the console',
          }),
          403,
        );
      }
      await deps.sessions.revoke(cookie);
    }
    deleteCookie(c, ADMIN_COOKIE, { path: '/' });
    return c.redirect('/admin', 303);
  });

  app.get('/admin/showtimes/:id', async (c) => {
    pageHeaders(c);
    const session = await signedIn(c);
    if (!session) return c.redirect('/admin', 303);
    const id = c.req.param('id');
    let showtime: PublicShowtime | null | undefined = SHOWTIME_ID.test(id) ? await showtimeById(id) : undefined;
    if (!showtime && SHOWTIME_ID.test(id) && (await deps.engine.getSettings(id).catch(() => null))?.ok)
      showtime = unlisted(id);
    if (!showtime)
      return c.html(
        messagePage(
          'Showtime not found',
          'No showtime on sale or opening soon, and no waiting room, has this number.',
          { href: '/admin', label: 'All rooms' },
        ),
        404,
      );
    const [sale, fairness] = await Promise.all([saleSettingsOf(id), fairnessHeadOf(id)]);
    return c.html(roomPage(showtime, session.operator, session.csrf, sale, fairness));
  });

  /**
   * Hold time and seats per customer: settings of the sale at the core, changed through its
   * sale control (versioned and in the audit log). Same guard as the operator API's writes:
   * the session cookie plus `X-Console: 1`, which no cross-site form can send.
   */
  app.patch('/admin/showtimes/:id/sale', async (c) => {
    const session = await signedIn(c);
    if (!session) return c.json({ error: { code: 'MISSING_TOKEN', message: 'Sign in to the console first' } }, 401);
    if (c.req.header('x-console') !== '1')
      return c.json(
        { error: { code: 'CONSOLE_HEADER_REQUIRED', message: 'Send X-Console: 1 with console changes' } },
        403,
      );
    const id = c.req.param('id');
    if (!SHOWTIME_ID.test(id))
      return c.json({ error: { code: 'SHOWTIME_NOT_FOUND', message: 'Unknown showtime' } }, 404);
    requireJsonContentType(c); // 415, as on every route that reads a JSON body
    const parsed = saleSettingsSchema.safeParse(await c.req.text().then(parsedOrNull));
    if (!parsed.success)
      return c.json(
        {
          error: {
            code: 'VALIDATION_FAILED',
            message: 'Send holdTtlSeconds (10 to 3600) and/or maxSeatsPerCustomer (1 to 50) as whole numbers',
          },
        },
        422,
      );
    const { holdTtlSeconds, maxSeatsPerCustomer } = parsed.data;
    const changes = {
      ...(holdTtlSeconds !== undefined ? { holdTtlMs: holdTtlSeconds * 1000 } : {}),
      ...(maxSeatsPerCustomer !== undefined ? { maxSeatsPerCustomer } : {}),
    };
    // Audited like the API's changes: the signed-in operator, by the console, from this address.
    const headers = operatorHeaders({
      name: session.operator,
      via: 'console',
      address: (deps.sourceAddress ?? deps.clientAddress)(c) ?? 'unknown',
    });
    const answer = await deps.core
      .adminJson<{ holdTtlMs?: number; maxSeatsPerCustomer?: number; error?: unknown }>(
        'PATCH',
        `/admin/showtimes/${id}`,
        { body: changes, headers },
      )
      .catch(() => null);
    if (!answer)
      return c.json(
        { error: { code: 'CORE_UNAVAILABLE', message: 'The seat service is not answering; try again shortly' } },
        503,
      );
    if (answer.status !== 200) return c.json(answer.body as object, answer.status as 400);
    return c.json(saleSettingsView(answer.body));
  });

  // What the charts showed before this page loaded (this process's last five minutes).
  app.get('/admin/showtimes/:id/history', async (c) => {
    if (!(await signedIn(c)))
      return c.json({ error: { code: 'MISSING_TOKEN', message: 'Sign in to the console first' } }, 401);
    const id = c.req.param('id');
    if (!SHOWTIME_ID.test(id))
      return c.json({ error: { code: 'SHOWTIME_NOT_FOUND', message: 'Unknown showtime' } }, 404);
    c.header('Cache-Control', 'no-store');
    return c.json({ samples: history.samples(id) });
  });

  app.get('/admin/showtimes/:id/live', async (c) => {
    if (!(await signedIn(c)))
      return c.json({ error: { code: 'MISSING_TOKEN', message: 'Sign in to the console first' } }, 401);
    const id = c.req.param('id');
    if (!SHOWTIME_ID.test(id))
      return c.json({ error: { code: 'SHOWTIME_NOT_FOUND', message: 'Unknown showtime' } }, 404);
    const intervalMs = deps.statsIntervalMs ?? 1_000;
    return streamSSE(c, async (stream) => {
      let eventId = 0;
      while (!stream.aborted && !stream.closed) {
        try {
          const [settings, stats, seats] = await Promise.all([
            deps.engine.getSettings(id),
            deps.engine.stats(id),
            seatsOf(id),
          ]);
          const room =
            settings.ok && stats.ok
              ? { settings: publicSettings(settings.settings), stats: (({ ok: _ok, ...rest }) => rest)(stats) }
              : null;
          const pow = settings.ok
            ? deps.pow.governor.showtimeLevel(
                id,
                settings.settings.powDifficulty ?? 0,
                settings.settings.powMaxDifficulty ?? 0,
              )
            : null;
          const data = {
            showtimeId: id,
            at: new Date().toISOString(),
            room,
            seats: seats.seats,
            perMinute: deps.activity.lastMinute(id),
            pow,
            core: { fresh: seats.fresh, staleSince: seats.staleSince },
          };
          history.record(id, {
            at: Date.now(),
            values: {
              waiting: stats.ok ? stats.waiting + stats.prequeue : null,
              active: stats.ok ? stats.active : null,
              admittedPerMinute: stats.ok ? stats.admittedLastMinute : null,
              seatsAvailable: seats.seats?.available ?? null,
              seatsHeld: seats.seats?.held ?? null,
              seatsBooked: seats.seats?.booked ?? null,
              holdConflicts: data.perMinute.holdConflicts,
              rateLimited: data.perMinute.rateLimited,
            },
          });
          await stream.writeSSE({ id: String(++eventId), event: 'stats', data: JSON.stringify(data) });
        } catch {
          await stream.writeSSE({
            id: String(++eventId),
            event: 'unavailable',
            data: JSON.stringify({ showtimeId: id, retryAfterSeconds: 5 }),
          });
        }
        await stream.sleep(intervalMs);
      }
    });
  });

  return app;
}
