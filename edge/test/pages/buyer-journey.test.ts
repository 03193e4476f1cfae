/**
 * A buyer in real headless Chromium: joins a small room, waits behind someone, is admitted,
 * picks seats, holds them, pays on the sandbox's hosted page and sees the confirmation with
 * the booking reference. A refresh while waiting keeps the place. No console errors, no
 * request leaves the loopback stack, a screenshot of every step.
 */
import type { Browser } from 'playwright-core';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { accessibilityIssues } from './accessibility';
import { openPage, waitForStep } from './browser';
import { quickRoom, useBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
let browser: Browser;

useBrowserStack((b, s) => ((browser = b), (stack = s)));

const VIEWPORTS = [
  ['a laptop', { width: 1100, height: 900 }, ''],
  ['a 390 px phone', { width: 390, height: 844 }, 'phone-'],
] as const;

describe.each(VIEWPORTS)('buyer journey on %s', (_name, viewport, shotPrefix) => {
  it('lists showtimes, queues, is admitted, holds seats, pays in the sandbox and sees the booking', async () => {
    const title = `The Long Premiere ${process.pid}-${Date.now() % 1_000_000}`;
    // The landing page lists the 100 soonest showtimes, and the run's database holds every
    // other test's (a day ahead): this one starts sooner, so it is among them, and still more
    // than two hours ahead, where the default refund policy gives half back.
    const showtimeId = await stack.createShowtime({ title, startsAt: new Date(Date.now() + 6 * 3_600_000) });
    await stack.configureRoom(showtimeId, quickRoom(1));
    // Someone is already choosing seats: the one slot is taken, so our buyer waits.
    const blocker = await stack.apiBuyer(showtimeId, `blocker-${showtimeId}`);
    expect(blocker.state).toBe('admitted');

    const buyer = await openPage(browser, { viewport });
    const shot = (name: string) => buyer.shot(`${shotPrefix}${name}`);
    const { page } = buyer;
    // The edge keeps the list for a second: a showing made within it shows on the next load.
    await expect
      .poll(
        async () => (
          await page.goto(`${stack.edgeUrl}/`), page.getByRole('link', { name: title, exact: true }).count()
        ),
        { interval: 500 },
      )
      .toBe(1);
    // Where it is on (venue, city, hall) and when, with the time zone.
    const card = page.locator(`li.card[data-showtime-id="${showtimeId}"]`);
    expect(await card.locator('.where').textContent()).toMatch(/^Pages venue .+, Test · Hall 1$/);
    expect(await card.locator('.when').textContent()).toMatch(/^Starts .+ (UTC|GMT|[A-Z]{2,5}|[+-]\d)/);
    expect(await accessibilityIssues(page)).toEqual([]);
    await shot('01-showtime-list');

    await page.getByRole('link', { name: `Buy tickets for ${title}` }).click();
    expect(await page.locator('.show-head .where').textContent()).toMatch(/^Pages venue .+, Test · Hall 1$/);
    // Before admission the buyer is told how long a turn lasts (the room's session length).
    expect(await page.locator('#step-start').textContent()).toContain(
      'When it is your turn, you will have 5 minutes to choose your seats and hold them.',
    );
    await page.getByRole('button', { name: 'Join the line' }).click();
    await page.locator('#step-waiting').waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('#position').textContent()).toBe('1');
    expect(await page.locator('#ahead').textContent()).toBe('You are next.');
    expect(await accessibilityIssues(page)).toEqual([]);
    await shot('02-waiting');

    // A reload keeps the place (the leave beacon is deferred and cancelled by the reload).
    await page.reload();
    await page.locator('#step-waiting').waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('#position').textContent()).toBe('1');
    await new Promise((resolve) => setTimeout(resolve, 4_500)); // past the leave grace period
    const stats = await stack.engine.stats(String(showtimeId));
    expect(stats.ok && stats.waiting).toBe(1);

    // The blocker gives the slot back: our buyer's next poll is admitted.
    await stack.api('DELETE', `/api/showtimes/${showtimeId}/queue`, { token: blocker.token });
    await page.locator('#step-seats').waitFor({ state: 'visible', timeout: 20_000 });
    await page.locator('#seat-grid button[data-code="B3"]').waitFor();
    expect(await page.locator('#seat-grid button').count()).toBe(24);
    expect(await page.locator('#seat-grid .seat-couple').count()).toBe(6);
    expect(await page.locator('#seat-grid .seat-accessible').count()).toBe(2);
    expect(await accessibilityIssues(page)).toEqual([]);
    await shot('03-seat-map');

    await page.locator('#seat-grid button[data-code="B3"]').click();
    await page.locator('#seat-grid button[data-code="B4"]').click();
    expect(await page.locator('#seat-grid button[data-code="B3"]').getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('#selection').textContent()).toContain('B3, B4');
    // A small hall fits even the phone: no "scroll sideways" hint where there is nothing to scroll.
    expect(await page.locator('#scroll-hint').isVisible()).toBe(false);
    await shot('04-seats-chosen');

    await page.getByRole('button', { name: 'Hold these seats' }).click();
    await waitForStep(page, 'step-hold');
    expect(await page.locator('#held-seats').textContent()).toBe('B3, B4');
    expect(await page.locator('#hold-countdown').textContent()).toMatch(/^\d+:\d\d$/);
    expect(await accessibilityIssues(page)).toEqual([]);
    await shot('05-hold');

    await page.getByRole('button', { name: 'Pay now' }).click();
    await page.waitForURL(`${stack.sandbox.url}/pay/**`);
    // The pay page says what is bought (film, time, place, seats), not our ids.
    const purchase = (await page.locator('dd.purchase').textContent()) ?? '';
    expect(purchase).toContain(title);
    expect(purchase).toMatch(/UTC.*Hall 1.*Seats B3, B4/s);
    await shot('06-sandbox-pay-page');
    await page.getByRole('button', { name: 'Approve payment' }).click();

    await page.waitForURL(`${stack.edgeUrl}/showtimes/${showtimeId}?**`);
    await page.waitForFunction(
      () => {
        const shown = (id: string) => !(document.getElementById(id) as HTMLElement).hidden;
        return shown('booking-details') || shown('step-ended') || shown('alert');
      },
      undefined,
      { timeout: 20_000 },
    );
    const ended = await page.locator('#step-ended, #alert').filter({ visible: true }).allTextContents();
    expect(ended).toEqual([]);
    expect(await page.locator('#booking-reference').textContent()).toMatch(/^BK-[0-9A-F]{8}$/);
    expect(await page.locator('#booking-seats').textContent()).toBe('B3, B4');
    expect(await page.locator('#booking-amount').textContent()).toMatch(/25[.,]00/);
    // No raw ids for the buyer to read: the reference is the name of the booking.
    expect(await page.locator('#step-confirm').textContent()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(await accessibilityIssues(page)).toEqual([]);
    await shot('07-confirmation');
    // What cancelling would give back is said before the buyer confirms (the showing starts in
    // just under 24 hours: the default policy gives half back).
    await page.locator('#cancel-quote').waitFor({ state: 'visible' });
    expect(await page.locator('#cancel-quote').textContent()).toMatch(
      /^If you cancel now, you get .*12[.,]50 back of the .*25[.,]00 paid \(50 %\)\.$/,
    );

    // The calendar file is the showing, under the booking's reference.
    const reference = (await page.locator('#booking-reference').textContent())!;
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Add to calendar (.ics)' }).click(),
    ]);
    const ics = (await readFile((await download.path())!, 'utf8')).replace(/\r\n /g, '');
    expect(ics).toContain(`UID:${reference}@premiere-tickets`);
    expect(ics).toMatch(/DESCRIPTION:Booking BK-[0-9A-F]{8}\. Seats: B3\\, B4\./);
    // "My bookings" lists it (kept by this browser).
    await page.locator('#booking-details').getByRole('link', { name: 'My bookings' }).click();
    await page.getByRole('heading', { name: 'My bookings' }).waitFor();
    // The list loads after the page ("Loading your bookings…" until the API answers).
    await expect.poll(() => page.locator('#my-bookings').textContent()).toContain(reference);
    expect(await page.locator('#my-bookings').textContent()).toContain('seats B3, B4');
    expect(await accessibilityIssues(page)).toEqual([]);
    await shot('08-my-bookings');

    // Back on the confirmation, the buyer cancels: asked once more, then told the refund; the seats are free again.
    await page.goBack();
    await page.getByRole('button', { name: 'Cancel this booking' }).click();
    await page.getByRole('button', { name: 'Keep my booking' }).waitFor();
    await page.getByRole('button', { name: 'Yes, cancel it' }).click();
    await expect
      .poll(() => page.locator('#confirm-state').textContent())
      .toMatch(
        /^Your booking is cancelled and the seats are released\. .*12[.,]50 will be refunded to your payment method\.$/,
      );
    const seatsAfter = await stack.sql<
      { status: string }[]
    >`SELECT status FROM show_seat WHERE showtime_id = ${showtimeId} AND seat_code IN ('B3', 'B4')`;
    expect(seatsAfter.map((r) => r.status)).toEqual(['AVAILABLE', 'AVAILABLE']);
    expect(await accessibilityIssues(page)).toEqual([]);
    await shot('09-cancelled');

    expect(buyer.errors).toEqual([]);
    expect(buyer.external).toEqual([]);
    await buyer.context.close();
  });
});
