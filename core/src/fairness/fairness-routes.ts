/** GET /showtimes/:id/fairness: public, no token (anyone may check a sale). */
import { Hono } from 'hono';
import { notFound } from '../../../lib/errors';
import { showtimeIdParam } from '../http/params';
import type { FairnessService } from './fairness-service';

export function fairnessRoutes(deps: { fairness: FairnessService }) {
  const app = new Hono();
  app.get('/showtimes/:showtimeId/fairness', async (c) => {
    const published = await deps.fairness.published(showtimeIdParam(c.req.param('showtimeId')));
    if (!published) throw notFound('SHOWTIME_NOT_FOUND', 'No such showtime');
    // A live head changes every admission step; an ended sale's log still grows by late leaves.
    c.header('Cache-Control', 'no-store');
    return c.json(published);
  });
  return app;
}
