import { Hono } from 'hono';
import { readJsonBody } from '../../../lib/http';
import { requireAdminToken } from '../http/auth';
import { showtimeIdParam } from '../http/params';
import { operatorOf } from '../sale/sale-routes';
import { fareClassChangeSchema, type FareService } from './fare-service';
import { seatClassChangeSchema, type SeatClassService } from './seat-classes';

/**
 * Operator routes for fare classes, mounted under /admin behind the admin token:
 * GET  /showtimes/:id/fares             every class with price, capacity, overbooking and live counts
 * PUT  /showtimes/:id/fares/:fareClass  create a general-admission class or change one (audited)
 * PUT  /showtimes/:id/seat-classes      move free seats to another seated class (audited)
 */
export function fareAdminRoutes(deps: { fares: FareService; seatClasses: SeatClassService; adminToken: string }) {
  const app = new Hono();
  app.use('/showtimes/:showtimeId/fares', requireAdminToken(deps.adminToken));
  app.use('/showtimes/:showtimeId/fares/*', requireAdminToken(deps.adminToken));
  app.use('/showtimes/:showtimeId/seat-classes', requireAdminToken(deps.adminToken));

  app.get('/showtimes/:showtimeId/fares', async (c) => {
    const showtimeId = showtimeIdParam(c.req.param('showtimeId'));
    return c.json({ showtimeId, fareClasses: await deps.fares.list(showtimeId) });
  });

  app.put('/showtimes/:showtimeId/fares/:fareClass', async (c) => {
    const showtimeId = showtimeIdParam(c.req.param('showtimeId'));
    const body = await readJsonBody(c, fareClassChangeSchema);
    const result = await deps.fares.change(showtimeId, c.req.param('fareClass'), body, operatorOf(c));
    return c.json(result.fareClass, result.created ? 201 : 200);
  });

  app.put('/showtimes/:showtimeId/seat-classes', async (c) => {
    const showtimeId = showtimeIdParam(c.req.param('showtimeId'));
    const body = await readJsonBody(c, seatClassChangeSchema);
    return c.json(await deps.seatClasses.change(showtimeId, body, operatorOf(c)));
  });

  return app;
}
