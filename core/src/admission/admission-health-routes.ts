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
import { singleQueryValue } from '../../../lib/http';
import { requireAdminToken } from '../http/auth';
import type { HealthWindow } from './health-window';

/** Holds read per showtime for the mean seats a buyer takes. */
const RECENT_HOLDS = 200;
/** The mean starts from one seat a buyer worth this many holds: the cap opens wide until holds are seen. */
const PRIOR_HOLDS = 3;
const MAX_SHOWTIMES = 500;

export interface ShowtimeInventory {
  showtimeId: number;
  seatsLeft: number;
  seatsPerHold: number;
  holdsSeen: number;
}

/** Seats and places not sold (available or held: a hold may lapse), and the recent mean per hold. */
export async function readInventory(sql: Sql, showtimeIds: number[]): Promise<ShowtimeInventory[]> {
  if (showtimeIds.length === 0) return [];
  const rows = await sql<{ showtime_id: string; seats_left: number; seats: number; holds: number }[]>`
    SELECT s.id AS showtime_id,
           coalesce((SELECT sum(greatest(0, i.capacity + i.overbook_limit - i.sold))
                       FROM fare_inventory i WHERE i.showtime_id = s.id), 0)::int AS seats_left,
           coalesce(recent.seats, 0)::int AS seats,
           coalesce(recent.holds, 0)::int AS holds
      FROM showtime s
      LEFT JOIN LATERAL (
        SELECT sum(cardinality(h.seat_codes) + coalesce(h.quantity, 0)) AS seats, count(*) AS holds
          FROM (SELECT seat_codes, quantity FROM seat_hold
                 WHERE showtime_id = s.id ORDER BY created_at DESC LIMIT ${RECENT_HOLDS}) h
      ) recent ON true
     WHERE s.id = ANY(${showtimeIds}::bigint[])`;
  return rows.map((row) => ({
    showtimeId: Number(row.showtime_id),
    seatsLeft: row.seats_left,
    seatsPerHold: (row.seats + PRIOR_HOLDS) / (row.holds + PRIOR_HOLDS),
    holdsSeen: row.holds,
  }));
}

export function admissionHealthRoutes(deps: { sql: Sql; adminToken: string; window: HealthWindow; poolSize: number }) {
  const app = new Hono();
  deps.window.setPoolSize(deps.poolSize);
  app.use('/admission-health', requireAdminToken(deps.adminToken));
  app.get('/admission-health', async (c) => {
    const raw = singleQueryValue(c, 'showtimes') ?? '';
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
