/**
 * GET /admin/admission-health?showtimes=1,2: what the waiting room's closed loop steers by
 * (queue/src/admission-governor.ts). The core's recent health (health-window.ts) and, per
 * showtime, the seats it could still sell and how many a buyer takes on average. Operator
 * token, and the edge's service token where the core asks for one, like every admin route.
 * A database that does not answer is 503 (the loop then admits nobody).
 */
import { Hono } from 'hono';
import type { Sql } from 'postgres';
import { unprocessable } from '../../../lib/errors';
import { requireAdminToken } from '../http/auth';
import type { HealthWindow } from './health-window';
import { readInventory } from './inventory-repo';

const MAX_SHOWTIMES = 500;

export function admissionHealthRoutes(deps: { sql: Sql; adminToken: string; window: HealthWindow; poolSize: number }) {
  const app = new Hono();
  deps.window.setPoolSize(deps.poolSize);
  app.use('/admission-health', requireAdminToken(deps.adminToken));
  app.get('/admission-health', async (c) => {
    const raw = c.req.query('showtimes') ?? '';
    const ids = raw === '' ? [] : raw.split(',');
    if (ids.length > MAX_SHOWTIMES || ids.some((id) => !/^\d{1,18}$/.test(id))) {
      throw unprocessable(
        'VALIDATION_FAILED',
        `showtimes must be up to ${MAX_SHOWTIMES} showtime ids, comma-separated`,
        {
          issues: [{ path: ['showtimes'], message: 'comma-separated showtime ids' }],
        },
      );
    }
    const showtimes = await readInventory(deps.sql, ids.map(Number));
    // This request is in flight too, and is not load.
    const reading = deps.window.read(deps.poolSize, 1);
    return c.json({ ...reading, showtimes });
  });
  return app;
}
