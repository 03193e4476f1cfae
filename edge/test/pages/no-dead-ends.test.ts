/**
 * The buyer's dead ends and wrong words, each in real Chromium on a 1366×800 laptop in English
 * and on a 390 px phone in Simplified Chinese (the browser's Accept-Language picks it): a paid
 * buyer whose sale was closed meanwhile, one clock through purchase, a sold-out sale after a
 * reload and while waiting, the reason given to a buyer who bought, an expired payment page,
 * and retries promised but never made. Every state is checked with axe.
 */
import type { Browser, Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Locale } from '../../../lib/i18n/locale';
import { translate, type MessageKey, type Params } from '../../../lib/i18n/translate';
import { accessibilityIssues } from './accessibility';
import { openPage, waitForStep } from './browser';
import { quickRoom, useBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
let browser: Browser;

useBrowserStack((b, s) => ((browser = b), (stack = s)));

const CASES = [
  ['a laptop in English', { width: 1366, height: 800 }, 'en', ''],
  ['a 390 px phone in Chinese', { width: 390, height: 844 }, 'zh-CN', 'phone-zh-'],
] as const;

/** Chromium logs every injected or expected error status; nothing else may appear. */
const unexpected = (errors: string[], statuses: number[]) =>
  errors.filter((e) => !statuses.some((s) => e.includes(`status of ${s}`)));

async function joinAndHold(page: Page, showtimeId: number, seat: string) {
  await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
  await page.locator('#join-button').click();
  await waitForStep(page, 'step-seats');
  await page.locator(`#seat-grid button[data-code="${seat}"]`).click();
  await page.locator('#hold-button').click();
  await waitForStep(page, 'step-hold');
}

async function openPayPage(page: Page, showtimeId: number, seat: string) {
  await joinAndHold(page, showtimeId, seat);
  await page.locator('#pay-button').click();
  await page.waitForURL(`${stack.sandbox.url}/pay/**`);
}

describe.each(CASES)('no dead ends on %s', (_name, viewport, locale, shotPrefix) => {
  const t = (key: MessageKey, params?: Params) => translate(locale as Locale, key, params);

  it('a buyer who pays after the sale was closed sees the booking, and the closed showtime page still opens', async () => {
    const showtimeId = await stack.createShowtime({ title: `Closed While Paying ${locale}` });
    await stack.configureRoom(showtimeId, quickRoom(2));
    const buyer = await openPage(browser, { viewport, locale });
    const { page } = buyer;
    await openPayPage(page, showtimeId, 'B3');
    expect(await page.locator('html').getAttribute('lang')).toBe(locale);
    expect(await page.locator('button.approve').textContent()).toBe(t('payPage.approve'));
    expect(await accessibilityIssues(page)).toEqual([]);
    await stack.configureRoom(showtimeId, { ...quickRoom(2), state: 'closed' });
    await page.locator('button.approve').click();

    await page.waitForURL(`${stack.edgeUrl}/showtimes/${showtimeId}?**`);
    await page.locator('#booking-details').waitFor({ state: 'visible', timeout: 20_000 });
    expect(await page.locator('#booking-reference').textContent()).toMatch(/^BK-[0-9A-F]{8}$/);
    expect(await page.locator('#confirm-state').textContent()).toBe(t('confirm.done'));
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot(`${shotPrefix}60-paid-after-close`);

    // A reload of the closed showtime's page, and its link in My bookings: the page, not a 404.
    const reloaded = await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
    expect(reloaded?.status()).toBe(200);
    await waitForStep(page, 'step-ended');
    expect(await page.locator('#sale-badge').textContent()).toBe(t('state.closed'));
    expect(await accessibilityIssues(page)).toEqual([]);
    await page.goto(`${stack.edgeUrl}/bookings`);
    const link = page.locator(`#my-bookings a[href="/showtimes/${showtimeId}"]`);
    await link.waitFor();
    await link.click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Closed While Paying ${locale}`);
    expect(buyer.errors).toEqual([]);
    await buyer.context.close();
  });

  it('the hold step counts down to the end of the turn when it comes first, and then releases and offers to rejoin', async () => {
    // Hold time 150 s (payment deadline at 120 s), turn 20 s: the turn ends first.
    const showtimeId = await stack.createShowtime({ title: `One Clock ${locale}`, holdTtlMs: 150_000 });
    await stack.configureRoom(showtimeId, { ...quickRoom(2), sessionTtlMs: 20_000 });
    const buyer = await openPage(browser, { viewport, locale });
    const { page } = buyer;
    await joinAndHold(page, showtimeId, 'C2');
    expect(await page.locator('#hold-countdown-label').textContent()).toBe(t('hold.countdown.turn'));
    const [minutes, seconds] = ((await page.locator('#hold-countdown').textContent()) ?? '').split(':').map(Number);
    // The turn's 20 s, not the payment's 120 s; a second more when the page rounds up a turn
    // that the server's clock started a fraction of a second ahead of the page's.
    expect(minutes! * 60 + seconds!).toBeLessThanOrEqual(21);
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot(`${shotPrefix}61-hold-turn-clock`);

    await waitForStep(page, 'step-ended', 30_000);
    expect(await page.locator('#ended-title').textContent()).toBe(t('turn.ended.title'));
    expect(await page.locator('#rejoin-button').isVisible()).toBe(true);
    expect(await page.locator('#pay-button').isVisible()).toBe(false);
    const text = await page.locator('#ended-text').textContent();
    expect([t('turn.ended.released'), t('turn.ended.lapses')]).toContain(text);
    if (text === t('turn.ended.released')) {
      const [row] = await stack.sql<
        { status: string }[]
      >`SELECT status FROM show_seat WHERE showtime_id = ${showtimeId} AND seat_code = 'C2'`;
      expect(row?.status).toBe('AVAILABLE');
    }
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot(`${shotPrefix}62-turn-ended-with-hold`);
    expect(unexpected(buyer.errors, [401, 403])).toEqual([]);
    await buyer.context.close();
  });

  it('a reload of a sold-out sale says sold out at once, even while the old turn would still admit', async () => {
    const showtimeId = await stack.createShowtime({ title: `Sold Out Reload ${locale}` });
    await stack.configureRoom(showtimeId, quickRoom(2));
    const buyer = await openPage(browser, { viewport, locale });
    const { page } = buyer;
    await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
    await page.locator('#join-button').click();
    await waitForStep(page, 'step-seats');
    await stack.configureRoom(showtimeId, { ...quickRoom(2), state: 'sold_out' });
    // The line would still say "admitted" for this turn; the page must not offer a map.
    await page.route(`**/api/showtimes/${showtimeId}/queue`, (route) =>
      route.request().method() === 'GET'
        ? route.fulfill({
            status: 200,
            contentType: 'application/json',
            body: JSON.stringify({
              state: 'admitted',
              pollAfterMs: null,
              sessionExpiresAt: new Date(Date.now() + 300_000).toISOString(),
            }),
          })
        : route.fallback(),
    );
    const seen: string[] = [];
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator('#sale-badge').textContent();
        },
        { timeout: 10_000 },
      )
      .toBe(t('state.sold_out'));
    for (let i = 0; i < 8; i++) {
      seen.push(
        await page.evaluate(() =>
          ['step-seats', 'step-ended'].filter((id) => !document.getElementById(id)!.hidden).join(),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(new Set(seen)).toEqual(new Set(['step-ended']));
    expect(await page.locator('#ended-title').textContent()).toBe(t('soldOut.title'));
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot(`${shotPrefix}63-sold-out-reload`);
    expect(buyer.errors).toEqual([]);
    await buyer.context.close();
  });

  it('a buyer waiting in line never sees "Sold out" over their place: the line is asked at once and ends the wait', async () => {
    const showtimeId = await stack.createShowtime({ title: `Sold Out Waiting ${locale}` });
    await stack.configureRoom(showtimeId, quickRoom(1));
    await stack.apiBuyer(showtimeId, `sold-out-blocker-${showtimeId}`);
    const buyer = await openPage(browser, { viewport, locale });
    const { page } = buyer;
    // A long line: the room asks for a poll only every 30 s.
    await page.route(`**/api/showtimes/${showtimeId}/queue`, async (route: Route) => {
      if (route.request().method() !== 'GET') return route.fallback();
      const response = await route.fetch();
      const body = await response.json();
      return route.fulfill({ response, json: { ...body, pollAfterMs: body.pollAfterMs === null ? null : 30_000 } });
    });
    await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
    await page.locator('#join-button').click();
    await waitForStep(page, 'step-waiting');
    expect(await accessibilityIssues(page)).toEqual([]);
    await stack.configureRoom(showtimeId, { ...quickRoom(1), state: 'sold_out' });
    const contradictions: string[] = [];
    const started = Date.now();
    while (Date.now() - started < 25_000) {
      const view = await page.evaluate(() => ({
        waiting: !document.getElementById('step-waiting')!.hidden,
        ended: !document.getElementById('step-ended')!.hidden,
        badge: document.getElementById('sale-badge')!.textContent,
      }));
      if (view.waiting && view.badge === t('state.sold_out')) contradictions.push(`${Date.now() - started} ms`);
      if (view.ended) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(contradictions).toEqual([]);
    await waitForStep(page, 'step-ended', 1_000);
    expect(await page.locator('#ended-title').textContent()).toBe(t('soldOut.title'));
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot(`${shotPrefix}64-sold-out-waiting`);
    expect(buyer.errors).toEqual([]);
    await buyer.context.close();
  });

  it('a buyer who bought and comes back to the sale page is told they booked, not that the page failed to check in', async () => {
    const showtimeId = await stack.createShowtime({ title: `Booked Return ${locale}` });
    await stack.configureRoom(showtimeId, quickRoom(2));
    const buyer = await openPage(browser, { viewport, locale });
    const { page } = buyer;
    await openPayPage(page, showtimeId, 'A4');
    await page.locator('button.approve').click();
    await page.waitForURL(`${stack.edgeUrl}/showtimes/${showtimeId}?**`);
    await page.locator('#booking-details').waitFor({ state: 'visible', timeout: 20_000 });

    // Later, the turn has lapsed: the line answers 410 TURN_EXPIRED to the queue cookie that is left.
    await page.route(`**/api/showtimes/${showtimeId}/queue`, (route) =>
      route.request().method() === 'GET'
        ? route.fulfill({
            status: 410,
            contentType: 'application/json',
            body: JSON.stringify({ error: { code: 'TURN_EXPIRED', message: 'expired' } }),
          })
        : route.fallback(),
    );
    await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
    await waitForStep(page, 'step-ended');
    expect(await page.locator('#ended-title').textContent()).toBe(t('booked.title'));
    expect(await page.locator('#ended-text').textContent()).toBe(t('booked.text'));
    expect(await page.locator('#rejoin-button').isVisible()).toBe(false);
    expect(await page.locator('main').textContent()).not.toContain(t('turn.expired.title'));
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot(`${shotPrefix}65-booked-return`);
    expect(unexpected(buyer.errors, [401, 410])).toEqual([]);
    await buyer.context.close();
  });

  it('an expired payment page offers the way back to the hold, which is still there', async () => {
    const showtimeId = await stack.createShowtime({ title: `Expired Pay Page ${locale}` });
    await stack.configureRoom(showtimeId, quickRoom(2));
    const buyer = await openPage(browser, { viewport, locale });
    const { page } = buyer;
    await openPayPage(page, showtimeId, 'B5');
    // The page's own clock runs out (the sandbox still has the session: the hold lives on).
    await page.clock.install();
    await page.reload();
    expect(await page.locator('#back-to-shop').isVisible()).toBe(false);
    await page.clock.fastForward('10:00');
    await page.locator('#back-to-shop').waitFor({ state: 'visible' });
    expect(await page.locator('button.approve').isDisabled()).toBe(true);
    expect(await page.locator('#status').textContent()).toBe(t('payPage.expiredNow'));
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot(`${shotPrefix}66-pay-page-expired`);
    await page.clock.resume();
    await page.locator('#back-to-shop').click();
    await page.waitForURL(`${stack.edgeUrl}/showtimes/${showtimeId}?**`);
    await waitForStep(page, 'step-hold').catch(() => undefined);
    expect(await page.locator('#step-hold').isVisible()).toBe(true);
    expect(await page.locator('#held-seats').textContent()).toBe('B5');
    expect(await page.locator('#alert').textContent()).toBe(t('pay.notCompleted'));
    expect(buyer.errors).toEqual([]);
    await buyer.context.close();
  });

  it('a shed hold, cancel or pay asks the buyer to try again; it does not promise a retry it never makes', async () => {
    const showtimeId = await stack.createShowtime({ title: `No Empty Promises ${locale}` });
    await stack.configureRoom(showtimeId, quickRoom(2));
    const buyer = await openPage(browser, { viewport, locale });
    const { page } = buyer;
    const shed = (route: Route) =>
      route.fulfill({
        status: 503,
        headers: { 'content-type': 'application/json', 'retry-after': '2' },
        body: JSON.stringify({ error: { code: 'BUSY', message: 'injected' } }),
      });
    const busyWords = t('error.busyAction', { wait: t('time.seconds', { n: 2 }) });
    const promise = t('error.busyRetrying', { wait: t('time.seconds', { n: 2 }) });

    let holdCalls = 0;
    await page.route(
      `**/api/showtimes/${showtimeId}/holds`,
      (route) => (holdCalls++, holdCalls === 1 ? shed(route) : route.fallback()),
    );
    await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
    await page.locator('#join-button').click();
    await waitForStep(page, 'step-seats');
    await page.locator('#seat-grid button[data-code="A3"]').click();
    await page.locator('#hold-button').click();
    await page.locator('#alert').waitFor({ state: 'visible' });
    expect(await page.locator('#alert').textContent()).toBe(busyWords);
    expect(await page.locator('#alert').textContent()).not.toBe(promise);
    expect(await page.locator('#hold-button').isEnabled()).toBe(true);
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot(`${shotPrefix}67-hold-shed`);
    await page.locator('#hold-button').click();
    await page.locator('#step-hold').waitFor({ state: 'visible' });

    await page.route('**/api/holds/*/checkout', shed);
    await page.locator('#pay-button').click();
    await expect.poll(() => page.locator('#alert').textContent()).toBe(busyWords);
    expect(await page.locator('#pay-button').isEnabled()).toBe(true);

    await page.route('**/api/holds/*', (route) =>
      route.request().method() === 'DELETE' ? shed(route) : route.fallback(),
    );
    await page.locator('#cancel-button').click();
    await expect.poll(() => page.locator('#alert').textContent()).toBe(busyWords);
    expect(await page.locator('#step-hold').isVisible()).toBe(true);
    expect(unexpected(buyer.errors, [503])).toEqual([]);
    await buyer.context.close();
  });
});
