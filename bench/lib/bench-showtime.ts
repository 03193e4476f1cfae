import type { Sql } from 'postgres';
import { insertShowtime } from '../../core/src/catalog/showtime-repo';

/**
 * A showtime on sale now, starting tomorrow, as every seat benchmark uses: 8 seats per buyer
 * unless told otherwise, holds of 10 minutes, one price.
 */
export function insertOnSaleShowtime(sql: Sql, hallId: number, title: string, maxSeatsPerCustomer = 8) {
  return insertShowtime(sql, {
    hallId,
    title,
    startsAt: new Date(Date.now() + 86_400_000),
    opensAt: new Date(Date.now() - 60_000),
    saleState: 'OPEN',
    priceCents: 1000,
    currency: 'EUR',
    maxSeatsPerCustomer,
    holdTtlMs: 600_000,
  });
}
