/**
 * The sale state follows the operator without a reload, in real headless Chromium: the sale
 * page's badge goes from "Opening soon" to on sale to closed, the landing page stops offering
 * a closed or paused showtime as "Buy tickets", and a pause and a close reach a buyer who is
 * choosing seats or waiting in line. The source of truth is the core's showtime list (the
 * operator's switch, changed here through the core's admin API) and the queue poll.
 */
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { accessibilityIssues } from './accessibility';
import { openPage, waitForStep } from './browser';
import { quickRoom, STACK_ADMIN_TOKEN, useBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
let browser: Browser;

useBrowserStack((b, s) => ((browser = b), (stack = s)));

/** The operator's switch for a showtime's sale, as the core keeps it. */
async function setSale(showtimeId: number, saleState: 'OPEN' | 'PAUSED' | 'CLOSED') {
  const response = await fetch(`${stack.core.url}/admin/showtimes/${showtimeId}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${STACK_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ saleState }),
  });
  expect(response.status).toBe(200);
}

/** A mark in the page's memory: still there later means the page was never reloaded. */
const markPage = (page: Page) => page.evaluate(() => ((window as unknown as { __mark: number }).__mark = 42));
const stillSamePage = (page: Page) => page.evaluate(() => (window as unknown as { __mark?: number }).__mark === 42);

const card = (page: Page, showtimeId: number) => page.locator(`li[data-showtime-id="${showtimeId}"]`);
const slow = { timeout: 25_000, interval: 250 };

describe('sale state without a reload', () => {
  it('opening soon → on sale → closed on the sale page and the landing page; closed and paused are not "Buy tickets"', async () => {
    // Sooner than every other test's showtime (a day ahead): first in the list the landing page shows.
    const soon = new Date(Date.now() + 3_600_000);
    const opening = await stack.createShowtime({
      title: 'Live State Premiere',
      opensAt: new Date(Date.now() + 12_000),
      startsAt: soon,
    });
    const other = await stack.createShowtime({
      title: 'Live State Matinee',
      startsAt: new Date(soon.getTime() + 60_000),
    });

    const landing = await openPage(browser);
    await landing.page.goto(`${stack.edgeUrl}/`);
    expect(await card(landing.page, opening).locator('[data-role="badge"]').textContent()).toBe('Opening soon');
    expect(
      await card(landing.page, opening).getByRole('link', { name: 'Details for Live State Premiere' }).isVisible(),
    ).toBe(true);
    expect(
      await card(landing.page, other).getByRole('link', { name: 'Buy tickets for Live State Matinee' }).isVisible(),
    ).toBe(true);
    await markPage(landing.page);

    const buyer = await openPage(browser);
    const { page } = buyer;
    await page.goto(`${stack.edgeUrl}/showtimes/${opening}`);
    expect(await page.locator('#sale-badge').textContent()).toBe('Opening soon');
    expect(await page.locator('#join-button').textContent()).toBe('Join the pre-queue');
    await markPage(page);

    // The opening time passes: both pages say so by themselves.
    await expect.poll(() => page.locator('#sale-badge').textContent(), slow).toBe('On sale now');
    expect(await page.locator('#join-button').textContent()).toBe('Join the line');
    await expect
      .poll(() => card(landing.page, opening).locator('[data-role="badge"]').textContent(), slow)
      .toBe('On sale now');
    expect(
      await card(landing.page, opening).getByRole('link', { name: 'Buy tickets for Live State Premiere' }).isVisible(),
    ).toBe(true);
    await buyer.shot('60-live-on-sale');

    // The operator closes one sale and pauses the other.
    await setSale(opening, 'CLOSED');
    await setSale(other, 'PAUSED');
    await expect.poll(() => page.locator('#sale-badge').textContent(), slow).toBe('Sales closed');
    await waitForStep(page, 'step-ended');
    expect(await page.locator('#ended-title').textContent()).toBe('Sales are closed');
    expect(await page.getByRole('button', { name: 'Join the line again' }).isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Join the line' }).isVisible()).toBe(false);
    expect(await stillSamePage(page)).toBe(true);
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot('61-live-closed');

    await expect
      .poll(() => card(landing.page, opening).locator('[data-role="badge"]').textContent(), slow)
      .toBe('Sales closed');
    await expect
      .poll(() => card(landing.page, other).locator('[data-role="badge"]').textContent(), slow)
      .toBe('Sales paused');
    for (const id of [opening, other])
      expect(
        await card(landing.page, id)
          .getByRole('link', { name: /^Buy tickets/ })
          .count(),
      ).toBe(0);
    expect(
      await card(landing.page, opening).getByRole('link', { name: 'Details for Live State Premiere' }).isVisible(),
    ).toBe(true);
    expect(await stillSamePage(landing.page)).toBe(true);
    expect(await accessibilityIssues(landing.page)).toEqual([]);
    await landing.shot('62-landing-closed-paused');

    // A fresh load says the same from the server's own rendering.
    await landing.page.reload();
    for (const id of [opening, other]) {
      const action = card(landing.page, id).locator('[data-role="action"]');
      if (await action.count()) expect(await action.textContent()).toBe('Details');
    }
    expect(buyer.errors).toEqual([]);
    expect(landing.errors).toEqual([]);
    await buyer.context.close();
    await landing.context.close();
  });

  const LAPTOP = { width: 1366, height: 800 };
  const PHONE = { width: 390, height: 844 };
  it.each([
    ['on a laptop', 'on a 390 px phone', LAPTOP, PHONE, 'phone-'],
    ['on a 390 px phone', 'on a laptop', PHONE, LAPTOP, 'laptop-'],
  ] as const)(
    'a pause and a close reach a buyer choosing seats (%s) and a buyer waiting in line (%s)',
    async (_c, _w, chooserViewport, waiterViewport, waiterShot) => {
      const showtimeId = await stack.createShowtime({ title: 'Pause And Close Night' });
      await stack.configureRoom(showtimeId, quickRoom(1));
      const chooser = await openPage(browser, { viewport: chooserViewport });
      await chooser.page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
      await chooser.page.getByRole('button', { name: 'Join the line' }).click();
      await waitForStep(chooser.page, 'step-seats');

      const waiter = await openPage(browser, { viewport: waiterViewport });
      await waiter.page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
      await waiter.page.getByRole('button', { name: 'Join the line' }).click();
      await waitForStep(waiter.page, 'step-waiting');
      await expect.poll(() => waiter.page.locator('#position').textContent()).toBe('1');
      await expect.poll(() => waiter.page.locator('#status').textContent()).toContain('You are next in line.');
      expect(await waiter.page.title()).toBe('#1 in line · Pause And Close Night · Premiere Tickets');

      // The operator pauses: the room stops admitting and the catalog says paused.
      await stack.configureRoom(showtimeId, { state: 'paused' });
      await setSale(showtimeId, 'PAUSED');
      await expect.poll(() => chooser.page.locator('#seats-paused-note').isVisible(), slow).toBe(true);
      expect(await chooser.page.locator('#sale-badge').textContent()).toBe('Sales paused');
      await expect.poll(() => waiter.page.locator('#paused-note').isVisible(), slow).toBe(true);
      expect(await waiter.page.locator('#sale-badge').textContent()).toBe('Sales paused');
      await expect
        .poll(() => waiter.page.locator('#status').textContent())
        .toBe('Admissions are paused by the cinema. You keep your place.');
      expect(await accessibilityIssues(waiter.page)).toEqual([]);
      await waiter.shot(`63-${waiterShot}waiting-paused`);
      await chooser.shot(`64-${waiterShot === 'phone-' ? '' : 'phone-'}seats-paused`);

      // The operator closes: the buyer choosing seats is told, and nobody is invited to rejoin.
      await stack.configureRoom(showtimeId, { state: 'closed' });
      await setSale(showtimeId, 'CLOSED');
      for (const { page } of [chooser, waiter]) {
        await waitForStep(page, 'step-ended', 25_000);
        expect(await page.locator('#ended-title').textContent()).toBe('Sales are closed');
        expect(await page.getByRole('button', { name: 'Join the line again' }).isVisible()).toBe(false);
        expect(await page.locator('#sale-badge').textContent()).toBe('Sales closed');
      }
      expect(chooser.errors).toEqual([]);
      expect(waiter.errors).toEqual([]);
      await chooser.context.close();
      await waiter.context.close();
    },
  );
});
