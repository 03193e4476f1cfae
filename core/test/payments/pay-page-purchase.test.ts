/**
 * The gateway's pay page shows what is being bought (film, time with its zone, place, seats),
 * from what the core's checkout sends, and none of our internal ids. Real PostgreSQL, the
 * payment sandbox on a loopback port.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { testDatabaseUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { unique } from '../core-harness';
import { createPaymentHarness, type PaymentHarness } from '../payment-harness';

let sql: Sql;
let h: PaymentHarness;

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 4, applicationName: 'test-pay-page' });
  h = await createPaymentHarness(sql);
});
afterAll(async () => {
  await h?.close();
  await sql.end();
});

it('the pay page names the film, its time, the place and the seats, not the hold or payment ids', async () => {
  const startsAt = new Date(Date.UTC(2031, 5, 14, 19, 30));
  const { showtimeId } = await h.core.createShowtime({ title: 'Moonrise Premiere', startsAt });
  const buyer = unique('payer');
  const hold = await h.core.hold(showtimeId, buyer, ['B2', 'B3']);
  expect(hold.status).toBe(201);
  const checkout = await h.checkout(showtimeId, buyer, hold.json.holdId);
  expect(checkout.status).toBe(201);
  const session = await h.sandboxApi('GET', `/v1/payments/${checkout.json.paymentId}`);
  expect(session.json.metadata.description).toMatch(
    /^Moonrise Premiere\nSat 14 Jun 2031, 19:30 UTC\nvenue-.+, Test · Hall\nSeats B2, B3$/,
  );

  const page = await (await fetch(checkout.json.checkoutUrl)).text();
  expect(page).toContain('<strong>Moonrise Premiere</strong><br>Sat 14 Jun 2031, 19:30 UTC<br>');
  expect(page).toContain('<br>Seats B2, B3</dd>');
  // The ids may ride in the shop's own return link (href), never in what the buyer reads.
  const shown = page.replace(/<[^>]*>/g, ' ');
  expect(shown).not.toContain(hold.json.holdId);
  expect(shown).not.toContain(checkout.json.paymentId);
});
