/**
 * The sale page's other states in real headless Chromium, each in words a person
 * understands: the pre-queue with its countdown, sold out, a turn that expired, too many
 * requests (with when to retry), a busy service (polling backs off and recovers by itself),
 * and leaving the page, which gives the place up (sendBeacon). Failures the stack would only
 * produce under load are injected at the browser's network layer (page.route).
 */
import type { Browser, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { accessibilityIssues } from './accessibility';
import { openPage, waitForStep } from './browser';
import { quickRoom, useBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
let browser: Browser;

useBrowserStack((b, s) => ((browser = b), (stack = s)));

const errorBody = (code: string, message: string) => JSON.stringify({ error: { code, message } });
const fulfil = (route: Route, status: number, code: string, headers: Record<string, string> = {}) =>
  route.fulfill({
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: errorBody(code, 'injected'),
  });
/** Chromium logs every injected error status as "Failed to load resource"; nothing else may appear. */
const unexpected = (errors: string[], statuses: number[]) =>
  errors.filter((e) => !statuses.some((s) => e.includes(`status of ${s}`)));

const BOTH = [
  ['a laptop', { width: 1366, height: 800 }, ''],
  ['a 390 px phone', { width: 390, height: 844 }, 'phone-'],
] as const;

describe('sale page states', () => {
  it.each(BOTH)(
    'before opening: a countdown, then the pre-queue promising a random place at the opening time (%s)',
    async (_name, viewport, shotPrefix) => {
      const showtimeId = await stack.createShowtime({
        title: 'Midnight Opening',
        opensAt: new Date(Date.now() + 120_000),
      });
      const buyer = await openPage(browser, { viewport });
      const { page } = buyer;
      await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
      await expect.poll(() => page.locator('#start-countdown').textContent()).toMatch(/^[12]:\d\d$/);
      expect(await page.locator('#step-start').textContent()).toContain('random place');
      expect(await accessibilityIssues(page)).toEqual([]);
      await buyer.shot(`${shotPrefix}30-before-opening`);

      await page.getByRole('button', { name: 'Join the pre-queue' }).click();
      await waitForStep(page, 'step-prequeue');
      expect(await page.locator('#step-prequeue').textContent()).toContain('You will get a random place in line at');
      await expect.poll(() => page.locator('#prequeue-countdown').textContent()).toMatch(/^[12]:\d\d$/);
      const stats = await stack.engine.stats(String(showtimeId));
      expect(stats.ok && stats.prequeue).toBe(1);
      await buyer.shot(`${shotPrefix}31-prequeue`);
      expect(buyer.errors).toEqual([]);
      await buyer.context.close();
    },
  );

  it.each(BOTH)(
    'sold out, and a turn that expired, are said in plain words with what to do next (%s)',
    async (_name, viewport, shotPrefix) => {
      const soldOut = await stack.createShowtime({ title: 'Sold Out Show' });
      await stack.configureRoom(soldOut, { ...quickRoom(2), state: 'sold_out' });
      const buyer = await openPage(browser, { viewport });
      const { page } = buyer;
      await page.goto(`${stack.edgeUrl}/showtimes/${soldOut}`);
      // The sale state is one, from the sale control: the page knows at once, nobody is asked to join.
      await waitForStep(page, 'step-ended');
      expect(await page.locator('#ended-title').textContent()).toBe('Sold out');
      expect(await page.locator('#ended-text').textContent()).toBe('Every seat for this showing has been sold.');
      expect(await page.locator('#sale-badge').textContent()).toBe('Sold out');
      expect(await page.getByRole('button', { name: 'Join the line again' }).isVisible()).toBe(false);
      expect(await page.getByRole('button', { name: 'Join the line' }).isVisible()).toBe(false);
      await buyer.shot(`${shotPrefix}32-sold-out`);

      const expiring = await stack.createShowtime({ title: 'Expiry Show' });
      await stack.configureRoom(expiring, quickRoom(1));
      await stack.apiBuyer(expiring, `expiry-blocker-${expiring}`);
      await page.route(`**/api/showtimes/${expiring}/queue`, (route) =>
        route.request().method() === 'GET' ? fulfil(route, 410, 'TURN_EXPIRED') : route.fallback(),
      );
      await page.goto(`${stack.edgeUrl}/showtimes/${expiring}`);
      await page.getByRole('button', { name: 'Join the line' }).click();
      await waitForStep(page, 'step-ended');
      expect(await page.locator('#ended-title').textContent()).toBe('Your turn has expired');
      expect(await page.locator('#ended-text').textContent()).toContain('You can join the line again, at the back.');
      expect(await page.getByRole('button', { name: 'Join the line again' }).isVisible()).toBe(true);
      expect(await accessibilityIssues(page)).toEqual([]);
      await buyer.shot(`${shotPrefix}33-turn-expired`);
      expect(unexpected(buyer.errors, [410])).toEqual([]);
      await buyer.context.close();
    },
  );

  it.each(BOTH)(
    'a busy service: polling backs off, says when it will retry, and recovers by itself (%s)',
    async (_name, viewport, shotPrefix) => {
      const showtimeId = await stack.createShowtime({ title: 'Busy Night' });
      await stack.configureRoom(showtimeId, quickRoom(1));
      await stack.apiBuyer(showtimeId, `busy-blocker-${showtimeId}`);
      const buyer = await openPage(browser, { viewport });
      const { page } = buyer;
      const polls: number[] = [];
      let failing = true;
      await page.route(`**/api/showtimes/${showtimeId}/queue`, (route) => {
        if (route.request().method() !== 'GET') return route.fallback();
        polls.push(Date.now());
        return failing ? fulfil(route, 503, 'QUEUE_UNAVAILABLE', { 'retry-after': '1' }) : route.fallback();
      });
      await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
      await page.getByRole('button', { name: 'Join the line' }).click();
      await page.locator('#alert').waitFor({ state: 'visible' });
      expect(await page.locator('#alert').textContent()).toMatch(
        /^The service is busy right now\. We will try again in \d+ seconds?\.$/,
      );
      await expect.poll(() => polls.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
      await buyer.shot(`${shotPrefix}34-service-busy`);
      failing = false;
      await waitForStep(page, 'step-waiting');
      await expect.poll(() => page.locator('#alert').isHidden(), { timeout: 15_000 }).toBe(true);
      expect(await page.locator('#position').textContent()).toBe('1');
      expect(unexpected(buyer.errors, [503])).toEqual([]);
      await buyer.context.close();
    },
  );

  it.each(BOTH)('too many requests: the buyer is told how long to wait (%s)', async (_name, viewport, shotPrefix) => {
    const showtimeId = await stack.createShowtime({ title: 'Busy Matinee' });
    await stack.configureRoom(showtimeId, quickRoom(3));
    const buyer = await openPage(browser, { viewport });
    const { page } = buyer;
    await page.route(`**/api/showtimes/${showtimeId}/holds`, (route) =>
      fulfil(route, 429, 'RATE_LIMITED', { 'retry-after': '7' }),
    );
    await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
    await page.getByRole('button', { name: 'Join the line' }).click();
    await waitForStep(page, 'step-seats');
    await page.locator('#seat-grid button[data-code="A3"]').click();
    await page.getByRole('button', { name: 'Hold these seats' }).click();
    await page.locator('#alert').waitFor({ state: 'visible' });
    expect(await page.locator('#alert').textContent()).toBe(
      'Too many requests in a short time. Please wait 7 seconds and try again.',
    );
    // The choice is kept, so trying again is one click.
    expect(await page.locator('#seat-grid button[data-code="A3"]').getAttribute('aria-pressed')).toBe('true');
    await buyer.shot(`${shotPrefix}35-too-many-requests`);
    expect(unexpected(buyer.errors, [429])).toEqual([]);
    await buyer.context.close();
  });

  it('an address that is not a page, or a showtime not on sale, gets a page that says so (API paths keep JSON)', async () => {
    const visitor = await openPage(browser);
    const { page } = visitor;
    const missing = await page.goto(`${stack.edgeUrl}/no-such-page`);
    expect(missing?.status()).toBe(404);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
    await page.goto(`${stack.edgeUrl}/showtimes/987654321`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Showtime not found');
    expect(await accessibilityIssues(page)).toEqual([]);
    await visitor.shot('36-not-found');
    const api = await fetch(`${stack.edgeUrl}/api/no-such-route`, { headers: { accept: 'text/html' } });
    expect(api.headers.get('content-type')).toContain('application/json');
    expect(unexpected(visitor.errors, [404])).toEqual([]);
    await visitor.context.close();
  });

  it.each(BOTH)(
    'closing the page while waiting gives the place up; the next buyer moves forward (%s)',
    async (_name, viewport) => {
      const showtimeId = await stack.createShowtime({ title: 'Leaving Early' });
      await stack.configureRoom(showtimeId, quickRoom(1));
      await stack.apiBuyer(showtimeId, `leave-blocker-${showtimeId}`);
      const leaver = await openPage(browser, { viewport });
      await leaver.page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
      await leaver.page.getByRole('button', { name: 'Join the line' }).click();
      await waitForStep(leaver.page, 'step-waiting');
      const stayer = await stack.apiBuyer(showtimeId, `leave-stayer-${showtimeId}`);
      expect(stayer.position).toBe(2);

      await leaver.page.close({ runBeforeUnload: true });
      await expect
        .poll(
          async () =>
            (
              await stack.api('GET', `/api/showtimes/${showtimeId}/queue`, {
                headers: { 'x-queue-token': stayer.queueToken },
              })
            ).json.position,
          { timeout: 15_000 },
        )
        .toBe(1);
      expect(leaver.errors).toEqual([]);
      await leaver.context.close();
    },
  );
});
