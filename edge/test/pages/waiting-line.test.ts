/**
 * The waiting page tells a buyer how long the whole line is and gives them a short queue id to
 * quote to support, on a laptop and on a 390 px phone; support finds that buyer's place with
 * the id through the operator API. In the pre-queue the page says how many wait already.
 */
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { accessibilityIssues } from './accessibility';
import { openPage, waitForStep } from './browser';
import { quickRoom, STACK_ADMIN_TOKEN, useBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
let browser: Browser;

useBrowserStack((b, s) => ((browser = b), (stack = s)));

const VIEWPORTS = [
  ['a laptop', { width: 1366, height: 800 }, ''],
  ['a 390 px phone', { width: 390, height: 844 }, 'phone-'],
] as const;

describe.each(VIEWPORTS)('the line on %s', (_name, viewport, shotPrefix) => {
  it('shows the whole line and a queue id support can look up', async () => {
    const showtimeId = await stack.createShowtime({ title: `Long Line ${shotPrefix}` });
    await stack.configureRoom(showtimeId, { ...quickRoom(1), admitPerMinute: 1, admitBurst: 1 });
    for (let i = 0; i < 3; i++) await stack.apiBuyer(showtimeId, `ahead-${shotPrefix}${showtimeId}-${i}`);
    const buyer = await openPage(browser, { viewport });
    const { page } = buyer;
    await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
    await page.getByRole('button', { name: 'Join the line' }).click();
    await waitForStep(page, 'step-waiting');
    await expect.poll(() => page.locator('#position').textContent()).toBe('3');
    expect(await page.locator('#line-length').textContent()).toBe('3 people are waiting in line in all.');
    const note = page.locator('#queue-id-note');
    await note.waitFor({ state: 'visible' });
    const queueId = (await page.locator('#queue-id').textContent())!;
    expect(queueId).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    const box = (await note.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot(`${shotPrefix}36-queue-id-and-line`);

    const found = await stack.api('GET', `/api/admin/showtimes/${showtimeId}/room/queue-ids/${queueId}`, {
      token: STACK_ADMIN_TOKEN,
    });
    expect(found).toMatchObject({ status: 200, json: { queueId, status: 'waiting', position: 3, lineLength: 3 } });
    expect(buyer.errors).toEqual([]);
    await buyer.context.close();
  });

  it('the pre-queue says how many wait for the opening', async () => {
    const showtimeId = await stack.createShowtime({
      title: `Early Birds ${shotPrefix}`,
      opensAt: new Date(Date.now() + 120_000),
    });
    await stack.apiBuyer(showtimeId, `early-${shotPrefix}${showtimeId}`);
    const buyer = await openPage(browser, { viewport });
    const { page } = buyer;
    await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
    await page.getByRole('button', { name: 'Join the pre-queue' }).click();
    await waitForStep(page, 'step-prequeue');
    await expect.poll(() => page.locator('#prequeue-length').textContent()).toBe('2 people are in the pre-queue.');
    expect(await page.locator('#queue-id-note').isVisible()).toBe(false);
    expect(await accessibilityIssues(page)).toEqual([]);
    expect(buyer.errors).toEqual([]);
    await buyer.context.close();
  });
});
