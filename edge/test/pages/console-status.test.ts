/**
 * The console, third pass, in real Chromium on a laptop and a phone: the polite status region
 * speaks only changes and keeps a confirmation (the ticking "updated" line is outside it),
 * a closed room stays in the rooms list under its own title and its page opens, and the
 * audit log shows the values of a hold-time change.
 */
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { accessibilityIssues } from './accessibility';
import { openPage } from './browser';
import { quickRoom, STACK_ADMIN_TOKEN, useBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
let browser: Browser;

useBrowserStack((b, s) => ((browser = b), (stack = s)));

async function signIn(page: Page) {
  await page.goto(`${stack.edgeUrl}/admin`);
  await page.getByLabel('Admin token').fill(STACK_ADMIN_TOKEN);
  await page.getByLabel('Your name (for the audit log)').fill('Ada Operator');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Waiting rooms' }).waitFor();
}

describe.each([
  ['a laptop', { width: 1366, height: 800 }, ''],
  ['a 390 px phone', { width: 390, height: 844 }, '-phone'],
] as const)('console status on %s', (_name, viewport, suffix) => {
  it('the status region speaks changes only and keeps the confirmation; the audit shows the values', async () => {
    const title = `Quiet Console ${suffix}${Date.now() % 1_000_000}`;
    const showtimeId = await stack.createShowtime({ title });
    await stack.configureRoom(showtimeId, quickRoom(2));
    const operator = await openPage(browser, { viewport });
    const { page } = operator;
    await signIn(page);
    await page.getByRole('link', { name: title }).click();
    await expect.poll(() => page.locator('#live').textContent(), { timeout: 10_000 }).toMatch(/^Live · updated /);
    // Count every write to the live region for 4 s of ticking numbers: none.
    await page.evaluate(() => {
      const region = document.querySelector('[role="status"]#console-status')!;
      (window as unknown as { writes: number }).writes = 0;
      new MutationObserver(() => (window as unknown as { writes: number }).writes++).observe(region, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    const liveBefore = await page.locator('#live').textContent();
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(await page.locator('#live').textContent()).not.toBe(liveBefore);
    expect(await page.evaluate(() => (window as unknown as { writes: number }).writes)).toBe(0);
    expect(await page.locator('#live').getAttribute('role')).toBeNull();

    await page.locator('#holdTtlSeconds').fill('120');
    await page.getByRole('button', { name: 'Apply sale settings' }).click();
    await page.getByRole('button', { name: 'Yes, apply it' }).click();
    await expect
      .poll(() => page.locator('#console-status').textContent())
      .toMatch(/^Applied: time to pay \(s\) → 120$/);
    const confirmation = await page.locator('#console-status').textContent();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await page.locator('#console-status').textContent()).toBe(confirmation);
    await expect
      .poll(() => page.locator('#audit-rows').textContent(), { timeout: 20_000 })
      .toMatch(/holdTtlSeconds: \d+ → 120/);
    expect(await accessibilityIssues(page)).toEqual([]);
    await operator.shot(`80-console-quiet-status${suffix}`);
    expect(operator.errors).toEqual([]);
    await operator.context.close();
  });

  it('charts keep their history across a reload (from the server) and say their axes', async () => {
    const title = `Chart History ${suffix}${Date.now() % 1_000_000}`;
    const showtimeId = await stack.createShowtime({ title });
    await stack.configureRoom(showtimeId, quickRoom(2));
    const operator = await openPage(browser, { viewport });
    const { page } = operator;
    await signIn(page);
    await page.getByRole('link', { name: title }).click();
    const points = () =>
      page.evaluate(
        () =>
          (document.querySelector('#chart-waiting polyline')!.getAttribute('points') ?? '').split(' ').filter(Boolean)
            .length,
      );
    await expect.poll(points, { timeout: 15_000 }).toBeGreaterThanOrEqual(5);
    // A reload blocks the live feed: only the server's history can fill the chart.
    await page.route(`**/admin/showtimes/${showtimeId}/live`, (route) => route.abort());
    await page.reload();
    await expect.poll(points, { timeout: 5_000 }).toBeGreaterThanOrEqual(5);
    expect(await page.locator('#axis-waiting').textContent()).toMatch(/^0 to \d+ · .+ → .+$/);
    expect(await page.locator('#chart-waiting line.axis-line').count()).toBe(2);
    expect(await accessibilityIssues(page)).toEqual([]);
    await operator.shot(`82-console-chart-history${suffix}`);
    await operator.context.close();
  });

  it('a closed room stays listed under its own title, and its page opens', async () => {
    const title = `Closed Room ${suffix}${Date.now() % 1_000_000}`;
    const showtimeId = await stack.createShowtime({ title });
    await stack.configureRoom(showtimeId, { ...quickRoom(2), state: 'closed' });
    const operator = await openPage(browser, { viewport });
    const { page } = operator;
    await signIn(page);
    const row = page.getByRole('row').filter({ hasText: title });
    expect(await row.count()).toBe(1);
    await page.getByRole('link', { name: title }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain(title);
    expect(await accessibilityIssues(page)).toEqual([]);
    await operator.shot(`81-console-closed-room${suffix}`);
    expect(operator.errors).toEqual([]);
    await operator.context.close();
  });
});
