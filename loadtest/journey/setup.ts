/**
 * A fresh sale for one run, set up through the public operator APIs: a venue, a rectangular
 * hall and an on-sale showtime with a short hold TTL on the core (`/admin/…`), and the room's
 * capacity, admission rate and session TTL on the edge (`PUT /api/admin/showtimes/:id/room`).
 * Also the live figures the sampler reads once a second.
 */
export interface SaleOptions {
  coreUrl: string;
  edgeUrl: string;
  adminToken: string;
  rows: number;
  columns: number;
  holdTtlMs: number;
  capacity: number;
  admitPerMinute: number;
  sessionTtlSeconds: number;
  /** 'scheduled' leaves the room to be opened later (opening.js schedules it); default 'open'. */
  roomState?: 'open' | 'scheduled';
  /** Proof of work at join: the room's base difficulty in bits (unset: the room's own). */
  powDifficulty?: number;
  /** The core's CORE_SERVICE_TOKEN, where the core requires it for its own admin routes. */
  serviceToken?: string;
}

async function adminCall(
  url: string,
  token: string,
  method: string,
  body?: unknown,
  serviceToken?: string,
): Promise<any> {
  const response = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      'x-operator': 'loadtest',
      // The core answers only the edge when it has a service token; the edge ignores this header.
      ...(serviceToken ? { 'x-service-token': serviceToken } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url} → ${response.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

const ROW_LABELS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';

export async function createSale(options: SaleOptions): Promise<{ showtimeId: string; seats: number }> {
  const label = `loadtest-${new Date().toISOString()}-${Math.random().toString(36).slice(2, 6)}`;
  const venue = await adminCall(
    `${options.coreUrl}/admin/venues`,
    options.adminToken,
    'POST',
    { name: label, city: 'Loopback' },
    options.serviceToken,
  );
  const seats = [];
  for (let row = 1; row <= options.rows; row++) {
    for (let column = 1; column <= options.columns; column++) {
      const rowLabel = ROW_LABELS[row - 1]!;
      seats.push({ code: `${rowLabel}${column}`, row, rowLabel, column });
    }
  }
  const hall = await adminCall(
    `${options.coreUrl}/admin/venues/${venue.id}/halls`,
    options.adminToken,
    'POST',
    { name: 'Load hall', seats },
    options.serviceToken,
  );
  const now = Date.now();
  const showtime = await adminCall(
    `${options.coreUrl}/admin/showtimes`,
    options.adminToken,
    'POST',
    {
      hallId: hall.id,
      title: `Load test ${label}`,
      startsAt: new Date(now + 86_400_000).toISOString(),
      // A room to be scheduled must not have opened yet: its showtime opens in an hour.
      opensAt: new Date(options.roomState === 'scheduled' ? now + 3_600_000 : now - 60_000).toISOString(),
      saleState: 'OPEN',
      priceCents: 1200,
      currency: 'EUR',
      maxSeatsPerCustomer: 8,
      holdTtlMs: options.holdTtlMs,
    },
    options.serviceToken,
  );
  const showtimeId = String(showtime.id);
  await configureRoom(options, showtimeId);
  return { showtimeId, seats: seats.length };
}

export async function configureRoom(
  options: Pick<
    SaleOptions,
    'edgeUrl' | 'adminToken' | 'capacity' | 'admitPerMinute' | 'sessionTtlSeconds' | 'roomState' | 'powDifficulty'
  >,
  showtimeId: string,
) {
  return adminCall(`${options.edgeUrl}/api/admin/showtimes/${showtimeId}/room`, options.adminToken, 'PUT', {
    state: options.roomState ?? 'open',
    capacity: options.capacity,
    admitPerMinute: options.admitPerMinute,
    sessionTtlSeconds: options.sessionTtlSeconds,
    ...(options.powDifficulty !== undefined ? { powDifficulty: options.powDifficulty } : {}),
  });
}

export interface LiveFigures {
  waiting?: number;
  active?: number;
  admittedTotal?: number;
  seatsAvailable?: number;
  seatsHeld?: number;
  seatsBooked?: number;
  roomSettings?: { capacity: number; admitPerMinute: number; admitBurst: number };
}

/** The room's stats from the edge and the seat counts from the core; missing parts stay undefined. */
export async function readLiveFigures(
  options: { coreUrl: string | null; edgeUrl: string; adminToken: string; serviceToken?: string },
  showtimeId: string,
): Promise<LiveFigures> {
  const figures: LiveFigures = {};
  const [room, show] = await Promise.allSettled([
    adminCall(`${options.edgeUrl}/api/admin/showtimes/${showtimeId}/room`, options.adminToken, 'GET'),
    options.coreUrl
      ? adminCall(
          `${options.coreUrl}/admin/showtimes/${showtimeId}`,
          options.adminToken,
          'GET',
          undefined,
          options.serviceToken,
        )
      : Promise.reject(new Error('no core url')),
  ]);
  if (room.status === 'fulfilled' && room.value?.stats) {
    figures.waiting = room.value.stats.waiting;
    figures.active = room.value.stats.active + room.value.stats.offered;
    figures.admittedTotal = room.value.stats.admitted;
    figures.roomSettings = {
      capacity: room.value.settings.capacity,
      admitPerMinute: room.value.settings.admitPerMinute,
      admitBurst: room.value.settings.engine?.admitBurst ?? Math.ceil(room.value.settings.admitPerMinute / 12),
    };
  }
  if (show.status === 'fulfilled' && show.value?.counts) {
    figures.seatsAvailable = show.value.counts.available;
    figures.seatsHeld = show.value.counts.held;
    figures.seatsBooked = show.value.counts.booked;
  }
  return figures;
}
