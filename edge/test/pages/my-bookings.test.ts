/**
 * "My bookings" in real headless Chromium: the buyer's bookings from the server (bookings of
 * two showings made in two turns, nobody else's), what cancelling each would give back, then a
 * cancel asked once more with the refund and confirmed; after the turn, with the customer
 * cookie only. axe-core clean on a laptop and at 390 px.
 */
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { accessibilityIssues } from './accessibility';
import { bookedThroughApi } from './booked-through-api';
import { openPage } from './browser';
import { quickRoom, useBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
let browser: Browser;

useBrowserStack((b, s) => ((browser = b), (stack = s)));

describe('my bookings', () => {
  it("lists the buyer's bookings from the server, says the refund, cancels after a second confirmation; nobody else's bookings show", async () => {
    const soon = await stack.createShowtime({
      title: `Late Show ${process.pid}`,
      startsAt: new Date(Date.now() + 10 * 3_600_000),
    });
    const later = await stack.createShowtime({
      title: `Matinee ${process.pid}`,
      startsAt: new Date(Date.now() + 3 * 86_400_000),
    });
    for (const id of [soon, later]) await stack.configureRoom(id, quickRoom(10));
    const first = await bookedThroughApi(stack, soon, ['B3', 'B4']);
    const second = await bookedThroughApi(stack, later, ['C1'], first.customerToken);
    const stranger = await bookedThroughApi(stack, soon, ['C5']);
    const ref = (id: string) => `BK-${id.replace(/-/g, '').slice(0, 8).toUpperCase()}`;

    const buyer = await openPage(browser);
    const { page } = buyer;
    // The browser of this buyer: its customer cookie, as the demo login sets it. No turn cookie.
    await buyer.context.addCookies([
      { name: 'wr_customer', value: first.customerToken, url: stack.edgeUrl, httpOnly: true },
    ]);
    await page.goto(`${stack.edgeUrl}/bookings`);
    await expect.poll(() => page.locator('#my-bookings > li').count(), { timeout: 10_000 }).toBe(2);
    const items = page.locator('#my-bookings > li');
    expect(await items.nth(0).textContent()).toContain(ref(second.bookingId));
    expect(await items.nth(1).textContent()).toContain(ref(first.bookingId));
    expect(await items.nth(1).textContent()).toContain('seats B3, B4');
    expect(await page.locator('#my-bookings').textContent()).not.toContain(ref(stranger.bookingId));
    expect(await items.nth(0).textContent()).toMatch(/you get .*12[.,]50 back of the .*12[.,]50 paid \(100 %\)/);
    expect(await items.nth(1).textContent()).toMatch(/you get .*12[.,]50 back of the .*25[.,]00 paid \(50 %\)/);
    expect(await page.locator('#bookings-status').textContent()).toBe('2 bookings.');
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot('70-my-bookings');

    // Cancel, then keep: nothing changes.
    await page.getByRole('button', { name: `Cancel this booking, ${ref(first.bookingId)}` }).click();
    await page.getByRole('button', { name: `Keep my booking ${ref(first.bookingId)}` }).click();
    expect((await stack.sql`SELECT status FROM booking WHERE id = ${first.bookingId}`)[0]!.status).toBe('CONFIRMED');
    // Cancel, asked again with the refund of this moment, then yes.
    await page.getByRole('button', { name: `Cancel this booking, ${ref(first.bookingId)}` }).click();
    const ask = page.locator(`#confirm-${first.bookingId}`);
    await ask.waitFor();
    expect(await ask.textContent()).toMatch(
      new RegExp(`^Cancel ${ref(first.bookingId)}\\? If you cancel now, you get .*12[.,]50 back`),
    );
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot('71-my-bookings-confirm');
    await page.getByRole('button', { name: `Yes, cancel it: ${ref(first.bookingId)}` }).click();
    await expect
      .poll(() => page.locator('#bookings-status').textContent(), { timeout: 10_000 })
      .toMatch(/^Booking BK-[0-9A-F]{8} is cancelled and its places are released\. .*12[.,]50 will be refunded/);
    expect(await items.nth(1).textContent()).toMatch(/Cancelled: .*12[.,]50 is refunded/);
    expect(await page.getByRole('button', { name: `Cancel this booking, ${ref(first.bookingId)}` }).count()).toBe(0);
    const [booking] = await stack.sql`SELECT status, refund_cents FROM booking WHERE id = ${first.bookingId}`;
    expect(booking).toEqual({ status: 'CANCELLED', refund_cents: 1250 });
    const seats =
      await stack.sql`SELECT status FROM show_seat WHERE showtime_id = ${soon} AND seat_code IN ('B3', 'B4')`;
    expect(seats.map((s) => s.status)).toEqual(['AVAILABLE', 'AVAILABLE']);
    expect((await stack.sql`SELECT status FROM booking WHERE id = ${stranger.bookingId}`)[0]!.status).toBe('CONFIRMED');

    // Reloaded: the server says the same.
    await page.reload();
    await expect
      .poll(() => page.locator('#my-bookings > li').nth(1).textContent(), { timeout: 10_000 })
      .toMatch(/Cancelled: /);
    expect(await page.getByRole('button', { name: /^Cancel this booking/ }).count()).toBe(1);
    await buyer.shot('72-my-bookings-cancelled');
    expect(buyer.errors).toEqual([]);
    expect(buyer.external).toEqual([]);

    // A phone, same buyer.
    const phone = await openPage(browser, { viewport: { width: 390, height: 844 } });
    await phone.context.addCookies([
      { name: 'wr_customer', value: first.customerToken, url: stack.edgeUrl, httpOnly: true },
    ]);
    await phone.page.goto(`${stack.edgeUrl}/bookings`);
    await expect.poll(() => phone.page.locator('#my-bookings > li').count(), { timeout: 10_000 }).toBe(2);
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await accessibilityIssues(phone.page)).toEqual([]);
    await phone.shot('73-my-bookings-390');
    expect(phone.errors).toEqual([]);
    await phone.context.close();

    // A browser that never bought anything.
    const nobody = await openPage(browser);
    await nobody.page.goto(`${stack.edgeUrl}/bookings`);
    await expect
      .poll(() => nobody.page.locator('#my-bookings').textContent(), { timeout: 10_000 })
      .toContain('No bookings yet');
    expect(await accessibilityIssues(nobody.page)).toEqual([]);
    expect(nobody.errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
    await nobody.context.close();
    await buyer.context.close();
  });
});
