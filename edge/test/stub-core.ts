/**
 * A stand-in for the core with the same contract (paths, access-token checks, error shape),
 * so the edge's route tests do not depend on the database. It records what reached it:
 * the fault and flow tests assert on forwarded headers, raw bodies and call counts.
 */
import { Hono } from 'hono';
import { createAccessTokenVerifier, type AccessClaims } from '../../lib/access-token';
import { AppError, forbidden, notFound, unauthorized } from '../../lib/errors';
import { createErrorHandler, notFoundHandler } from '../../lib/http';
import type { TokenKeyMaterial } from '../../lib/token-keys';
import { operatorSettingsOf, roomUpdateSchema } from '../../queue/src/room-update';

export interface StubShowtime {
  id: number;
  saleState: string;
  opensAt: string;
  /** Sale control as the core keeps it: what the operator set, and its version. */
  settings: Record<string, unknown>;
  version: number;
}

const ROOM_STATE: Record<string, string> = {
  on_sale: 'open',
  opening_soon: 'scheduled',
  paused: 'paused',
  closed: 'closed',
  sold_out: 'sold_out',
};
const SALE_STATE: Record<string, string> = {
  open: 'on_sale',
  scheduled: 'opening_soon',
  paused: 'paused',
  closed: 'closed',
  sold_out: 'sold_out',
};

export interface ForwardedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export function createStubCore(tokenKeys: TokenKeyMaterial) {
  const verify = createAccessTokenVerifier(tokenKeys);
  const showtimes = new Map<number, StubShowtime>();
  const holds = new Map<string, { showtimeId: number; customerId: string; seats: string[] }>();
  const received: ForwardedRequest[] = [];
  let seatMapReads = 0;
  let nextShowtime = 1_000 + Math.floor(Math.random() * 1_000_000);
  let nextHold = 1;

