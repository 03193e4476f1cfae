/**
 * What the partition tests share: a database of their own (the job detaches partitions and
 * deletes rows across whole tables), the block names, and showtimes copied under an id of a
 * chosen block so that a test can fill blocks far from the ids in use.
 */
import type { Sql } from 'postgres';
import { isolatedDatabase } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import type { CoreHarness } from '../core-harness';
import { createPaymentHarness, type PaymentHarness } from '../payment-harness';

/** Showtime ids per partition block of show_seat and seat_hold. */
export const BLOCK = 10_000;

export const blockName = (table: 'show_seat' | 'seat_hold', low: number) =>
  `${table}_b${String(low).padStart(12, '0')}`;

export interface PartitionDatabase {
  sql: Sql;
  core: CoreHarness;
  payments: PaymentHarness;
  close(): Promise<void>;
}

export async function openPartitionDatabase(label: string): Promise<PartitionDatabase> {
  const database = await isolatedDatabase(label);
  const sql = connectDatabase(database.url, { max: 24, applicationName: `test-${label}` });
  const payments = await createPaymentHarness(sql);
  return {
    sql,
    core: payments.core,
    payments,
    async close() {
      await payments.close();
      await sql.end();
      await database.drop();
    },
  };
}

/**
 * A copy of a fresh one-row showtime (`columns` seats, on sale) under an explicit id, with its
 * seats. `blocks`: the partitions made for it first, as the job makes them ahead of the ids in
 * use; without them its rows are written before the job got there and land in DEFAULT.
 * `startsInDays` moves its start (and its sale window with it).
 */
export async function showtimeWithId(
  { sql, core }: Pick<PartitionDatabase, 'sql' | 'core'>,
  id: number,
  options: { columns: number; blocks: ('show_seat' | 'seat_hold')[]; startsInDays?: number },
): Promise<void> {
  if (options.blocks.includes('show_seat')) await sql`SELECT show_seat_ensure_partitions(${id})`;
  if (options.blocks.includes('seat_hold')) await sql`SELECT seat_hold_ensure_partitions(${id})`;
  const { showtimeId } = await core.createShowtime({ layout: { rows: 1, columns: options.columns } });
  await sql.begin(async (tx) => {
    await tx`CREATE TEMP TABLE copy ON COMMIT DROP AS SELECT * FROM showtime WHERE id = ${showtimeId}`;
    await tx`UPDATE copy SET id = ${id}`;
    if (options.startsInDays !== undefined) {
      await tx`UPDATE copy SET starts_at = now() + make_interval(days => ${options.startsInDays}),
                              sale_opens_at = now() + make_interval(days => ${options.startsInDays - 10})`;
    }
    await tx`INSERT INTO showtime OVERRIDING SYSTEM VALUE SELECT * FROM copy`;
    await tx`INSERT INTO show_seat (showtime_id, seat_code) SELECT ${id}, seat_code FROM show_seat WHERE showtime_id = ${showtimeId}`;
  });
}
