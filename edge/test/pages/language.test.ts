/**
 * The buyer's language in real Chromium: chosen from the browser's Accept-Language, changed
 * with the visible switch and kept (a cookie) across pages and reloads, `lang` on the page,
 * times and prices formatted with Intl for the language, the browser code's own words and
 * the .ics from the same catalogue, and axe clean on each state in both languages.
 */
import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { translate } from '../../../lib/i18n/translate';
import { accessibilityIssues } from './accessibility';
import { openPage, waitForStep } from './browser';
import { quickRoom, useBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
let browser: Browser;

useBrowserStack((b, s) => ((browser = b), (stack = s)));

describe('the buyer language', () => {
  it('follows Accept-Language, switches visibly, and the switch sticks across pages and reloads (laptop)', async () => {
    const showtimeId = await stack.createShowtime({
      title: 'Switch Night',
      startsAt: new Date(Date.now() + 3 * 3_600_000),
    });
    await stack.configureRoom(showtimeId, quickRoom(2));
    const buyer = await openPage(browser, { viewport: { width: 1366, height: 800 }, locale: 'en-GB' });
    const { page } = buyer;
    await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await page.locator('#join-button').textContent()).toBe('Join the line');
    expect(await accessibilityIssues(page)).toEqual([]);

    await page.getByRole('link', { name: '简体中文' }).click();
    await page.waitForURL(`${stack.edgeUrl}/showtimes/${showtimeId}`);
    expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN');
    expect(await page.locator('#join-button').textContent()).toBe(translate('zh-CN', 'sale.joinLine'));
    expect(await page.locator('#sale-badge').textContent()).toBe(translate('zh-CN', 'state.on_sale'));
    // Times are the reader's, in Chinese (Intl): the weekday reads 周…
    expect(await page.locator('.show-head time').textContent()).toMatch(/周/);
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot('zh-70-sale-page');

    await page.reload();
    expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN');
    await page.goto(`${stack.edgeUrl}/`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('场次');
    expect(await accessibilityIssues(page)).toEqual([]);
    await page.goto(`${stack.edgeUrl}/bookings`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('我的订单');
    await expect.poll(() => page.locator('#my-bookings').textContent()).toBe(translate('zh-CN', 'bookings.none'));
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot('zh-71-my-bookings');

    await page.getByRole('link', { name: 'English' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('My bookings');
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    // Only a path of this site is followed back.
    const away = await fetch(`${stack.edgeUrl}/language/zh-CN?back=${encodeURIComponent('//evil.example/')}`, {
      redirect: 'manual',
    });
    expect(away.status).toBe(303);
    expect(away.headers.get('location')).toBe('/');
    // My bookings asks the service first: a browser that never signed in gets 401 (logged by Chromium).
    expect(buyer.errors.filter((e) => !e.includes('status of 401'))).toEqual([]);
    await buyer.context.close();
  });

  it('a Chinese browser buys in Chinese: live words, prices, the pay page and the .ics (phone)', async () => {
    const showtimeId = await stack.createShowtime({
      title: '首映之夜',
      startsAt: new Date(Date.now() + 3 * 3_600_000),
    });
    await stack.configureRoom(showtimeId, quickRoom(1));
    const blocker = await stack.apiBuyer(showtimeId, `zh-blocker-${showtimeId}`);
    const buyer = await openPage(browser, { viewport: { width: 390, height: 844 }, locale: 'zh-CN' });
    const { page } = buyer;
    const zh = (key: Parameters<typeof translate>[1], params?: Parameters<typeof translate>[2]) =>
      translate('zh-CN', key, params);
    await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
    expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN');
    await page.locator('#join-button').click();
    await waitForStep(page, 'step-waiting');
    await expect.poll(() => page.locator('#ahead').textContent()).toBe(zh('wait.next'));
    expect(await page.locator('#status').textContent()).toContain(zh('wait.nextSpoken'));
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot('phone-zh-72-waiting');

    await stack.api('DELETE', `/api/showtimes/${showtimeId}/queue`, { token: blocker.token });
    await waitForStep(page, 'step-seats');
    await expect.poll(() => page.locator('#seat-limit').textContent()).toBe(zh('map.limit', { n: 4 }));
    await page.locator('#seat-grid button[data-code="B2"]').click();
    // The price in the buyer's language (Intl, zh-CN: €12.50).
    expect(await page.locator('#selection').textContent()).toBe(
      zh('map.chosen', {
        seats: 'B2',
        price: new Intl.NumberFormat('zh-CN', { style: 'currency', currency: 'EUR' }).format(12.5),
      }),
    );
    expect(await accessibilityIssues(page)).toEqual([]);
    await page.locator('#hold-button').click();
    await waitForStep(page, 'step-hold');
    expect(await page.locator('#hold-countdown-label').textContent()).toBe(zh('hold.countdown.pay'));
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot('phone-zh-73-hold');
    await page.locator('#pay-button').click();
    await page.waitForURL(`${stack.sandbox.url}/pay/**`);
    expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN');
    expect(await page.locator('button.approve').textContent()).toBe(zh('payPage.approve'));
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot('phone-zh-74-pay-page');
    await page.locator('button.approve').click();
    await page.waitForURL(`${stack.edgeUrl}/showtimes/${showtimeId}?**`);
    await page.locator('#booking-details').waitFor({ state: 'visible', timeout: 20_000 });
    expect(await page.locator('#confirm-state').textContent()).toBe(zh('confirm.done'));
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot('phone-zh-75-confirmed');

    const reference = (await page.locator('#booking-reference').textContent())!;
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#calendar-link').click()]);
    const ics = (await readFile((await download.path())!, 'utf8')).replace(/\r\n /g, '');
    expect(ics).toContain(`DESCRIPTION:${zh('ics.description', { reference, seats: 'B2' })}`);
    expect(ics).toMatch(/LOCATION:Pages venue .+\\, Test · Hall 1/);
    expect(buyer.errors).toEqual([]);
    await buyer.context.close();
  });
});
