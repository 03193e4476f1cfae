import type { SeatLayoutEntry } from '../catalog/venue-repo';

const ROW_LABELS = 'ABCDEFGHJKLMNPQRSTUVWXYZ'; // no I or O: they read as 1 and 0 on a ticket

export interface LayoutOptions {
  rows: number;
  columns: number;
  /** Rows (1-based) sold as couple seats. */
  coupleRows?: number[];
  /** Seats typed accessible, as [row, column] pairs. */
  accessible?: [number, number][];
}

/** A rectangular hall: codes like "F5" (row label + column), as printed on the ticket. */
export function rectangularLayout(options: LayoutOptions): SeatLayoutEntry[] {
  if (options.rows > ROW_LABELS.length) throw new Error(`At most ${ROW_LABELS.length} rows`);
  const couple = new Set(options.coupleRows ?? []);
  const accessible = new Set((options.accessible ?? []).map(([row, column]) => `${row}/${column}`));
  const seats: SeatLayoutEntry[] = [];
  for (let row = 1; row <= options.rows; row++) {
    const rowLabel = ROW_LABELS[row - 1]!;
    for (let column = 1; column <= options.columns; column++) {
      const code = `${rowLabel}${column}`;
      const type = accessible.has(`${row}/${column}`) ? 'accessible' : couple.has(row) ? 'couple' : 'standard';
      seats.push({ code, rowLabel, row, column, label: `Row ${rowLabel}, seat ${column}`, type });
    }
  }
  return seats;
}
