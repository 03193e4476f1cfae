/**
 * "Best N seats" on the sale page, on a laptop and a 390 px phone, keyboard only: the buyer
 * types how many and presses Enter; the picked seats are held, marked on the map as theirs and
 * read out; "Choose other seats" releases them (nothing held in the database) and goes back;
 * asking again and continuing leads to the payment step. On the phone the form comes first,
 * above the map ("Choose on the map instead" takes the keyboard there); on the laptop it comes
 * after the map, which stays first in the tab order.
 * Asking for more together than are left says how many sit together.
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
  ['a laptop', { width: 1366, height: 800 }, false],
  ['a 390 px phone', { width: 390, height: 844 }, true],
] as const;

describe.each(VIEWPORTS)('best seats on %s', (name, viewport, phone) => {
  it('keyboard: best 2 seats held and shown on the map; choose other seats releases them; continue leads to payment', async () => {
    const showtimeId = await stack.createShowtime({ title: `Best seats ${phone ? 'phone' : 'laptop'}` });
    await stack.configureRoom(showtimeId, quickRoom(2));
    const buyer = await openPage(browser, { viewport });
    const { page } = buyer;
    const held = async () =>
      (
        await stack.sql<{ seat_code: string }[]>`
      SELECT seat_code FROM show_seat WHERE showtime_id = ${showtimeId} AND status = 'HELD' ORDER BY seat_code`
      ).map((r) => r.seat_code);
    await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
    await page.getByRole('button', { name: 'Join the line' }).click();
    await waitForStep(page, 'step-seats');

    // The phone: the best seats first (its default way), the map below; the laptop: the map first.
    const formTop = (await page.locator('#best-form').boundingBox())!.y;
    const mapTop = (await page.locator('#map-area').boundingBox())!.y;
    expect(formTop < mapTop).toBe(phone);
    const toMap = page.getByRole('button', { name: 'Choose on the map instead' });
    expect(await toMap.isVisible()).toBe(phone);
    if (phone) {
      await toMap.click();
      expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset?.code)).toBe('A1');
    }

    // Keyboard only: the count field by its label, then Enter.
    const count = page.getByLabel('How many seats');
    await count.focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('2');
    expect(await page.getByRole('button', { name: 'Best 2 seats' }).isVisible()).toBe(true);
    await page.keyboard.press('Enter');
    const review = page.locator('#best-review');
    await review.waitFor({ state: 'visible' });
    // For two, a whole couple pair (row D) is preferred to the centre of the ideal row C.
    expect(await held()).toEqual(['D3', 'D4']);
    expect(await page.locator('#best-review-seats').textContent()).toBe('Row D, seats 3 and 4. Total: €25.00.');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('best-review-title');
    expect(await page.locator('#status').textContent()).toContain(
      'Best seats found and held for you: Row D, seats 3 and 4.',
    );
    // On the map, as the buyer's own, on both screens.
    expect(await page.locator('#map-area').isVisible()).toBe(true);
    for (const code of ['D3', 'D4']) {
      const seat = page.locator(`#seat-grid button[data-code="${code}"]`);
      expect(await seat.getAttribute('aria-label')).toContain('held by you');
      expect(await seat.getAttribute('class')).toContain('seat-mine');
    }
    expect(await accessibilityIssues(page)).toEqual([]);
    await buyer.shot(`${phone ? 'phone-' : ''}60-best-seats-picked`);

    // Choose other seats: released at once, back to the choice.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Choose other seats');
    await page.keyboard.press('Enter');
    await review.waitFor({ state: 'hidden' });
    expect(await held()).toEqual([]);
    expect(await page.locator('#best-form').isVisible()).toBe(true);
    await expect.poll(() => page.locator('#status').textContent()).toContain('Those seats were released.');
    expect(await page.locator('#seat-grid button[data-code="D3"]').getAttribute('aria-label')).toContain('available');

    // Ask again, continue: the payment step with the same seats.
    await page.getByRole('button', { name: 'Best 2 seats' }).click();
    await review.waitFor({ state: 'visible' });
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await waitForStep(page, 'step-hold');
    expect(await page.locator('#held-seats').textContent()).toBe('D3, D4');
    expect(buyer.errors).toEqual([]);
    expect(buyer.external).toEqual([]);
    await buyer.context.close();
  });

  it('more together than are left: the buyer reads how many sit together, nothing is held', async () => {
    const showtimeId = await stack.createShowtime({ title: `Best seats full ${name}` });
    await stack.configureRoom(showtimeId, quickRoom(2));
    // Every row cut so that at most 2 standard seats sit together anywhere.
    await stack.sql`UPDATE show_seat SET status = 'BOOKED', booking_id = gen_random_uuid(), customer_id = 'someone'
                     WHERE showtime_id = ${showtimeId} AND seat_code IN ('A5', 'B3', 'B6', 'C3', 'C6', 'D3', 'D4')`;
    const buyer = await openPage(browser, { viewport });
    const { page } = buyer;
    await page.goto(`${stack.edgeUrl}/showtimes/${showtimeId}`);
    await page.getByRole('button', { name: 'Join the line' }).click();
    await waitForStep(page, 'step-seats');
    await page.getByLabel('How many seats').fill('3');
    await page.getByRole('button', { name: 'Best 3 seats' }).click();
    const alert = page.locator('#alert');
    await alert.waitFor({ state: 'visible' });
    expect(await alert.textContent()).toBe(
      'There are no longer that many seats together: at most 2 sit side by side. Ask for fewer, or for seats apart.',
    );
    const box = (await alert.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
    // The count follows what is left; nothing was held.
    expect(await page.getByLabel('How many seats').inputValue()).toBe('2');
    const [row] = await stack.sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM show_seat WHERE showtime_id = ${showtimeId} AND status = 'HELD'`;
    expect(row!.n).toBe(0);
    expect(buyer.errors.filter((e) => !e.includes('status of 409'))).toEqual([]);
    await buyer.context.close();
  });
});
