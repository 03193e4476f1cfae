/**
 * Couple seats only in pairs, on a laptop and a 390 px phone: choosing one half chooses both
 * and the pair is held together; a page (or any client) that sends half a pair anyway is
 * refused by the core with 422 COUPLE_SEATS_SPLIT, and the buyer reads why, next to the map,
 * with nothing held.
 */
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { accessibilityIssues } from './accessibility';
import { openPage, waitForStep } from './browser';
import { quickRoom, useBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
let browser: Browser;

useBrowserStack((b, s) => ((browser = b), (stack = s)));

const VIEWPORTS = [
  ['a laptop', { width: 1366, height: 800 }, ''],
  ['a 390 px phone', { width: 390, height: 844 }, 'phone-'],
] as const;

describe.each(VIEWPORTS)('couple seats on %s', (_name, viewport, shotPrefix) => {
  it('couple seats only in pairs (and the core refuses half a pair too)', async () => {
    // Row D of the stack's hall is couple seats: D1+D2, D3+D4, D5+D6.
    const showtimeId = await stack.createShowtime({ title: `Date Night ${shotPrefix || 'laptop'}` });
    await stack.configureRoom(showtimeId, quickRoom(2));
    const buyer = await openPage(browser, { viewport });
    const { page } = buyer;
    await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
    await page.getByRole('button', { name: 'Join the line' }).click();
    await waitForStep(page, 'step-seats');
    const seat = (code: string) => page.locator(`#seat-grid button[data-code="${code}"]`);

    // The page: one click on D4 chooses D3 with it; un-choosing D3 drops both.
    await seat('D4').click();
    expect(await seat('D3').getAttribute('aria-pressed')).toBe('true');
    await seat('D3').click();
    expect(await seat('D4').getAttribute('aria-pressed')).toBe('false');

    // A client that sends half a pair anyway (here the page's own request, cut down on the wire).
    await page.route(`**/api/showtimes/${showtimeId}/holds`, (route) =>
      route.request().method() === 'POST'
        ? route.continue({ postData: JSON.stringify({ seats: ['D5'] }) })
        : route.fallback(),
    );
    await seat('D5').click();
    await page.getByRole('button', { name: 'Hold these seats' }).click();
    const alert = page.locator('#alert');
    await alert.waitFor({ state: 'visible' });
    expect(await alert.textContent()).toBe(
      'Couple seats are sold in pairs: choose both seats of the pair, or neither.',
    );
    const box = (await alert.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
    const held = await stack.sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM show_seat WHERE showtime_id = ${showtimeId} AND status <> 'AVAILABLE'`;
    expect(held[0]!.n).toBe(0);
    await buyer.shot(`${shotPrefix}38-half-a-couple-pair-refused`);

    // The whole pair goes through.
    await page.unroute(`**/api/showtimes/${showtimeId}/holds`);
    if ((await seat('D5').getAttribute('aria-pressed')) !== 'true') await seat('D5').click();
    expect(await seat('D6').getAttribute('aria-pressed')).toBe('true');
    await page.getByRole('button', { name: 'Hold these seats' }).click();
    // (The refusal's message may stay up until the hold step replaces the map.)
    await expect.poll(() => page.locator('#step-hold').isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await page.locator('#held-seats').textContent()).toBe('D5, D6');
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot(`${shotPrefix}39-couple-pair-held`);
    expect(buyer.errors.filter((e) => !e.includes('status of 422'))).toEqual([]);
    await buyer.context.close();
  });
});
