/**
 * Rooms come into being from the core's catalog: the first join for a showtime that is on
 * sale (or opening soon) creates its room with the default settings, open or scheduled.
 * The operator changes them afterwards through the admin API.
 */
import { notFound } from '../../../lib/errors';
import type { RoomEngine, RoomSettingsPatch } from '../../../queue/src/index';
import type { CoreClient } from '../core-client';
import { createSingleFlightCache } from '../state/single-flight-cache';

export interface CatalogShowtime {
  id: number;
  saleState: string;
  opensAt: string | null;
}

export function roomPatchForShowtime(showtime: CatalogShowtime): RoomSettingsPatch | null {
  if (showtime.saleState === 'on_sale') return { state: 'open' };
  if (showtime.saleState === 'opening_soon') {
    const opensAtMs = showtime.opensAt ? Date.parse(showtime.opensAt) : NaN;
    return Number.isFinite(opensAtMs) ? { state: 'scheduled', opensAtMs } : { state: 'scheduled' };
  }
  if (showtime.saleState === 'sold_out') return { state: 'sold_out' };
  return null;
}

export function createRoomCatalog(options: { core: CoreClient; engine: RoomEngine; ttlMs?: number }) {
  const list = createSingleFlightCache<CatalogShowtime[]>({ ttlMs: options.ttlMs ?? 5_000, staleForMs: 60_000 });
  const creating = new Map<string, Promise<void>>();

  async function findShowtime(showtimeId: string): Promise<CatalogShowtime | null> {
    const { value } = await list.get('all', async () => {
      const { status, body } = await options.core.getJson<CatalogShowtime[]>('/showtimes');
      if (status !== 200 || !Array.isArray(body)) throw new Error(`core /showtimes answered ${status}`);
      return body;
    });
    return value.find((showtime) => String(showtime.id) === showtimeId) ?? null;
  }

  async function create(showtimeId: string): Promise<void> {
    const showtime = await findShowtime(showtimeId);
    const patch = showtime ? roomPatchForShowtime(showtime) : null;
    if (!patch) throw notFound('SHOWTIME_NOT_FOUND', 'No sale is open or opening for this showtime');
    const result = await options.engine.configure(showtimeId, patch);
    // A concurrent creator may have opened it already; that room is the one we want.
    if (!result.ok && result.code !== 'already_opened') throw notFound('SHOWTIME_NOT_FOUND', result.message);
  }

  return {
    /** Creates the room for a showtime the core sells; 404 when the core does not sell it. */
    ensureRoom(showtimeId: string): Promise<void> {
      const running = creating.get(showtimeId);
      if (running) return running;
      const started = create(showtimeId).finally(() => creating.delete(showtimeId));
      creating.set(showtimeId, started);
      return started;
    },
  };
}

export type RoomCatalog = ReturnType<typeof createRoomCatalog>;
