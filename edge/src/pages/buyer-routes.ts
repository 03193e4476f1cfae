/**
 * The buyer's pages and what only a browser needs: the sale list, the sale page, the leave
 * beacon and the static assets. API clients never need any of this (the JSON API under /api
 * is unchanged); the pages call that same API with the HttpOnly cookies the edge sets.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { CoreClient } from '../core-client';
import { cookieNames, SHOWTIME_ID, type EdgeEnv } from '../http-context';
import type { RoomGateway } from '../rooms/room-gateway';
import { createSingleFlightCache } from '../state/single-flight-cache';
import type { CustomerTokens } from '../tokens/customer-token';
import { findAsset } from './assets';
import { pageCompression, type Brotli } from './page-compression';
import { myBookingsPage, salePage, showtimeListPage, type PublicShowtime } from './buyer-pages';
import { createDeferredLeaves, VIEW_ID } from './deferred-leave';
import { messagePage, pageHeaders, requestLocale } from './html';
import { fairnessPage } from './fairness-page';
import { checkPlace, readFairnessForm } from './fairness-check';
import type { ReceiptSigner } from '../../../lib/fairness-receipt';
import type { FairnessReader } from '../rooms/fairness-reader';
import { isLocale, LOCALE_COOKIE } from '../../../lib/i18n/locale';
import { translator } from '../../../lib/i18n/translate';

export interface BuyerRouteDeps {
  core: CoreClient;
  rooms: RoomGateway;
  customerTokens: CustomerTokens;
  /** How long a leave beacon waits for the same buyer to come back (a reload). */
  leaveGraceMs?: number;
  /** The leave beacon is flood-limited per client address like the API's leave (`join` budget). */
  leaveFloodLimit?: MiddlewareHandler<EdgeEnv>;
  logger: { warn(object: object, message?: string): void };
  /** Brotli where the runtime has it (Node); gzip otherwise. */
  brotli?: Brotli;
  /** The join receipts' keys and the published logs, for "Check my place". */
  receipts: ReceiptSigner;
  fairnessLogs: FairnessReader;
}

const HOLD_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** Why "Check my place" could not check, as a status (a sale not over yet is no error). */
const CANNOT_STATUS = { notEnded: 200, unknownShowtime: 404, noShowtime: 422, badLog: 422, unavailable: 503 } as const;

