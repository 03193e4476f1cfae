/**
 * The waiting page tells buyers in line how many seats are left and when the buyers ahead are
 * likely to take them all (the closed loop's seat count: queue/src/room-control.ts), in real
 * headless Chromium; the poll's JSON carries the same.
 */
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { coreHealthReader, createAdmissionGovernor } from '../../../queue/src/admission-governor';
import { accessibilityIssues } from './accessibility';
import { openPage, waitForStep } from './browser';
import { quickRoom, STACK_ADMIN_TOKEN, useBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
let browser: Browser;

useBrowserStack((b, s) => ((browser = b), (stack = s)));

describe('seats left on the waiting page', () => {
  it('says how many seats are left, and that the sale is effectively over for a place too far back', async () => {
    // Four seats, two buyers choosing, no margin: the two next in line could take the rest.
    const showtimeId = await stack.createShowtime({ title: 'Last Seats', layout: { rows: 1, columns: 4 } });
    await stack.configureRoom(showtimeId, { ...quickRoom(2), inventoryMarginPercent: 0 });
    const governor = createAdmissionGovernor({
      engine: stack.engine,
      readHealth: coreHealthReader({ coreUrl: stack.core.url, adminToken: STACK_ADMIN_TOKEN }),
      validForMs: 60_000,
    });
    await governor.governAll();
    const buyers = [];
    for (let i = 0; i < 4; i++) buyers.push(await stack.apiBuyer(showtimeId, `ahead-${showtimeId}-${i}`));
    expect(buyers.map((b) => b.state)).toEqual(['admitted', 'admitted', 'waiting', 'waiting']);
    await governor.governAll();
    // Place 2 may still get a seat: 2 turns held + 2 places = 4 turns for 4 seats.
    const second = await stack.api('GET', `/api/showtimes/${showtimeId}/queue`, {
      headers: { 'x-queue-token': buyers[3].queueToken },
    });
    expect(second.json).toMatchObject({ state: 'waiting', position: 2, seatsLeft: 4, seatsLikelyGone: false });

    const buyer = await openPage(browser);
    const { page } = buyer;
    await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
    await page.getByRole('button', { name: 'Join the line' }).click();
    await waitForStep(page, 'step-waiting');
    await expect.poll(() => page.locator('#position').textContent()).toBe('3');
    await expect
      .poll(() => page.locator('#line-seats-left').textContent(), { timeout: 10_000 })
      .toBe(
        '4 seats are left (some held by buyers who may not pay). The buyers ahead of you are likely to take them all: the sale is effectively over for your place, unless some leave without buying.',
      );
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot('37-waiting-seats-likely-gone');
    expect(buyer.errors).toEqual([]);
    await buyer.context.close();
  });
});
