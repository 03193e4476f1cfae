import { Hono } from 'hono';
import type { Sql } from 'postgres';
import { notFound } from '../../../lib/errors';
import { parseWith, singleQueryValue, readJsonBody } from '../../../lib/http';
import type { VerifyAccessToken } from '../../../lib/access-token';
import type { AdmissionCheck } from '../http/admission';
import { assertTokenForShowtime, requireAccessToken, type AccessVariables } from '../http/auth';
import { showtimeIdParam, uuidParam } from '../http/params';
import { findShowtime } from '../catalog/showtime-repo';
import { createCouplePairs } from './couple-pairs';
import { acceptSeatsHold, holdRequestSchema, type HoldService } from './hold-service';
import { listShowSeats } from './seat-repo';
import { seatAvailability, seatMapQuerySchema } from './seat-availability';
import { listFareClasses } from '../fares/fare-repo';

/** Buyer routes on seats and holds; every one needs an access token for the showtime. */
export function seatRoutes(deps: {
  sql: Sql;
  holds: HoldService;
  verifyAccessToken: VerifyAccessToken;
  admission?: AdmissionCheck | null;
}) {
  const app = new Hono<{ Variables: AccessVariables }>();
  // Per route, not app.use('*'): this app is mounted at '/' beside public and admin routes.
  const auth = requireAccessToken(deps.verifyAccessToken);
  const couplePairs = createCouplePairs(deps.sql);

  app.get('/showtimes/:showtimeId/seats', auth, async (c) => {
    const showtimeId = showtimeIdParam(c.req.param('showtimeId'));
    assertTokenForShowtime(c.get('access'), showtimeId);
    const { view } = parseWith(seatMapQuerySchema, { view: singleQueryValue(c, 'view') });
    const [showtime, seats, fareClasses] = await Promise.all([
      findShowtime(deps.sql, showtimeId),
      listShowSeats(deps.sql, showtimeId),
      listFareClasses(deps.sql, showtimeId),
    ]);
    if (!showtime) throw notFound('SHOWTIME_NOT_FOUND', 'No such showtime');
    const counts = { total: seats.length, available: 0, held: 0, booked: 0 };
    for (const seat of seats)
      counts[seat.status === 'AVAILABLE' ? 'available' : seat.status === 'HELD' ? 'held' : 'booked']++;
    if (view === 'available') {
      // Load clients: the seats as strings per row (seat-availability.ts), not 1,440 objects.
      return c.json({
        showtimeId,
        saleState: showtime.sale_state,
        counts,
        ...seatAvailability(seats),
        generatedAt: new Date().toISOString(),
      });
    }
    return c.json({
      showtimeId,
      title: showtime.title,
      startsAt: showtime.starts_at.toISOString(),
      saleState: showtime.sale_state,
      priceCents: showtime.price_cents,
      currency: showtime.currency,
      maxSeatsPerCustomer: showtime.max_seats_per_customer,
      holdTtlMs: showtime.hold_ttl_ms,
      counts,
      // Prices per class; general-admission classes are bought by quantity (no seats listed).
      fareClasses: fareClasses.map((row) => ({
        fareClass: row.fare_class,
        label: row.label,
        priceCents: row.price_cents,
        seated: row.seated,
        available: row.available,
      })),
      seats: seats.map((seat) => ({
        code: seat.seat_code,
        row: seat.row_number,
        rowLabel: seat.row_label,
        column: seat.column_number,
        label: seat.label,
        type: seat.seat_type,
        fareClass: seat.fare_class,
        status: seat.status,
      })),
      generatedAt: new Date().toISOString(),
    });
  });

  app.post('/showtimes/:showtimeId/holds', auth, async (c) => {
    const showtimeId = showtimeIdParam(c.req.param('showtimeId'));
    const access = c.get('access');
    assertTokenForShowtime(access, showtimeId);
    const body = await readJsonBody(c, holdRequestSchema, acceptSeatsHold);
    await deps.admission?.(access);
    if ('seats' in body) await couplePairs.assertWholePairs(showtimeId, body.seats);
    const customerId = access.customerId;
    const hold =
      'seats' in body
        ? await deps.holds.createHold({ showtimeId, customerId, seats: body.seats })
        : 'count' in body
          ? await deps.holds.createBestHold({ showtimeId, customerId, ...body })
          : await deps.holds.createPlacesHold({
              showtimeId,
              customerId,
              fareClass: body.fareClass,
              quantity: body.quantity,
            });
    c.header('Location', `/holds/${hold.holdId}`);
    return c.json(hold, 201);
  });

  app.get('/holds/:holdId', auth, async (c) => {
    const holdId = uuidParam(c.req.param('holdId'), 'HOLD_NOT_FOUND', 'hold');
    return c.json(await deps.holds.getHold(holdId, c.get('access')));
  });

  app.delete('/holds/:holdId', auth, async (c) => {
    const holdId = uuidParam(c.req.param('holdId'), 'HOLD_NOT_FOUND', 'hold');
    await deps.holds.cancelHold(holdId, c.get('access'));
    return c.body(null, 204);
  });

  return app;
}