  const app = new Hono<{ Variables: { access: AccessClaims } }>();
  app.onError(createErrorHandler(() => {}));
  app.notFound(notFoundHandler);
  app.use('*', async (c, next) => {
    const headers: Record<string, string> = {};
    c.req.raw.headers.forEach((value, name) => (headers[name] = value));
    received.push({
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      headers,
      body: await c.req.raw.clone().text(),
    });
    await next();
  });
  const requireAccess = async (c: any, next: () => Promise<void>) => {
    const match = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '');
    if (!match) throw unauthorized('MISSING_TOKEN', 'no token');
    c.set('access', await verify(match[1]!));
    await next();
  };
  const showtimeFor = (c: any) => {
    const showtime = showtimes.get(Number(c.req.param('id')));
    if (!showtime) throw notFound('SHOWTIME_NOT_FOUND', 'Unknown showtime');
    if (c.get('access').showtimeId !== showtime.id) throw forbidden('WRONG_SHOWTIME', 'wrong showtime');
    return showtime;
  };

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/showtimes', (c) =>
    c.json(
      [...showtimes.values()].map(({ id, saleState, opensAt }) => ({
        id,
        title: `Stub showtime ${id}`,
        startsAt: new Date(Date.parse(opensAt) + 86_400_000).toISOString(),
        saleState,
        opensAt,
        seatsAvailable: 24,
      })),
    ),
  );
  // One showtime in any state, as the core's public read answers it (the sale page asks by id).
  app.get('/showtimes/:id', (c) => {
    const showtime = showtimes.get(Number(c.req.param('id')));
    if (!showtime) throw notFound('SHOWTIME_NOT_FOUND', 'Unknown showtime');
    return c.json({
      id: showtime.id,
      title: `Stub showtime ${showtime.id}`,
      saleState: showtime.saleState,
      opensAt: showtime.opensAt,
    });
  });

  // Who every operator write named, as the core's audit log would record it.
  const operatorWrites: {
    method: string;
    path: string;
    actor: string | null;
    via: string | null;
    source: string | null;
  }[] = [];
  app.use('/admin/*', async (c, next) => {
    if (c.req.method !== 'GET') {
      operatorWrites.push({
        method: c.req.method,
        path: new URL(c.req.url).pathname,
        actor: c.req.header('x-operator') ?? null,
        via: c.req.header('x-operator-via') ?? null,
        source: c.req.header('x-operator-source') ?? null,
      });
    }
    await next();
  });

  // Sale control, as the core answers it (room = the complete copy for Redis).
  const audit: {
    showtimeId: string;
    actor: string;
    actorVia: string;
    source: string | null;
    action: string;
    before: unknown;
    after: unknown;
    version: number;
    atMs: number;
  }[] = [];
  const control = (showtime: StubShowtime) => ({
    showtimeId: showtime.id,
    version: showtime.version,
    saleState: showtime.saleState,
    saleSetting: showtime.saleState.toUpperCase(),
    opensAt: showtime.opensAt,
    startsAt: new Date(Date.parse(showtime.opensAt) + 86_400_000).toISOString(),
    settings: showtime.settings,
    room: {
      ...showtime.settings,
      state: ROOM_STATE[showtime.saleState] ?? 'closed',
      opensAtMs: Date.parse(showtime.opensAt),
      version: showtime.version,
    },
  });
  const known = (c: any) => {
    const showtime = showtimes.get(Number(c.req.param('id')));
    if (!showtime) throw notFound('SHOWTIME_NOT_FOUND', 'No such showtime');
    return showtime;
  };
  app.get('/admin/rooms', (c) => c.json([...showtimes.values()].map(control)));
  /** The ledger's live turns of a showtime, as the core would restore them. */
  const liveTurns = (showtimeId: number) =>
    [...turns.entries()]
      .filter(([key, turn]) => key.startsWith(`${showtimeId}/`) && !turn.ended && turn.expiresAtMs > Date.now())
      .map(([, turn]) => turn);
  app.get('/admin/showtimes/:id/room', (c) => {
    const showtime = known(c);
    const live = [...turns.entries()]
      .filter(([key, turn]) => key.startsWith(`${showtime.id}/`) && !turn.ended && turn.expiresAtMs > Date.now())
      .map(([, { customerId, ticket, expiresAtMs }]) => ({ customerId, ticket, expiresAtMs }));
    return c.json({ ...control(showtime), turns: live });
  });
  app.put('/admin/showtimes/:id/room', async (c) => {
    const showtime = known(c);
    const before = control(showtime).room;
    const update = roomUpdateSchema.safeParse(await c.req.json());
    if (!update.success) throw new AppError(422, 'VALIDATION_FAILED', 'Invalid room update');
    const { state, opensAt } = update.data;
    const settings = operatorSettingsOf(update.data);
    if (typeof state === 'string') showtime.saleState = SALE_STATE[state] ?? showtime.saleState;
    if (typeof opensAt === 'string') showtime.opensAt = opensAt;
    showtime.settings = { ...showtime.settings, ...settings };
    showtime.version++;
    audit.unshift({
      showtimeId: String(showtime.id),
      actor: c.req.header('x-operator') ?? 'admin-token',
      actorVia: c.req.header('x-operator-via') === 'console' ? 'console' : 'token',
      source: c.req.header('x-operator-source') ?? null,
      action: 'room.update',
      before,
      after: control(showtime).room,
      version: showtime.version,
      atMs: Date.now(),
    });
    return c.json(control(showtime));
  });
  // The turn ledger, kept as the core keeps it (restored with the room).
  const turns = new Map<
    string,
    { customerId: string; ticket: number; expiresAtMs: number; ended: boolean; createdAtMs: number }
  >();
  app.post('/admin/showtimes/:id/turns', async (c) => {
    const showtime = known(c);
    const turn = (await c.req.json()) as { customerId: string; ticket: number; expiresAtMs: number };
    turns.set(`${showtime.id}/${turn.customerId}/${turn.ticket}`, { ...turn, ended: false, createdAtMs: Date.now() });
    return c.body(null, 204);
  });
  app.post('/admin/showtimes/:id/turns/end', async (c) => {
    const showtime = known(c);
    const { customerId, grantedBefore } = (await c.req.json()) as { customerId: string; grantedBefore?: string };
    const beforeMs = grantedBefore ? Date.parse(grantedBefore) : Number.POSITIVE_INFINITY;
    let ended = 0;
    for (const [key, turn] of turns) {
      if (key.startsWith(`${showtime.id}/${customerId}/`) && !turn.ended && turn.createdAtMs <= beforeMs)
        (turn.ended = true), ended++;
    }
    return c.json({ ended });
  });
  app.get('/admin/showtimes/:id/room/audit', (c) => {
    const showtime = known(c);
    return c.json({
      showtimeId: String(showtime.id),
      entries: audit.filter((entry) => entry.showtimeId === String(showtime.id)),
    });
  });
  app.get('/showtimes/:id/seats', requireAccess, (c) => {
    const showtime = showtimeFor(c);
    seatMapReads++;
    return c.json({
      showtimeId: showtime.id,
      seats: [{ code: 'A1', status: 'AVAILABLE' }],
      read: seatMapReads,
      view: c.req.query('view') ?? null,
      query: new URL(c.req.url).search,
    });
  });
  app.post('/showtimes/:id/holds', requireAccess, async (c) => {
    const showtime = showtimeFor(c);
    let body: { seats?: string[] };
    try {
      body = (await c.req.json()) as { seats?: string[] };
    } catch {
      throw new AppError(400, 'MALFORMED_JSON', 'The request body is not valid JSON');
    }
    if (!body || typeof body !== 'object' || !Array.isArray(body.seats))
      throw new AppError(422, 'VALIDATION_FAILED', 'seats');
    const holdId = `hold-${nextHold++}`;
    holds.set(holdId, { showtimeId: showtime.id, customerId: c.get('access').customerId, seats: body.seats ?? [] });
    return c.json({ holdId, seats: body.seats ?? [], expiresAt: new Date(Date.now() + 600_000).toISOString() }, 201);
  });
  const ownHold = (c: any) => {
    const hold = holds.get(c.req.param('holdId'));
    if (!hold) throw notFound('HOLD_NOT_FOUND', 'Unknown hold');
    if (hold.customerId !== c.get('access').customerId) throw forbidden('NOT_YOUR_HOLD', 'not yours');
    return hold;
  };
  app.get('/holds/:holdId', requireAccess, (c) => c.json({ holdId: c.req.param('holdId'), ...ownHold(c) }));
  app.delete('/holds/:holdId', requireAccess, (c) => {
    ownHold(c);
    holds.delete(c.req.param('holdId'));
    return c.body(null, 204);
  });
  app.post('/holds/:holdId/checkout', requireAccess, (c) => {
    ownHold(c);
    if (!c.req.header('idempotency-key'))
      throw new AppError(400, 'IDEMPOTENCY_KEY_REQUIRED', 'Send an Idempotency-Key');
    return c.json({ paymentId: 'pay_1', checkoutUrl: 'http://pay.test/p/1', expiresAt: new Date().toISOString() }, 201);
  });
  app.get('/bookings/:bookingId', requireAccess, (c) => c.json({ bookingId: c.req.param('bookingId') }));
  // The customer's bookings (the edge sends a customer access token; its checks are the core's own tests').
  app.get('/bookings', (c) => c.json({ bookings: [] }));
  // Bookings it knows are named bk_…; any other is unknown, as the core would say.
  const knownBooking = (c: any) => {
    const bookingId = c.req.param('bookingId') as string;
    if (!bookingId.startsWith('bk_')) throw notFound('BOOKING_NOT_FOUND', 'Unknown booking');
    return bookingId;
  };
  app.get('/bookings/:bookingId/cancellation', (c) =>
    c.json({ bookingId: knownBooking(c), refundCents: 0, cancellable: true }),
  );
  app.delete('/bookings/:bookingId', (c) => c.json({ bookingId: knownBooking(c), status: 'CANCELLED' }));

  // The sale's own settings and its fares, as the core's admin API answers them.
  const sale = new Map<number, { holdTtlMs: number; maxSeatsPerCustomer: number }>();
  const saleOf = (showtime: StubShowtime) => sale.get(showtime.id) ?? { holdTtlMs: 300_000, maxSeatsPerCustomer: 4 };
  const showtimeView = (showtime: StubShowtime) => ({
    id: showtime.id,
    title: `Stub showtime ${showtime.id}`,
    startsAt: control(showtime).startsAt,
    priceCents: 1250,
    currency: 'EUR',
    ...saleOf(showtime),
  });
  app.get('/admin/showtimes/:id', (c) => c.json(showtimeView(known(c))));
  app.patch('/admin/showtimes/:id', async (c) => {
    const showtime = known(c);
    sale.set(showtime.id, { ...saleOf(showtime), ...((await c.req.json()) as object) });
    return c.json(showtimeView(showtime));
  });
  app.get('/admin/showtimes/:id/fares', (c) => c.json({ showtimeId: known(c).id, fareClasses: [] }));
  app.put('/admin/showtimes/:id/fares/:fareClass', async (c) =>
    c.json({ fareClass: c.req.param('fareClass'), showtimeId: known(c).id, ...((await c.req.json()) as object) }),
  );
  app.put('/admin/showtimes/:id/seat-classes', async (c) =>
    c.json({ showtimeId: known(c).id, ...((await c.req.json()) as object) }),
  );
  const policies = new Map<number, unknown>();
  app.get('/admin/showtimes/:id/refund-policy', (c) => c.json(policies.get(known(c).id) ?? { tiers: [] }));
  app.put('/admin/showtimes/:id/refund-policy', async (c) => {
    const showtime = known(c);
    policies.set(showtime.id, await c.req.json());
    return c.json(policies.get(showtime.id));
  });
  app.post('/payments/callback', async (c) =>
    c.json({ received: await c.req.text(), signature: c.req.header('x-signature') ?? null }),
  );

  return {
    app,
    received,
    operatorWrites,
    liveTurns,
    get seatMapReads() {
      return seatMapReads;
    },
    /** What an operator set, stored as the core would (engine units), with a new version. */
    setRoomSettings(showtimeId: number, settings: Record<string, unknown>) {
      const showtime = showtimes.get(showtimeId)!;
      const { state, ...rest } = settings;
      if (typeof state === 'string') showtime.saleState = SALE_STATE[state] ?? showtime.saleState;
      showtime.settings = { ...showtime.settings, ...rest };
      showtime.version++;
    },
    addShowtime(saleState = 'on_sale', opensAt = new Date(Date.now() - 60_000)): number {
      const id = nextShowtime++;
      showtimes.set(id, { id, saleState, opensAt: opensAt.toISOString(), settings: {}, version: 1 });
      return id;
    },
    fetch: (async (input: string | URL | Request, init?: RequestInit) =>
      app.request(String(input).replace(/^https?:\/\/[^/]+/, ''), init)) as typeof fetch,
  };
}

export type StubCore = ReturnType<typeof createStubCore>;
