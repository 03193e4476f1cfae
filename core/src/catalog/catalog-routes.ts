import { insertAudit } from '../audit/audit-log';
import { Hono } from 'hono';
import type { Sql } from 'postgres';
import { notFound } from '../../../lib/errors';
import { readJsonBody } from '../../../lib/http';
import { requireAdminToken } from '../http/auth';
import { numericIdParam, showtimeIdParam } from '../http/params';
import { hallSchema, newShowtimeSchema, showtimeChangesSchema, venueSchema } from './catalog-schemas';
import { findShowtime, insertShowtime, listUpcomingShowtimes } from './showtime-repo';
import { adminShowtime, publicShowtime } from './showtime-view';
import { insertHallWithSeats, insertVenue, listVenuesWithHalls } from './venue-repo';
import { mapDatabaseError } from '../db/sql-errors';
import type { SaleControlService } from '../sale/sale-control';
import { operatorOf } from '../sale/sale-routes';

/**
 * GET /showtimes: public, what is on sale or opening soon. GET /showtimes/:id: one showtime in
 * any state, closed and started included, so a booking's page and the return from payment
 * still find a showtime the list has dropped.
 */
export function publicCatalogRoutes(deps: { sql: Sql }) {
  const app = new Hono();
  app.get('/showtimes', async (c) => c.json((await listUpcomingShowtimes(deps.sql, 100)).map(publicShowtime)));
  app.get('/showtimes/:showtimeId', async (c) => {
    const showtime = await findShowtime(deps.sql, showtimeIdParam(c.req.param('showtimeId')));
    if (!showtime) throw notFound('SHOWTIME_NOT_FOUND', 'No such showtime');
    return c.json(publicShowtime(showtime));
  });
  return app;
}

/** What an operator needs to set a sale up; mounted under /admin behind the admin token. */
export function adminCatalogRoutes(deps: { sql: Sql; adminToken: string; sale: SaleControlService }) {
  const app = new Hono();
  app.use('*', requireAdminToken(deps.adminToken));
  const rethrow = (error: unknown): never => {
    throw mapDatabaseError(error);
  };

  app.get('/venues', async (c) => c.json(await listVenuesWithHalls(deps.sql)));

  // Venues and halls belong to no showtime: audited by what they are (subject), version 0.
  app.post('/venues', async (c) => {
    const body = await readJsonBody(c, venueSchema);
    const operator = operatorOf(c);
    const venue = await deps.sql
      .begin(async (tx) => {
        const created = await insertVenue(tx, body);
        await insertAudit(
          tx,
          {
            showtimeId: null,
            subject: `venue:${created.id}`,
            operator,
            action: 'venue.create',
            before: null,
            after: created,
          },
          'created',
        );
        return created;
      })
      .catch(rethrow);
    return c.json(venue, 201);
  });

  app.post('/venues/:venueId/halls', async (c) => {
    const venueId = numericIdParam(c.req.param('venueId'), 'VENUE_NOT_FOUND', 'venue');
    const body = await readJsonBody(c, hallSchema);
    const seats = body.seats.map((seat) => ({ ...seat, label: seat.label ?? seat.code }));
    const operator = operatorOf(c);
    const hall = await deps.sql
      .begin(async (tx) => {
        const created = await insertHallWithSeats(tx, {
          venueId,
          name: body.name,
          seats,
          ...(body.idealRow ? { idealRow: body.idealRow } : {}),
        });
        await insertAudit(
          tx,
          {
            showtimeId: null,
            subject: `hall:${created.id}`,
            operator,
            action: 'hall.create',
            before: null,
            after: { ...created, idealRow: body.idealRow ?? null },
          },
          'created',
        );
        return created;
      })
      .catch(rethrow);
    return c.json(hall, 201);
  });

  app.post('/showtimes', async (c) => {
    const body = await readJsonBody(c, newShowtimeSchema);
    const operator = operatorOf(c);
    const created = await deps.sql
      .begin(async (tx) => {
        const row = await insertShowtime(tx, body);
        const view = adminShowtime((await findShowtime(tx, row.id))!);
        await insertAudit(
          tx,
          { showtimeId: row.id, operator, action: 'showtime.create', before: null, after: view },
          'created',
        );
        return row;
      })
      .catch(rethrow);
    return c.json(adminShowtime((await findShowtime(deps.sql, created.id))!), 201);
  });

  app.get('/showtimes/:showtimeId', async (c) => {
    const showtime = await findShowtime(deps.sql, showtimeIdParam(c.req.param('showtimeId')));
    if (!showtime) throw notFound('SHOWTIME_NOT_FOUND', 'No such showtime');
    return c.json(adminShowtime(showtime));
  });

  app.patch('/showtimes/:showtimeId', async (c) => {
    const showtimeId = showtimeIdParam(c.req.param('showtimeId'));
    const changes = await readJsonBody(c, showtimeChangesSchema);
    // Through sale control: the switch and the sale's times are the room's too (versioned, audited).
    await deps.sale.change(showtimeId, { catalog: changes }, operatorOf(c), 'showtime.update');
    return c.json(adminShowtime((await findShowtime(deps.sql, showtimeId))!));
  });

  return app;
}