export function buyerRoutes(deps: BuyerRouteDeps) {
  const app = new Hono<EdgeEnv>();
  // Pages and assets go out gzip-compressed to clients that accept it (the sale page's
  // HTML, CSS and script shrink to about a third). Per route, not `use('*')`: this app is
  // mounted at '/', and the JSON API must stay as it is.
  const compressed = pageCompression(deps.brotli, { threshold: 1024 });
  // The crowd loads these pages too: one core call per second at most, stale while it is down.
  const catalog = createSingleFlightCache<PublicShowtime[]>({ ttlMs: 1_000, staleForMs: 300_000 });
  const leaves = createDeferredLeaves({
    graceMs: deps.leaveGraceMs ?? 4_000,
    leave: (showtimeId, customerId) => deps.rooms.leave(showtimeId, customerId),
    onError: (error) => deps.logger.warn({ err: error }, 'deferred leave failed'),
  });

  // How long a turn lasts, told before admission; read from the room at most every 5 s per showtime.
  const turnLengths = createSingleFlightCache<number | null>({ ttlMs: 5_000, staleForMs: 60_000 });
  async function turnLengthMs(id: string): Promise<number | null> {
    try {
      return (
        await turnLengths.get(id, async () => {
          const held = await deps.rooms.engine.getSettings(id);
          return held.ok ? held.settings.sessionTtlMs : null;
        })
      ).value;
    } catch {
      return null; // Redis away: the page simply does not say it
    }
  }

  async function showtimes(): Promise<PublicShowtime[] | null> {
    return (await catalogEntry())?.value ?? null;
  }

  async function catalogEntry() {
    try {
      return await catalog.get('all', async () => {
        const { status, body } = await deps.core.getJson<PublicShowtime[]>('/showtimes');
        if (status !== 200 || !Array.isArray(body)) throw new Error(`core answered ${status}`);
        return body;
      });
    } catch {
      return null;
    }
  }

  // One showtime in any state (closed and started too: a booking's page and the return from
  // payment must still render), at most one core call per second per showtime.
  const oneShowtime = createSingleFlightCache<PublicShowtime | null>({ ttlMs: 1_000, staleForMs: 300_000 });
  async function findShowtime(id: string): Promise<PublicShowtime | null | 'unavailable'> {
    try {
      return (
        await oneShowtime.get(id, async () => {
          const { status, body } = await deps.core.getJson<PublicShowtime>(`/showtimes/${id}`);
          if (status === 404) return null;
          if (status !== 200 || !body) throw new Error(`core answered ${status}`);
          return body;
        })
      ).value;
    } catch {
      return 'unavailable';
    }
  }

  async function customerOf(c: Context): Promise<string | null> {
    const token = getCookie(c, cookieNames.customer);
    if (!token) return null;
    try {
      return await deps.customerTokens.verify(token);
    } catch {
      return null;
    }
  }

  /** The page's language and its own address (the language switch comes back to it). */
  const pageOf = (c: Context) => {
    const locale = requestLocale(c);
    // The same address answers in either language: caches must key on what chose it.
    c.header('Content-Language', locale);
    c.header('Vary', 'Accept-Language, Cookie, Accept-Encoding');
    const url = new URL(c.req.url);
    return { locale, path: `${url.pathname}${url.search}` };
  };

  const busy = (c: Context) => {
    pageHeaders(c);
    const page = pageOf(c);
    const t = translator(page.locale);
    c.header('Retry-After', '5');
    return c.html(
      messagePage(
        t('page.busy.title'),
        t('page.busy.text'),
        { href: c.req.path, label: t('page.tryAgain') },
        page.locale,
        page.path,
      ),
      503,
    );
  };

  app.get('/', compressed, async (c) => {
    const list = await showtimes();
    if (!list) return busy(c);
    pageHeaders(c);
    return c.html(showtimeListPage(list, pageOf(c)));
  });

  app.get('/showtimes/:id', compressed, async (c) => {
    const id = c.req.param('id');
    const showtime = SHOWTIME_ID.test(id) ? await findShowtime(id) : null;
    if (showtime === 'unavailable') return busy(c);
    pageHeaders(c);
    const page = pageOf(c);
    if (!showtime) {
      const t = translator(page.locale);
      return c.html(
        messagePage(
          t('page.showtimeNotFound.title'),
          t('page.showtimeNotFound.text'),
          { href: '/', label: t('page.allShowtimes') },
          page.locale,
          page.path,
        ),
        404,
      );
    }
    const customerId = await customerOf(c);
    // A new view supersedes any earlier one's leave beacon: a reload keeps the place.
    const viewId = leaves.viewed(id, customerId);
    const hold = c.req.query('hold');
    const status = c.req.query('status');
    return c.html(
      salePage(
        showtime,
        {
          joined: Boolean(getCookie(c, cookieNames.queue(id))) && Boolean(customerId),
          customer: Boolean(customerId),
          returnHold: hold && HOLD_ID.test(hold) ? hold : null,
          returnStatus: status === 'succeeded' || status === 'failed' || status === 'pending' ? status : null,
          viewId,
          turnLengthMs: await turnLengthMs(id),
        },
        page,
      ),
    );
  });

  // Check my place: the form, and its answer (a POST, so the receipt stays out of addresses and logs).
  app.get('/fairness', compressed, (c) => {
    pageHeaders(c);
    const showtime = c.req.query('showtime') ?? '';
    return c.html(fairnessPage(pageOf(c), readFairnessForm({ showtime }), { kind: 'form' }));
  });
  app.post('/fairness', compressed, async (c) => {
    pageHeaders(c);
    const form = readFairnessForm(await c.req.parseBody().catch(() => ({})));
    const outcome = await checkPlace(deps.fairnessLogs, deps.receipts, form);
    if (outcome.kind === 'cannot') c.status(CANNOT_STATUS[outcome.reason]);
    return c.html(fairnessPage(pageOf(c), form, outcome));
  });

  app.get('/bookings', compressed, (c) => {
    pageHeaders(c);
    return c.html(myBookingsPage(pageOf(c)));
  });

  // The visible language switch: remembers the choice for a year and goes back to the page.
  // Only a path of this site is followed back (never another origin).
  app.get('/language/:locale', (c) => {
    const locale = c.req.param('locale');
    const back = c.req.query('back') ?? '/';
    const safeBack = back.startsWith('/') && !back.startsWith('//') && !back.startsWith('/\\') ? back : '/';
    if (!isLocale(locale)) return c.redirect(safeBack, 303);
    setCookie(c, LOCALE_COOKIE, locale, { path: '/', maxAge: 365 * 86_400, sameSite: 'Lax' });
    c.header('Cache-Control', 'no-store');
    return c.redirect(safeBack, 303);
  });

  // navigator.sendBeacon can only POST; the customer cookie says who is leaving.
  app.post('/showtimes/:id/leave', deps.leaveFloodLimit ?? ((_c, next) => next()), async (c) => {
    const id = c.req.param('id');
    const viewId = c.req.query('view') ?? '';
    const customerId = SHOWTIME_ID.test(id) && VIEW_ID.test(viewId) ? await customerOf(c) : null;
    if (!customerId) return c.body(null, 204);
    const pending = leaves.schedule(id, customerId, viewId);
    const ctx = (() => {
      try {
        return c.executionCtx;
      } catch {
        return null; // Node: no execution context, the timer keeps the process busy anyway
      }
    })();
    ctx?.waitUntil(pending);
    return c.body(null, 202);
  });

  app.get('/assets/:name', compressed, (c) => {
    const asset = findAsset(c.req.param('name'));
    if (!asset) return c.text('Not found', 404);
    c.header('Content-Type', asset.type);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Cache-Control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    return c.body(asset.body);
  });

  return app;
}
