import { rectangularLayout } from '../../core/src/demo/seat-layout';
import { callJson, fetchFrom } from './json-call';

/**
 * A venue, a hall of `rows` × `columns` standard seats and a showtime tomorrow, made through
 * the core's admin API; the showtime's id.
 */
export async function createCoreShowtime(
  coreUrl: string,
  headers: Record<string, string>,
  title: string,
  layout = { rows: 2, columns: 6 },
): Promise<number> {
  const call = (path: string, body: unknown) => callJson(fetchFrom(coreUrl), 'POST', path, { headers, body });
  const venue = await call('/admin/venues', { name: `${title} ${Date.now()}-${Math.random()}` });
  const seats = rectangularLayout(layout).map(({ code, rowLabel, row, column, type }) => ({
    code,
    rowLabel,
    row,
    column,
    type,
  }));
  const hall = await call(`/admin/venues/${venue.json.id}/halls`, { name: 'Hall', seats });
  const showtime = await call('/admin/showtimes', {
    hallId: hall.json.id,
    title,
    startsAt: new Date(Date.now() + 86_400_000).toISOString(),
    priceCents: 900,
  });
  if (showtime.status !== 201) throw new Error(`showtime not created: ${showtime.status} ${showtime.text}`);
  return showtime.json.id as number;
}
